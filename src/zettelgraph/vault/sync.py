"""Keep the vault in step with the store (the compensation pattern).

The store is written first, in one transaction; notes are written after it. A concept whose
note may be missing or stale carries `vault_sync_pending=True`; `sync_vault` compares every
note with the store, writes what differs and clears the flag once its note is written. A note
that cannot be written is reported and keeps its flag, so the next sync tries again. The note
of a concept (or entity) the reader removed has no flag to carry: its removal's record does
that, and a whole sync moves any such note still in the vault to `.trash/` (`trash.py`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from pathlib import Path

from zettelgraph.models import ChangeSet, Concept
from zettelgraph.packs.relations import SUPPORTS
from zettelgraph.packs.schema import PackSchema
from zettelgraph.store.base import GraphStore
from zettelgraph.text.normalize import normalize_name
from zettelgraph.vault.books import sync_book_notes
from zettelgraph.vault.entities import entity_vaults, sync_entity_notes
from zettelgraph.vault.notes import (
    ConceptNote,
    LinkedConcept,
    expected_state,
    front_matter_differs,
    is_old_shape,
    note_state,
    owned_keys,
)
from zettelgraph.vault.passages import source_quotes
from zettelgraph.vault.properties import book_tags
from zettelgraph.vault.report import AUTHOR_NOTE, BOOK_NOTE, CONCEPT_NOTE, NotesReport
from zettelgraph.vault.trash import discard_notes, removed_nodes
from zettelgraph.vault.writer import AUTHORS_DIR, SOURCES_DIR, Vault, VaultError

log = logging.getLogger(__name__)

MISSING = "missing"
PENDING = "pending"
TEXT_EDITED = "text edited"
FRONT_MATTER_DIFFERS = "front matter differs"
CONNECTIONS_DIFFER = "connections differ"
# Written before notes had flat properties (relation ids in a nested `concept_relations`).
OLD_SHAPE = "old note format"


# What a sync found and did: concept ids, and entity ids when entity notes were synced too
# (their entries have `entity_id` instead of `concept_id`); `drift` reasons are the
# constants above.
SyncReport = NotesReport


def note_for(store: GraphStore, concept_id: str) -> ConceptNote:
    """The note content of a concept as the store has it. Raises LookupError if unknown."""
    concept = store.get_concept(concept_id)
    if concept is None:
        raise LookupError(f"no concept {concept_id} in the store")
    return _note_of(store, concept)


def _note_of(store: GraphStore, concept: Concept) -> ConceptNote:
    # Reverse and symmetric edges are stored too, so outgoing edges are the whole picture.
    relations: dict[str, list[LinkedConcept]] = {}
    for relation in store.relations(concept.id, direction="out"):
        target = store.get_concept(relation.target_id)
        if target is not None:
            relations.setdefault(relation.type, []).append(LinkedConcept(target.id, target.title))
    for targets in relations.values():
        targets.sort(key=lambda target: (normalize_name(target.title), target.id))
    attributions = store.relations(concept.id, relation_type=SUPPORTS, direction="in")
    quotes = store.get_quotes([relation.source_id for relation in attributions])
    sources = source_quotes(store, quotes)
    tags: list[str] = []
    for content_id in dict.fromkeys(source.content_id for source in sources):
        content = store.get_content(content_id)
        tags += book_tags(content.metadata) if content is not None else []
    return ConceptNote(
        concept=concept, relations=relations, sources=sources, tags=tuple(dict.fromkeys(tags))
    )


def touched_concepts(store: GraphStore, changes: ChangeSet) -> list[str]:
    """Concepts whose note a commit of `changes` may change: its concepts and both ends of
    its concept-to-concept relations (the reverse edge changes the other note's Conexiones)."""
    ids = [concept.id for concept in changes.concepts]
    for relation in changes.relations:
        ids.extend([relation.source_id, relation.target_id])
    known = {concept.id for concept in changes.concepts}
    return [
        concept_id
        for concept_id in dict.fromkeys(ids)
        if concept_id in known or store.get_concept(concept_id) is not None
    ]


def sync_vault(
    store: GraphStore,
    vault: Vault,
    *,
    check: bool = False,
    concept_ids: Iterable[str] | None = None,
    schema: PackSchema | None = None,
    entity_folders: Mapping[str, str] | None = None,
) -> SyncReport:
    """Compare the notes of every concept (or of `concept_ids`) with the store and, unless
    `check`, write the ones that differ and clear `vault_sync_pending` where written. Given
    the active packs' `schema` and no `concept_ids`, every entity note is synced too
    (`entities.sync_entity_notes`, in the folders `entity_folders` names per pack). Without
    `concept_ids`, the notes of removed concepts (and entities) still in the vault are moved
    to `.trash/` (`removed`, drift reason "removed"). The notes of the books the concepts
    cite and of their authors are synced too (`books.sync_book_notes`), and reported with
    `entity_id` when no `concept_ids` are given.

    A note that cannot be written goes to `errors` and keeps its flag; the others are still
    written. With `check=True` nothing is written, in the vault or the store.
    """
    report = SyncReport()
    # Every sync also tidies what writes killed mid-way left (a run resumed after a kill).
    vault.tidy(report, CONCEPT_NOTE, check=check)
    vault.folder_vault(SOURCES_DIR).tidy(report, BOOK_NOTE, check=check)
    vault.folder_vault(AUTHORS_DIR).tidy(report, AUTHOR_NOTE, check=check)
    cited: dict[str, None] = {}  # the books the synced concepts cite, in order
    for concept in _concepts(store, concept_ids, report):
        try:
            _sync_one(store, vault, concept, check, report, cited)
        except (OSError, ValueError, VaultError) as exc:
            # NoteFormatError and UnicodeDecodeError are ValueErrors: one bad note must not
            # stop the others.
            log.warning("vault note of %s (%s) not synced: %s", concept.id, concept.title, exc)
            path = _planned_path(vault, concept)
            report.not_written(CONCEPT_NOTE, "concept_id", concept.id, concept.title, path, exc)
    books = sync_book_notes(store, vault, cited, check=check)
    if concept_ids is not None:
        # A sync of some concepts (after a commit, an edit) reports on their notes; the book
        # and author notes it refreshed on the way only when they could not be written.
        report.errors += books.errors
        return report
    report.absorb(books)
    concepts, entities = removed_nodes(store)
    report.absorb(discard_notes(store, [vault], concepts, check=check))
    if schema is not None:
        report.absorb(
            sync_entity_notes(store, vault.root, schema, check=check, folders=entity_folders)
        )
        folders = entity_vaults(vault.root, [pack.name for pack in schema.packs], entity_folders)
        report.absorb(discard_notes(store, folders, entities, key="entity_id", check=check))
    return report


def sync_pending(store: GraphStore, vault: Vault, *, skip: Iterable[str] = ()) -> SyncReport:
    """Write the notes an earlier write left unwritten: every concept still carrying
    `vault_sync_pending` (but those in `skip`, which the caller is writing itself). Called
    wherever the vault is next opened for writing (a run's commit, `serve`), so a note a
    failed write left behind is repaired without the reader running `vault sync`; one that
    still cannot be written keeps its flag and goes to `errors`."""
    skipped = set(skip)
    # `list_concepts` is one memoised read on SQLite and one query on Cypher stores; the
    # flag lives in each concept's data, which every backend returns whole.
    pending = [
        concept.id
        for concept in store.list_concepts()
        if concept.vault_sync_pending and concept.id not in skipped
    ]
    return sync_vault(store, vault, concept_ids=pending) if pending else SyncReport()


def sync_concepts(
    store: GraphStore, vault: Vault, concept_ids: Iterable[str]
) -> tuple[SyncReport, SyncReport]:
    """The notes of `concept_ids` (a write that just changed them), then every note an
    earlier write left unwritten (`sync_pending`): the second report says what was repaired,
    so each front end can tell the reader that a note it did not touch now was written."""
    ids = list(dict.fromkeys(concept_ids))
    report = sync_vault(store, vault, concept_ids=ids)
    return report, sync_pending(store, vault, skip=ids)


def _planned_path(vault: Vault, concept: Concept) -> str | None:
    try:
        return str(vault.note_path(concept))
    except (OSError, VaultError):
        return None


def _concepts(
    store: GraphStore, concept_ids: Iterable[str] | None, report: SyncReport
) -> list[Concept]:
    if concept_ids is None:
        concepts = store.list_concepts()
    else:
        concepts = []
        for concept_id in dict.fromkeys(concept_ids):
            concept = store.get_concept(concept_id)
            if concept is None:
                report.errors.append(
                    {
                        "kind": CONCEPT_NOTE,
                        "concept_id": concept_id,
                        "title": None,
                        "path": None,
                        "error": "no such concept in the store",
                    }
                )
            else:
                concepts.append(concept)
    # Oldest first, so when two concepts share a title the older one keeps the plain name.
    return sorted(concepts, key=lambda concept: (concept.created_at, concept.id))


def _sync_one(
    store: GraphStore,
    vault: Vault,
    concept: Concept,
    check: bool,
    report: SyncReport,
    cited: dict[str, None],
) -> None:
    note = _note_of(store, concept)
    cited.update(dict.fromkeys(source.content_id for source in note.sources))
    existing = vault.find_note(concept.id)
    reason = _drift(vault, note, existing)
    if reason is None and not concept.vault_sync_pending:
        report.unchanged += 1
        return
    path = existing if existing is not None else vault.note_path(concept)
    report.drift.append(
        {
            "kind": CONCEPT_NOTE,
            "concept_id": concept.id,
            "title": concept.title,
            "path": str(path),
            "reason": reason or PENDING,
        }
    )
    if check:
        return
    if reason is None:
        report.unchanged += 1  # the note is right already; only the flag was stale
    else:
        vault.write_note(note)
        (report.written if existing is None else report.updated).append(concept.id)
    if concept.vault_sync_pending:
        _clear_pending(store, concept)


def _drift(vault: Vault, note: ConceptNote, path: Path | None) -> str | None:
    if path is None:
        return MISSING
    text = vault.read_note(path)
    linked = vault.with_note_names(note)
    state = note_state(text, owned_keys(vault.vocabulary, linked), vault.labels)
    expected = expected_state(linked, vault.vocabulary, vault.labels)
    if state["earlier_versions"] != expected["earlier_versions"]:
        return TEXT_EDITED
    if is_old_shape(text):
        return OLD_SHAPE
    if front_matter_differs(state, expected):
        return FRONT_MATTER_DIFFERS
    if state["connections"] != expected["connections"]:
        return CONNECTIONS_DIFFER
    return None


def _clear_pending(store: GraphStore, concept: Concept) -> None:
    current = store.get_concept(concept.id)
    if current != concept:
        # Changed (or deleted) since its note was rendered: the note may already be stale,
        # so keep the flag and let the next sync look again.
        return
    store.apply(ChangeSet(concepts=[concept.model_copy(update={"vault_sync_pending": False})]))
