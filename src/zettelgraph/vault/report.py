"""What a write, sync or check of the vault found and did, for every kind of file it holds.

Each drift, error and leftover temporary file names its `kind`, so `vault sync --check` can say
how many files of each kind differ from the store, and which.
"""

from __future__ import annotations

import dataclasses
from typing import Any

CONCEPT_NOTE = "concept note"
ENTITY_NOTE = "entity note"
BOOK_NOTE = "book note"
AUTHOR_NOTE = "author note"
CARD_FILE = "card file"
EXPERIMENT_NOTE = "experiment note"
# Every kind of file zettelgraph writes in the vault, in the order `vault sync` goes through them.
KINDS = (CONCEPT_NOTE, BOOK_NOTE, AUTHOR_NOTE, ENTITY_NOTE, CARD_FILE, EXPERIMENT_NOTE)
# What an entry's id key may be, by the kind of file (see `NotesReport`).
ID_KEYS = ("concept_id", "entity_id", "content_id", "experiment_id")
# What the reader does about notes a write left unwritten: the store is right, the sync redraws.
REPAIR = "run `zettelgraph vault sync` to repair"


@dataclasses.dataclass
class NotesReport:
    """What a write, sync or check of notes found and did: ids `written` (new notes),
    `updated` and `removed` (the notes of what the reader removed, moved to `.trash/`, and
    card files of books without approved cards); a `drift` entry ({"kind", the node's id
    key, "title", "path", "reason"}) for every file that was or would be written or removed;
    `errors` ({"kind", ..., "error"}) for the files that could not be. The id key says what
    the file is of: `concept_id`, `entity_id` (entities, books, authors), `content_id` (card
    files) or `experiment_id`. Every kind reports alike, so a sync adds one to the other."""

    written: list[str] = dataclasses.field(default_factory=list)
    updated: list[str] = dataclasses.field(default_factory=list)
    removed: list[str] = dataclasses.field(default_factory=list)
    unchanged: int = 0
    drift: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    errors: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    # Leftover temporary files of interrupted writes ({"kind", "path"}): found (check) or
    # removed.
    temp_files: list[dict[str, str]] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every note could be checked and, unless checking only, written."""
        return not self.errors

    def absorb(self, other: NotesReport) -> None:
        """Add what another write or check of notes found and did."""
        self.written += other.written
        self.updated += other.updated
        self.removed += other.removed
        self.unchanged += other.unchanged
        self.drift += other.drift
        self.errors += other.errors
        self.temp_files += other.temp_files

    def not_written(
        self, kind: str, key: str, node_id: str, title: str, path: str | None, exc: Exception
    ) -> None:
        """Record that the `kind` file of a node (`key` names its id, `title` its title) could
        not be written at `path`: the exception, type and message, is the error."""
        error = f"{type(exc).__name__}: {exc}"
        self.errors.append(
            {"kind": kind, key: node_id, "title": title, "path": path, "error": error}
        )

    def error_lines(self) -> list[str]:
        """One line per file that could not be written: what it is of (its title, else its
        id) and why."""
        return [f"{_named(error)}: {error.get('error')}" for error in self.errors]

    def repair_warnings(self, notes: str = "notes") -> list[str]:
        """The warning of a write that left some `notes` unwritten, saying how to repair them;
        none when every note was written."""
        return [f"{len(self.errors)} {notes} not written: {REPAIR}"] if self.errors else []

    def by_kind(self) -> dict[str, dict[str, Any]]:
        """Per kind of file (every kind, in `KINDS` order): how many drifted, how many
        temporary files and errors, and the paths of the files that drifted."""
        return {
            kind: {
                "drift": len(drift := [d for d in self.drift if d.get("kind") == kind]),
                "temp_files": sum(t.get("kind") == kind for t in self.temp_files),
                "errors": sum(e.get("kind") == kind for e in self.errors),
                "paths": [d.get("path") for d in drift],
            }
            for kind in KINDS
        }


def _named(entry: dict[str, Any]) -> Any:
    return entry.get("title") or next((entry[key] for key in ID_KEYS if key in entry), None)
