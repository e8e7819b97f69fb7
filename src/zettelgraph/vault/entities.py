"""Entity notes on disk: one folder per pack, one note per entity, kept in step with the store.

An entity's note lives in its pack's folder (`09 - narrative/` unless `folders` names
another) and is found by the `entity_id` in its front matter, so a person may rename or move
it inside that folder. New notes get a safe file name (`Vault.path_for`); writes are atomic.
The graph extraction calls `write_entity_notes` after its commit; `zettelgraph vault sync`
calls `sync_entity_notes` through `sync_vault` to repair what a crash or an edit left behind.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from zettelgraph.models import ChangeSet, Entity, NodeLabel
from zettelgraph.packs.schema import PackSchema
from zettelgraph.store.base import GraphStore, every_node
from zettelgraph.text.normalize import normalize_name
from zettelgraph.vault.entity_notes import (
    EntityNote,
    LinkedEntity,
    entity_note_state,
    expected_entity_state,
    owned_keys,
    render_entity_note,
    update_entity_note,
)
from zettelgraph.vault.notes import SourceQuote
from zettelgraph.vault.passages import source_quotes
from zettelgraph.vault.report import ENTITY_NOTE, NotesReport
from zettelgraph.vault.writer import Vault, VaultError, atomic_write, safe_note_name

log = logging.getLogger(__name__)

# The default folder of a pack's entity notes, beside `08 - Ideas`.
ENTITY_FOLDER = "09 - {pack}"
MISSING = "missing"
DIFFERS = "note differs"


# What a write or a check of entity notes found and did (ids are entity ids).
EntityNotesReport = NotesReport


def entity_folder(pack: str, folders: Mapping[str, str] | None = None) -> str:
    """The vault folder of `pack`'s entity notes: `folders[pack]` when given, else
    `09 - <pack>`. Raises ValueError for a folder that is absolute, climbs out with `..` or
    has a part that is not a safe file name."""
    folder = (folders or {}).get(pack) or ENTITY_FOLDER.format(pack=pack or "entities")
    parts = PurePosixPath(folder.replace("\\", "/")).parts
    if not parts or folder.startswith(("/", "\\")) or any(p != safe_note_name(p) for p in parts):
        raise ValueError(
            f"entity folder {folder!r} of pack {pack!r} must be a relative folder of plain "
            "names inside the vault (no '..', no characters a file name may not hold)"
        )
    return "/".join(parts)


def entity_vaults(
    root: Path, packs: Iterable[str], folders: Mapping[str, str] | None = None
) -> list[Vault]:
    """The notes folder of each pack whose folder setting is safe (the others are reported
    by the sync that writes their notes)."""
    vault = EntityVault(root, folders)
    found: list[Vault] = []
    for pack in dict.fromkeys(packs):
        try:
            found.append(vault.folder_for(pack))
        except ValueError:
            continue
    return found


class EntityVault:
    """The entity folders of one vault: a `Vault` per folder, so notes are found by id."""

    def __init__(self, root: Path, folders: Mapping[str, str] | None = None) -> None:
        self.root = Path(root).expanduser()
        self._folders = dict(folders or {})
        self._vaults: dict[str, Vault] = {}

    def folder_for(self, pack: str) -> Vault:
        """The notes folder of `pack` (ValueError for a folder setting that is not safe)."""
        folder = entity_folder(pack, self._folders)
        if folder not in self._vaults:
            self._vaults[folder] = Vault(self.root, folder=folder)
        return self._vaults[folder]

    def folder_of(self, entity: Entity) -> Vault:
        return self.folder_for(entity.pack)

    def note_path(self, entity: Entity) -> Path:
        """Its note wherever it is in its pack's folder, else a new safe name there."""
        return self.folder_of(entity).path_for(entity.id, entity.name)

    def find_note(self, entity: Entity) -> Path | None:
        return self.folder_of(entity).find_note(entity.id)

    def linked(self, entity: Entity) -> LinkedEntity:
        path = self.note_path(entity)
        note = path.relative_to(self.root).with_suffix("").as_posix()
        return LinkedEntity(id=entity.id, name=entity.name, note=note)

    def write(self, note: EntityNote, schema: PackSchema) -> tuple[Path, bool]:
        """Write a new note or update the owned parts of the existing one; the path and
        whether anything was written. Raises OSError, NoteFormatError, VaultError."""
        vault = self.folder_of(note.entity)
        path = self.note_path(note.entity)
        vault.check_inside(path)
        if vault.find_note(note.entity.id) is not None:
            existing = vault.read_note(path)
            text = update_entity_note(existing, note, schema)
            if text == existing:
                return path, False
        else:
            text = render_entity_note(note, schema)
        atomic_write(path, text)
        vault.remember(note.entity.id, path)
        return path, True


