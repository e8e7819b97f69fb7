"""The Obsidian vault: concept notes and the template packs' entity notes rendered from the
store, written after each commit, repaired by `sync_vault` (see docs/vault.md)."""

from __future__ import annotations

from zettelgraph.vault.entities import (
    ENTITY_FOLDER,
    EntityNotesReport,
    entity_folder,
    sync_entity_notes,
    touched_entities,
    write_entity_notes,
)
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
    "ENTITY_FOLDER",
    "IDEAS_DIR",
    "OWNED_KEYS",
    "ConceptNote",
    "EntityNotesReport",
    "LinkedConcept",
    "NoteFormatError",
    "SourceQuote",
    "SyncReport",
    "Vault",
    "VaultError",
    "entity_folder",
    "note_for",
    "note_state",
    "parse_note",
    "render_concept_note",
    "safe_note_name",
    "sync_entity_notes",
    "sync_vault",
    "touched_concepts",
    "touched_entities",
    "update_concept_note",
    "write_entity_notes",
]
