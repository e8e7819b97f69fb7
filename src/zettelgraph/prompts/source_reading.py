"""What the extraction call is told about what it reads: the content's kind, and for a
document the section each passage was cut from.

A novel's quotes, a paper's passages and a slide deck's bullets hold their ideas differently
(issue 31, item 7); a document's passage read without its section loses what it refers to
(item 17). Both are told in the human message, after the source's name: the instructions
before it never change within a run, so a server's prompt cache still reads them once.
"""

from __future__ import annotations

from typing import Literal, cast, get_args

from pydantic import BaseModel, Field

from zettelgraph.text.summaries import clip_words

# `Content.kind`: "book" for book notes, else the document's file type.
SourceKind = Literal[
    "book", "pdf", "docx", "pptx", "markdown", "text", "code", "transcript", "image"
]
DOCUMENT_READING = (
    "passages of a document (a paper, article or report): its ideas are its claims, "
    "definitions and findings; headings, references, captions and boilerplate give none"
)
# One line under the source's name, in English like the rest of the human message.
HOW_TO_READ: dict[SourceKind, str] = {
    "book": "a reader's quotes from a book: each is a passage the reader chose to keep; its idea "
    "is what it claims or shows, not the plot around it",
    "pdf": DOCUMENT_READING,
    "docx": DOCUMENT_READING,
    "markdown": DOCUMENT_READING,
    "text": DOCUMENT_READING,
    "pptx": "slides of a deck: terse bullet points under a slide title that names their "
    "subject; read a slide's title and bullets together, and do not add what they leave out",
    "transcript": "turns of a conversation or talk: an idea may span a question and its "
    "answer; greetings and filler give none",
    "code": "code and its comments: its ideas are what the code does and why it is built so, "
    "not a restatement line by line",
    "image": "text read from an image (OCR), which may have recognition errors: keep to what "
    "is legible",
}

# A section's text shown as context is clipped: it repeats its passages, and it is there to
# say what they refer to, not to be read again. 120 words is about 160 tokens a section. On
# docs/design.md read as a document (155 passages, 33 sections) it adds 18% to the calls'
# messages (`benchmarks/section_context.py`).
SECTION_CONTEXT_WORDS = 120


def source_kind(kind: str) -> SourceKind:
    """A stored `Content.kind` as the prompt knows it; a kind it does not know (written by a
    newer or older version) is read as plain text."""
    return cast(SourceKind, kind) if kind in get_args(SourceKind) else "text"


class PromptSection(BaseModel):
    """The section (parent chunk) some passages of the batch were cut from."""

    id: str  # local id, s1..
    title: str = ""
    text: str = Field(description="Clipped to SECTION_CONTEXT_WORDS.")

    @classmethod
    def clipped(cls, id: str, title: str, text: str) -> PromptSection:
        return cls(id=id, title=title, text=clip_words(text, SECTION_CONTEXT_WORDS))


def section_header(section: PromptSection) -> str:
    """What is shown above a section's passages: its title and text, marked as context, so the
    model cites only the passages (grounding checks a concept against them, never this)."""
    title = f' "{section.title}"' if section.title else ""
    return (
        f"Section {section.id}{title}: context only, not a quote; cite the [q] passages "
        f"under it, never this text:\n  {section.text}"
    )
