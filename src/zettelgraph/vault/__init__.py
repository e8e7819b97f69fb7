"""The Obsidian vault: concept notes rendered from the store, written after each commit,
repaired by `sync_vault` (see docs/vault.md)."""

from __future__ import annotations

from zettelgraph.vault.notes import (
    OWNED_KEYS,
    ConceptNote,
    LinkedConcept,
    NoteFormatError,
    SourceQuote,
    note_state,
    parse_note,
    render_concept_note,
    update_concept_note,
)
from zettelgraph.vault.sync import SyncReport, note_for, sync_vault, touched_concepts
from zettelgraph.vault.writer import IDEAS_DIR, Vault, VaultError, safe_note_name

__all__ = [
    "IDEAS_DIR",
    "OWNED_KEYS",
    "ConceptNote",
    "LinkedConcept",
    "NoteFormatError",
    "SourceQuote",
    "SyncReport",
    "Vault",
    "VaultError",
    "note_for",
    "note_state",
    "parse_note",
    "render_concept_note",
    "safe_note_name",
    "sync_vault",
    "touched_concepts",
    "update_concept_note",
]
