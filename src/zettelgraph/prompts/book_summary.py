"""Summarise a Content from the reader's own notes (Quote Parse Graph, step make_summary)."""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

NAME = "book_summary"
# Notes longer than this are cut for the prompt: a summary needs the gist, not every quote,
# and small local models have small context windows.
MAX_NOTES_CHARS = 12_000


class BookSummaryInput(BaseModel):
    title: str
    author: str | None
    notes: str
    language: str = "es"
    # Small models: no summary_short asked for (cut from the summary), fewer words.
    compact: bool = False


# What a small model is asked for: the workflow cuts summary_short from the summary.
class CompactBookSummary(BaseModel):
    summary: str = Field(
        min_length=1, max_length=900, description="What the book is about (word limit below)."
    )


class BookSummary(CompactBookSummary):
    summary_short: str = Field(
        min_length=1, max_length=260, description="One sentence, at most 30 words."
    )


def response_model(compact: bool) -> type[CompactBookSummary]:
    return CompactBookSummary if compact else BookSummary


# A small model's summary from a few quotes is mostly filler past this; each word it writes
# costs it about 0.1 s on a laptop CPU, and each it reads about 0.03 s: it reads the first
# COMPACT_NOTES_CHARS of the notes.
COMPACT_WORDS = 50
COMPACT_NOTES_CHARS = 4_000


def messages(data: BookSummaryInput) -> list[BaseMessage]:
    notes = data.notes
    limit = COMPACT_NOTES_CHARS if data.compact else MAX_NOTES_CHARS
    if len(notes) > limit:
        notes = notes[:limit] + "\n[... notes cut for length ...]"
    return [
        SystemMessage(
            content=(
                "You write summaries of books from the notes a reader took about them. "
                "Use only what the notes and the title say; do not invent facts. "
                f"Write in the language with code '{data.language}'."
            )
        ),
        HumanMessage(
            content=(
                f"Book title: {data.title}\n"
                f"Book author: {data.author or 'unknown'}\n"
                "Here are the notes the reader has taken about the book:\n"
                f"{notes}\n---\n"
                + (
                    f"Write `summary` (at most {COMPACT_WORDS} words)."
                    if data.compact
                    else "Write `summary` (at most 100 words) and `summary_short` (one "
                    "sentence, at most 30 words)."
                )
            )
        ),
    ]
