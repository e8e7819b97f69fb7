"""Book notes or a document: the one place that decides how a file is read.

`graph_inputs` turns a file into Quote Parse Graph inputs: `{"text": ...}` for book notes, one
`{"document": ...}` per document (a chat export holds several). The ingest service and the
graph's `read_file` node both call it, so the rule cannot drift between them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast, get_args

from zettelgraph.ingest.booknotes import NOTE_SUFFIXES, has_quotes_section, read_notes_file
from zettelgraph.ingest.documents import read_documents
from zettelgraph.ingest.ocr import OcrConfig
from zettelgraph.ingest.parsed import FileType


def graph_inputs(
    path: Path,
    *,
    file_type: str | None,
    max_bytes: int,
    scanned: bool,
    ocr: OcrConfig | None = None,
) -> list[dict[str, Any]]:
    """Inputs for one file. `file_type` is the reader the user forced (--type), `scanned` says
    the file was found in a folder (only book notes are taken from a scan; named, a text file
    without a quotes section is read as a document); `ocr` says how images are read."""
    if file_type is not None and file_type != "notes" and file_type not in get_args(FileType):
        known = ", ".join(("notes", *get_args(FileType)))
        raise ValueError(f"unknown file type {file_type!r}; known: {known}")
    notes_named = file_type is None and path.suffix.lower() in NOTE_SUFFIXES
    if file_type == "notes" or notes_named:
        text = read_notes_file(path, max_bytes=max_bytes)
        # From a scan, a note without quotes is left to the parser, which says so (skipped).
        if file_type == "notes" or scanned or has_quotes_section(text):
            return [{"file_path": str(path), "text": text}]
    forced = cast(FileType | None, file_type)
    documents = read_documents(path, max_bytes=max_bytes, file_type=forced, ocr=ocr)
    return [
        {"file_path": str(path), "document": document.model_dump(mode="json")}
        for document in documents
    ]
