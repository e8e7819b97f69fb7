"""Approved cards written for other study tools: an Anki package (.apkg) or a CSV file."""

from __future__ import annotations

from zettelgraph.export.anki import (
    CSV_HEADER,
    ExportError,
    ExportReport,
    deck_name,
    export_apkg,
    export_csv,
)
from zettelgraph.export.anki_notes import (
    BASIC_MODEL,
    CLOZE_MODEL,
    MCQ_MODEL,
    anki_id,
)

__all__ = [
    "BASIC_MODEL",
    "CLOZE_MODEL",
    "CSV_HEADER",
    "MCQ_MODEL",
    "ExportError",
    "ExportReport",
    "anki_id",
    "deck_name",
    "export_apkg",
    "export_csv",
]
