"""What the reader read: a source (Content), its author (Person), its passages (Quote), the
parent chunks of a document (Section) and the statements a passage makes (Proposition), with
their ids."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from zettelgraph.models.base import Node, stable_id
from zettelgraph.text.normalize import normalize_name, normalize_text


def content_id(title: str, author: str | None) -> str:
    return stable_id("content", normalize_name(title), normalize_name(author or ""))


def person_id(name: str) -> str:
    return stable_id("person", normalize_name(name))


def quote_id(content: str, text: str) -> str:
    return stable_id("quote", content, normalize_text(text))


def section_id(content: str, position: int, text: str) -> str:
    return stable_id("section", content, str(position), normalize_text(text))


def proposition_id(passage: str, position: int) -> str:
    # By place, not text: making a passage's propositions again replaces them one for one.
    return stable_id("proposition", passage, str(position))


# A passage of about 256 tokens makes a handful of claims; more is the model listing words.
MAX_PROPOSITIONS = 16
MAX_PROPOSITION_CHARS = 400


class Content(Node):
    """A source a person read: a book, article, PDF, slide deck or transcript."""

    title: str = Field(min_length=1, max_length=500)
    kind: str = "book"
    source_path: str | None = None
    content_hash: str | None = None
    summary: str = ""
    summary_short: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    processed_date: datetime | None = None


class Person(Node):
    """An author, matched by `normalize_name`."""

    name: str = Field(min_length=1, max_length=300)
    summary: str = ""
    summary_short: str = ""
    occupation: str = ""


class Quote(Node):
    """A verbatim passage of a Content with its location."""

    content_id: str
    text: str = Field(min_length=1)
    section: str | None = None
    page: str | None = None
    position: int = Field(ge=0, description="Order of the passage within its Content.")
    location: dict[str, Any] = Field(default_factory=dict)
    # The Section (parent chunk) a document passage was cut from; None for book-note quotes.
    parent_id: str | None = None
    # What sets the passage apart from the rest of its Content (`text.keywords.key_words`),
    # at most five, as written there: shown with it (`zettelgraph passage`); search does not
    # weigh them (measured: docs/design.md, "Documents").
    keywords: list[str] = Field(default_factory=list, max_length=5)
    # Its size in tokens (`ingest.chunking.count_tokens`: words and punctuation marks), as the
    # chunker counted it to size passages and an embedder reads it; None if stored before.
    token_count: int | None = Field(default=None, ge=0)
    # The pictures whose text (read by OCR) the passage holds, by place ("page 4, image 2",
    # "slide 3, image 1"), so a citation can point at a figure, not only at a page.
    images: list[str] = Field(default_factory=list)
    # One line saying what a document passage says, written at ingest when
    # ZETTELGRAPH_PASSAGE_SUMMARIES is on; empty otherwise.
    summary: str = ""


class Section(Node):
    """A parent chunk of a document (a section, slide group, exchange or module).

    Kept whole so an answer can show a passage in its context; only its passages (Quotes
    with `parent_id` pointing here) are embedded, searched and cited.
    """

    content_id: str
    title: str = Field(default="", max_length=1000)
    text: str = Field(min_length=1)
    position: int = Field(ge=0, description="Order of the section within its Content.")
    location: dict[str, Any] = Field(default_factory=dict)


class Proposition(Node):
    """One self-contained statement a passage makes (pronouns resolved, one claim), kept with
    its passage and embedded, so search can match a question against single claims and
    return the passage that makes them (docs/design.md, "Propositions")."""

    passage_id: str
    content_id: str
    text: str = Field(min_length=1, max_length=MAX_PROPOSITION_CHARS)
    position: int = Field(ge=0, lt=MAX_PROPOSITIONS, description="Order within its passage.")
