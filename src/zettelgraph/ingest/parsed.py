"""What a document reader hands to the chunker: blocks of text with where they are.

Pure data. A reader (`ingest/documents.py`) turns a file into one or more `ParsedDocument`s;
`ingest/chunking.py` turns each into parent Sections and child passages.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from zettelgraph.ingest.errors import BookNotesError

FileType = Literal["pdf", "docx", "pptx", "markdown", "text", "code", "transcript", "image"]
BlockKind = Literal["text", "notes", "code", "turn", "cue"]


class DocumentError(BookNotesError):
    """A document that cannot be read; the message names the file (and line) and what to do."""


class Block(BaseModel):
    """One unit of text as the reader found it (a paragraph, a slide's body, a function, a
    chat turn), in reading order.

    `location` keys (only those that apply): `page` (1-based int), `slide` (1-based int),
    `heading_path` (list of headings, outermost first), `line_start` / `line_end` (1-based,
    inclusive), `turn` (1-based int), `speaker` (str), `symbol` (dotted name of a code
    definition), `start` / `end` ("HH:MM:SS") and `cues` ([first, last]) for a subtitle cue.
    Text read by OCR has `ocr` (true), `region` ([x, y, width, height] in the image's
    pixels), `confidence` (0-100) and, where a page, slide or document holds several pictures,
    `image` (1-based).

    Consecutive blocks with the same `group` form one parent chunk (a section, a slide or
    slide group, an exchange, a module or class); `group_title` names it for a citation.
    """

    model_config = ConfigDict(frozen=True)

    text: str = Field(min_length=1)
    location: dict[str, Any] = Field(default_factory=dict)
    group: str
    group_title: str = ""
    kind: BlockKind = "text"


class ParsedDocument(BaseModel):
    """A file (or one conversation of a chat export) read into blocks."""

    path: str
    file_type: FileType
    title: str | None = None
    author: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    blocks: list[Block]
    warnings: list[str] = Field(default_factory=list)
    # Which conversation of a multi-conversation export this is (0 for single documents).
    index: int = 0