# --- what a note shows --------------------------------------------------------------------


def entity_note_for(
    store: GraphStore, entity: Entity, schema: PackSchema, vault: EntityVault | None = None
) -> EntityNote:
    """The note of `entity` as the store has it; links get note paths when `vault` is given."""
    outgoing = store.relations(entity.id, direction="out")
    incoming = store.relations(entity.id, direction="in")
    others = {
        e.id: e
        for e in store.get_entities(
            list(dict.fromkeys(r.target_id for r in outgoing))
            + list(dict.fromkeys(r.source_id for r in incoming))
        )
    }

    def link(other: Entity) -> LinkedEntity:
        return vault.linked(other) if vault is not None else LinkedEntity(other.id, other.name)

    relations: dict[str, list[LinkedEntity]] = {}
    pointed: set[tuple[str, str]] = set()  # (the type or what it reverses, other id)
    for r in outgoing:
        other = others.get(r.target_id)
        if other is not None:
            relations.setdefault(r.type, []).append(link(other))
            pointed.add((str(r.properties.get("inferred_reverse_of", r.type)), other.id))
    back: dict[str, list[LinkedEntity]] = {}
    for r in incoming:
        other = others.get(r.source_id)
        spec = schema.relationship_types.get(r.type)
        two_way = spec is not None and (spec.symmetric or spec.reverse is not None)
        if other is not None and not two_way and (r.type, other.id) not in pointed:
            back.setdefault(r.type, []).append(link(other))
    for group in (*relations.values(), *back.values()):
        group.sort(key=lambda target: (normalize_name(target.name), target.id))
    return EntityNote(
        entity=entity,
        relations=relations,
        incoming=back,
        passages=passages_of(store, entity, incoming),
    )


def passage_ids(entity: Entity) -> list[str]:
    """The passages the extraction found the entity in (`provenance["passages"]`: quote ids,
    or dicts with an `id` / `quote_id`)."""
    found = entity.provenance.get("passages") or []
    ids: list[str] = []
    for item in found if isinstance(found, list) else []:
        if isinstance(item, str):
            ids.append(item)
        elif isinstance(item, Mapping):
            value = item.get("quote_id") or item.get("id")
            if isinstance(value, str):
                ids.append(value)
    return ids


def passages_of(
    store: GraphStore, entity: Entity, incoming: Sequence[Any] | None = None
) -> list[SourceQuote]:
    """Its passages: those in its provenance and any passage with a relation to it, by book
    and reading order."""
    if incoming is None:
        incoming = store.relations(entity.id, direction="in")
    ids = [*passage_ids(entity), *(r.source_id for r in incoming)]
    quotes = store.get_quotes(list(dict.fromkeys(ids)))
    return source_quotes(store, quotes)


def touched_entities(changes: ChangeSet) -> list[str]:
    """Entities whose note a commit of `changes` may change: its entities and both ends of
    its relations (the reverse edge changes the other note). Ids that are not entities are
    skipped by the writer."""
    ids = [entity.id for entity in changes.entities]
    for relation in changes.relations:
        ids.extend([relation.source_id, relation.target_id])
    return list(dict.fromkeys(ids))


# --- writing and checking -----------------------------------------------------------------


