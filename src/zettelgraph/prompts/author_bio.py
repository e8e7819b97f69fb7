"""A short biography for a new author (Quote Parse Graph, step get_or_create_author)."""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

NAME = "author_bio"


class AuthorBioInput(BaseModel):
    name: str
    title: str
    language: str = "es"
    # Extra evidence from an enrichment tool (e.g. web search results), if one is configured.
    context: str = ""


class AuthorBio(BaseModel):
    summary: str = Field(min_length=1, max_length=900, description="At most 100 words.")
    summary_short: str = Field(min_length=1, max_length=260, description="At most 30 words.")
    occupation: str = Field(min_length=1, max_length=80, description="E.g. novelist, historian.")


def messages(data: AuthorBioInput) -> list[BaseMessage]:
    context = f"\nWhat is known from other sources:\n{data.context}\n" if data.context else ""
    return [
        SystemMessage(
            content=(
                "You write short, factual biographies of authors. If you do not know the "
                "person, say only what can be inferred safely (that they wrote the book) and "
                f"do not invent facts. Write in the language with code '{data.language}'."
            )
        ),
        HumanMessage(
            content=(
                f"Author: {data.name}\nAuthor of: {data.title}\n{context}"
                "Write `summary` (at most 100 words), `summary_short` (at most 30 words) and "
                "`occupation`."
            )
        ),
    ]
