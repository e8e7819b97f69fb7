"""Call 1.1a: candidate concepts from one batch of quotes, each citing the quotes it came from."""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.prompts.ids import QuoteRef
from zettelgraph.prompts.quality import atomicity_guide

NAME = "extract_concepts"


class PromptQuote(BaseModel):
    id: str  # local id, q1..
    text: str
    section: str | None = None
    page: str | None = None


class ExtractConceptsInput(BaseModel):
    title: str
    author: str | None
    quotes: list[PromptQuote]
    suggestions: str | None = None
    language: str = "es"


class CandidateConcept(BaseModel):
    title: str = Field(min_length=1, max_length=120)
    concept: str = Field(min_length=1, max_length=1200, description="What the idea is.")
    analysis: str = Field(max_length=1500, description="Why it matters, how to read it.")
    summary: str = Field(max_length=900, description="At most 100 words.")
    summary_short: str = Field(min_length=1, max_length=260, description="At most 30 words.")
    source_quote_ids: list[QuoteRef] = Field(min_length=1, max_length=40)
    rationale: str = Field(max_length=600, description="Why these quotes form this concept.")


class ExtractedConcepts(BaseModel):
    candidate_concepts: list[CandidateConcept] = Field(max_length=25)
    unattributed_quote_ids: list[QuoteRef] = Field(default_factory=list, max_length=60)
    extraction_notes: str = Field(default="", max_length=800)


def messages(data: ExtractConceptsInput) -> list[BaseMessage]:
    quotes = "\n".join(
        f"[{q.id}] {q.text}" + (f" (p. {q.page})" if q.page else "") for q in data.quotes
    )
    suggestions = (
        f"\nThe reader's suggestions (take them into account):\n{data.suggestions}\n"
        if data.suggestions
        else ""
    )
    return [
        SystemMessage(
            content="You are a Zettelkasten expert. From a reader's quotes you extract the "
            "atomic concepts (ideas) they contain, and you cite the quotes each comes from.\n"
            + atomicity_guide(data.language)
        ),
        HumanMessage(
            content=f"Source: {data.title}"
            + (f", by {data.author}" if data.author else "")
            + f"\nQuotes:\n{quotes}\n{suggestions}\n"
            "Extract every meaningful atomic concept. For each, give source_quote_ids: the ids "
            "(q1, q2, ...) of the quotes that formed it, exactly as written above. A quote may "
            "support several concepts. List in unattributed_quote_ids the quotes that support "
            "no concept (rare)."
        ),
    ]