def write_entity_notes(
    store: GraphStore,
    vault_root: Path,
    schema: PackSchema,
    entity_ids: Sequence[str] | None = None,
    *,
    folders: Mapping[str, str] | None = None,
) -> EntityNotesReport:
    """Write the notes of `entity_ids` (every entity when None) that are missing or differ
    from the store, in `vault_root`. Ids that are not entities (a quote, a concept) are
    skipped. A note that cannot be written goes to `errors`; the others are still written.
    Nothing is raised for one note."""
    return sync_entity_notes(store, vault_root, schema, entity_ids=entity_ids, folders=folders)


def sync_entity_notes(
    store: GraphStore,
    vault_root: Path,
    schema: PackSchema,
    *,
    check: bool = False,
    entity_ids: Iterable[str] | None = None,
    folders: Mapping[str, str] | None = None,
) -> EntityNotesReport:
    """Compare the notes of every entity (or of `entity_ids`) with the store and, unless
    `check`, write the ones that are missing or differ."""
    report = EntityNotesReport()
    vault = EntityVault(vault_root, folders)
    if entity_ids is None:
        entities = list(every_node(store, NodeLabel.ENTITY, Entity))
        packs = {pack.name for pack in schema.packs} | {entity.pack for entity in entities}
    else:
        entities = store.get_entities(list(dict.fromkeys(entity_ids)))
        # A run's notes (resumed after a kill mid-write) tidy the folders they go to.
        packs = {entity.pack for entity in entities}
    _tidy(vault, sorted(packs), check, report)
    # Oldest first, so when two entities share a name the older one keeps the plain name.
    for entity in sorted(entities, key=lambda e: (e.created_at, e.id)):
        try:
            _sync_one(store, vault, schema, entity, check, report)
        except (OSError, ValueError, VaultError) as exc:
            # NoteFormatError and UnicodeDecodeError are ValueErrors, as is a bad folder.
            log.warning("entity note of %s (%s) not written: %s", entity.id, entity.name, exc)
            path = _planned_path(vault, entity)
            report.not_written(ENTITY_NOTE, "entity_id", entity.id, entity.name, path, exc)
    return report


def _tidy(vault: EntityVault, packs: list[str], check: bool, report: EntityNotesReport) -> None:
    """Remove (or, checking, report) what writes killed mid-way left in the packs' folders."""
    for pack in packs:
        try:
            folder = vault.folder_for(pack)
        except ValueError as exc:
            report.errors.append(
                {
                    "kind": ENTITY_NOTE,
                    "entity_id": None,
                    "title": pack,
                    "path": None,
                    "error": str(exc),
                }
            )
            continue
        folder.tidy(report, ENTITY_NOTE, check=check)


def _planned_path(vault: EntityVault, entity: Entity) -> str | None:
    try:
        return str(vault.note_path(entity))
    except (OSError, ValueError, VaultError):
        return None


def _sync_one(
    store: GraphStore,
    vault: EntityVault,
    schema: PackSchema,
    entity: Entity,
    check: bool,
    report: EntityNotesReport,
) -> None:
    note = entity_note_for(store, entity, schema, vault)
    existing = vault.find_note(entity)
    reason = MISSING
    if existing is not None:
        state = entity_note_state(
            vault.folder_of(entity).read_note(existing), owned_keys(entity, schema)
        )
        reason = DIFFERS if state != expected_entity_state(note, schema) else ""
    if not reason:
        report.unchanged += 1
        return
    path = existing if existing is not None else vault.note_path(entity)
    drift = {
        "kind": ENTITY_NOTE,
        "entity_id": entity.id,
        "title": entity.name,
        "path": str(path),
        "reason": reason,
    }
    report.drift.append(drift)
    if check:
        return
    path, written = vault.write(note, schema)
    if not written:
        # Only formatting differed from what a fresh render would give: nothing to write.
        report.drift.pop()
        report.unchanged += 1
    else:
        (report.written if existing is None else report.updated).append(entity.id)
