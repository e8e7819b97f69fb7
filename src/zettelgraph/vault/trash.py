"""Taking the notes of what the reader removed (a concept, a book's entities) out of the vault.

Only a note zettelgraph wrote is taken: the one its folder's index finds by the removed id in
its front matter (`Vault.find_note`), never a file found by its name. It is moved, not
deleted, into the vault's `.trash/` folder, where Obsidian itself puts what you delete: the
vault no longer shows it, zettelgraph no longer scans it (folders starting with `.` are
skipped), and whatever you had written in it can still be recovered.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterable, Mapping
from pathlib import Path

from zettelgraph.models import NodeLabel, Removal
from zettelgraph.store.base import GraphStore, every_node
from zettelgraph.vault.notes import SourceQuote, without_sources
from zettelgraph.vault.report import CONCEPT_NOTE, ENTITY_NOTE, NotesReport
from zettelgraph.vault.writer import Vault, VaultError, atomic_write

log = logging.getLogger(__name__)

TRASH_DIR = ".trash"
# The drift reason of a note whose concept or entity the reader removed.
REMOVED = "removed"


def discard_note(vault: Vault, entity_id: str) -> Path | None:
    """Move the note whose `entity_id` is `entity_id` to `.trash/` (as `Name (2).md` when the
    name is taken there); where it went, or None when there is no such note. Raises OSError
    when it cannot be moved (the note stays, to be moved by the next `vault sync`)."""
    path = vault.find_note(entity_id)
    if path is None:
        return None
    trash = vault.root / TRASH_DIR
    vault.check_inside(trash / path.name)
    trash.mkdir(parents=True, exist_ok=True)
    for number in itertools.count(1):
        name = path.name if number == 1 else f"{path.stem} ({number}){path.suffix}"
        target = trash / name
        if not target.exists() and not target.is_symlink():
            break
    path.replace(target)
    return target


def discard_notes(
    store: GraphStore,
    folders: Iterable[Vault],
    removed: Mapping[str, str],
    *,
    key: str = "concept_id",
    check: bool = False,
) -> NotesReport:
    """Move to `.trash/` the notes, in any of `folders`, of the removed nodes (id -> title)
    that are not in the store again; with `check`, only report them (drift `removed`). A note
    that cannot be moved is an error of the report and is tried again by the next sync."""
    report = NotesReport()
    kind = ENTITY_NOTE if key == "entity_id" else CONCEPT_NOTE
    present = _present(store, list(removed))
    for node_id, title in removed.items():
        if node_id in present:
            continue
        for vault in folders:
            path = vault.find_note(node_id)
            if path is None:
                continue
            report.drift.append(
                {"kind": kind, key: node_id, "title": title, "path": str(path), "reason": REMOVED}
            )
            if check:
                continue
            try:
                discard_note(vault, node_id)
            except (OSError, VaultError) as exc:
                log.warning("note of removed %s (%s) not moved: %s", node_id, title, exc)
                error = f"{type(exc).__name__}: {exc}; `zettelgraph vault sync` tries again"
                report.errors.append(
                    {"kind": kind, key: node_id, "title": title, "path": str(path), "error": error}
                )
                continue
            report.removed.append(node_id)
    return report


def drop_sources(vault: Vault, cited: Mapping[str, list[SourceQuote]]) -> NotesReport:
    """Take the quotes of a removed content out of the `## Fuente` of the notes that stay
    (concept id -> its quotes that went), where they stand as zettelgraph wrote them. The
    section is otherwise the reader's, so nothing else in it is touched."""
    report = NotesReport()
    for concept_id, sources in cited.items():
        path = vault.find_note(concept_id)
        if path is None or not sources:
            continue
        try:
            existing = vault.read_note(path)
            text = without_sources(existing, vault.linked_sources(sources))
            if text != existing:
                atomic_write(path, text)
                report.updated.append(concept_id)
        except (OSError, ValueError) as exc:
            error = f"{type(exc).__name__}: {exc}; remove its quotes of the book by hand"
            report.errors.append(
                {"kind": CONCEPT_NOTE, "concept_id": concept_id, "path": str(path), "error": error}
            )
    return report


def removed_nodes(store: GraphStore) -> tuple[dict[str, str], dict[str, str]]:
    """Every concept and pack entity a removal took (id -> title or name), from its record."""
    concepts: dict[str, str] = {}
    entities: dict[str, str] = {}
    for removal in every_node(store, NodeLabel.REMOVAL, Removal):
        concepts.update(removal.concepts)
        entities.update(removal.entities)
    return concepts, entities


def _present(store: GraphStore, ids: list[str]) -> set[str]:
    """Which of `ids` are nodes of the store now (a concept or entity written again)."""
    found = {concept_id for concept_id in ids if store.get_concept(concept_id) is not None}
    return found | {entity.id for entity in store.get_entities(ids)}
