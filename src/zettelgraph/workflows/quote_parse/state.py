"""State of the Quote Parse Graph, split into input, working and output parts."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, NotRequired

# typing_extensions: pydantic (LangGraph Studio's input and output schemas) reads only this
# TypedDict on Python < 3.12.
from typing_extensions import TypedDict

from zettelgraph.workflows.records import JSONObject

Status = Literal["new", "updated", "unchanged"]


class ParsedPassage(TypedDict):
    """A quote of book notes or a passage of a document, as the Quote it becomes."""

    id: str
    text: str
    section: str | None  # the heading it is under
    page: str | None
    location: JSONObject  # where it is in the file: a note's line, a document's page, slide...
    parent_id: str | None  # the Section it is in (a document's)
    images: NotRequired[list[str]]  # the pictures its OCR text was read from (a document's)
    summary: NotRequired[str]  # its one line (ZETTELGRAPH_PASSAGE_SUMMARIES), when written


class ParsedSection(TypedDict):
    """A document's parent chunk, as the Section it becomes."""

    id: str
    title: str
    text: str
    location: JSONObject
    position: int  # its order within the content


class QuoteParseInput(TypedDict, total=False):
    file_path: str  # required
    # Explicit flags beat the file's front matter.
    title_flag: str | None
    author_flag: str | None
    # "notes" reads the file as book notes only; a document type forces that reader; None
    # picks by file type and content (ingest.reading.graph_inputs decides).
    file_type: str | None
    # The reader's consent to turn a stored content into another kind (book notes into a
    # document, or back), which replaces its quotes; without it that file is refused.
    replace_kind: bool
    # What the caller already read, so the file is read once: book-notes text, or a document
    # (a ParsedDocument dump; one conversation of a chat export).
    text: str | None
    document: dict[str, Any] | None


class QuoteParseOutput(TypedDict, total=False):
    content_id: str
    kind: str  # "book" for book notes, else the document's file type
    title: str
    author: str | None
    status: Status
    quotes_total: int
    quotes_added: int
    removed_quotes: list[str]  # texts of stored quotes no longer in the file (kept in the store)
    warnings: Annotated[list[str], operator.add]


class QuoteParseState(QuoteParseInput, QuoteParseOutput, total=False):
    content_hash: str
    metadata: dict[str, Any]
    parsed_quotes: list[ParsedPassage]
    sections: list[ParsedSection]  # a document's (book notes have none)
    summary: str
    summary_short: str
    author_id: str | None
    new_author: dict[str, Any] | None  # a Person dump when the author is new
