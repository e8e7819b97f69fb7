"""Call 1.2: check the current proposal against the quality checklist."""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.prompts.quality import checklist

NAME = "self_critique"
CRITERIA = (
    "atomicity",
    "distinctness",
    "quote_coverage",
    "relation_accuracy",
    "language",
    "edge_cases",
)
Criterion = Literal[
    "atomicity", "distinctness", "quote_coverage", "relation_accuracy", "language", "edge_cases"
]


class SelfCritiqueInput(BaseModel):
    proposal: str  # the proposal rendered with local ids (render.proposal_text)
    quotes: str  # the quotes with local ids
    language: str = "es"


class Issue(BaseModel):
    criterion: Criterion
    subject_id: str = Field(default="", max_length=8, description="c1, e2 or q3, if any.")
    issue: str = Field(max_length=400)
    severity: Literal["low", "medium", "high"]


class Critique(BaseModel):
    failed_criteria: list[Criterion] = Field(max_length=6)
    issues: list[Issue] = Field(max_length=20)
    overall_passes: bool
    critique_summary: str = Field(max_length=800)
    improvement_suggestions: list[str] = Field(
        max_length=10, json_schema_extra={"items": {"type": "string", "maxLength": 300}}
    )


def messages(data: SelfCritiqueInput) -> list[BaseMessage]:
    return [
        SystemMessage(
            content="You review a proposed set of Zettelkasten concepts extracted from quotes, "
            "strictly, against a checklist, and say precisely what to fix.\n"
            + checklist(data.language)
        ),
        HumanMessage(
            content=f"Quotes:\n{data.quotes}\n\nProposal:\n{data.proposal}\n\n"
            "List each failed criterion, the issues (with the id of the concept or quote "
            "concerned) and concrete improvement suggestions. overall_passes is true only if "
            "no criterion fails."
        ),
    ]
