"""Is one candidate concept a duplicate of an existing concept of the graph?"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.prompts.ids import ExistingRef, QuoteRef

NAME = "detect_duplicate"


class ExistingConcept(BaseModel):
    id: str  # local id, e1..
    title: str
    summary_short: str


class DetectDuplicateInput(BaseModel):
    title: str
    concept: str
    analysis: str
    quote_ids: list[str]  # local q ids of the candidate's quotes
    existing: list[ExistingConcept]


class DuplicateDecision(BaseModel):
    is_duplicate: bool
    existing_concept_id: ExistingRef | None = None
    confidence: float = Field(ge=0.0, le=1.0)
    reasoning: str = Field(max_length=600)
    quote_ids_to_transfer: list[QuoteRef] = Field(default_factory=list, max_length=40)


def messages(data: DetectDuplicateInput) -> list[BaseMessage]:
    existing = "\n".join(f"[{e.id}] {e.title}: {e.summary_short}" for e in data.existing)
    return [
        SystemMessage(
            content="You decide whether a candidate idea is already in a knowledge graph. A "
            "paraphrase or reformulation of an existing concept IS a duplicate; a related but "
            "different idea is NOT. Decide by meaning, not wording."
        ),
        HumanMessage(
            content=f"Candidate: {data.title}\n{data.concept}\n{data.analysis}\n"
            f"Its quotes: {', '.join(data.quote_ids)}\n\nExisting concepts:\n{existing}\n\n"
            "If the candidate is a duplicate, set is_duplicate, give existing_concept_id (e1, "
            "e2, ... as above) and list in quote_ids_to_transfer which of its quotes support "
            "that existing concept."
        ),
    ]
