"""Check the current proposal against the quality checklist, and against the
reader's suggestions when they gave some: a critique that does not know
them would ask the refinement to undo what the reader asked for."""

from __future__ import annotations

from typing import Literal, get_args

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.prompts.quality import checklist
from zettelgraph.prompts.suggestions import suggestions_block

NAME = "self_critique"
Criterion = Literal[
    "atomicity",
    "distinctness",
    "quote_coverage",
    "relation_accuracy",
    "language",
    "edge_cases",
    "suggestions",
]
CRITERIA: tuple[Criterion, ...] = get_args(Criterion)
SUGGESTIONS_CRITERION = (
    "7. suggestions: the proposal follows the reader's suggestions below; where they "
    "conflict with the other criteria, the reader's suggestions win."
)


class SelfCritiqueInput(BaseModel):
    proposal: str  # the proposal rendered with local ids (render.proposal_text)
    quotes: str  # the quotes with local ids
    language: str = "es"
    suggestions: str | None = None  # the reader's, given when the run started


class Issue(BaseModel):
    criterion: Criterion
    subject_id: str = Field(default="", max_length=8, description="c1, e2 or q3, if any.")
    issue: str = Field(max_length=400)
    severity: Literal["low", "medium", "high"]


class Critique(BaseModel):
    failed_criteria: list[Criterion] = Field(max_length=len(CRITERIA))
    issues: list[Issue] = Field(max_length=20)
    overall_passes: bool
    critique_summary: str = Field(max_length=800)
    improvement_suggestions: list[str] = Field(
        max_length=10, json_schema_extra={"items": {"type": "string", "maxLength": 300}}
    )


def messages(data: SelfCritiqueInput) -> list[BaseMessage]:
    system = (
        "You review a proposed set of Zettelkasten concepts extracted from quotes, "
        "strictly, against a checklist, and say precisely what to fix.\n" + checklist(data.language)
    )
    suggestions = suggestions_block(data.suggestions, end="\n")
    if suggestions:
        system += "\n" + SUGGESTIONS_CRITERION
    return [
        SystemMessage(content=system),
        HumanMessage(
            content=f"Quotes:\n{data.quotes}\n\nProposal:\n{data.proposal}\n\n"
            + suggestions
            + "List each failed criterion, the issues (with the id of the concept or quote "
            "concerned) and concrete improvement suggestions. overall_passes is true only if "
            "no criterion fails."
        ),
    ]
