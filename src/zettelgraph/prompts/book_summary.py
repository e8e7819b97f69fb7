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


class BookSummary(BaseModel):
    summary: str = Field(
        min_length=1, max_length=900, description="What the book is about, at most 100 words."
    )
    summary_short: str = Field(
        min_length=1, max_length=260, description="One sentence, at most 30 words."
    )


def messages(data: BookSummaryInput) -> list[BaseMessage]:
    notes = data.notes
    if len(notes) > MAX_NOTES_CHARS:
        notes = notes[:MAX_NOTES_CHARS] + "\n[... notes cut for length ...]"
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
                "Write `summary` (at most 100 words) and `summary_short` (one sentence, "
                "at most 30 words)."
            )
        ),
    ]
