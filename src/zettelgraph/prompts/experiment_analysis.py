"""Experiment stage 1, analyse: what the experiment aims to find out, and what the focus term
means in these documents (the `analyze` node)."""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.experiments.models import ExperimentType, FocusTerm
from zettelgraph.llm.structured import Sampling
from zettelgraph.prompts.experiment_common import (
    TYPE_GUIDANCE,
    PromptDocument,
    as_json,
    documents_block,
    term_block,
)

NAME = "experiment_analysis"
SAMPLING = Sampling(temperature=0.2, max_tokens=700)


class AnalysisInput(BaseModel):
    type: ExperimentType
    term: FocusTerm
    goal: str | None = None  # the reader's own words, when given
    documents: list[PromptDocument]
    language: str = "es"


class ExperimentAnalysis(BaseModel):
    goal: str = Field(
        min_length=1, max_length=600, description="What the experiment aims to find out."
    )
    term_context: str = Field(
        min_length=1,
        max_length=600,
        description="What the term means and may mean in these documents.",
    )
    questions: list[str] = Field(
        default_factory=list,
        max_length=4,
        description="Up to 4 short questions the results should answer.",
    )


def messages(data: AnalysisInput) -> list[BaseMessage]:
    request = {
        "experiment_type": data.type.value,
        "focus_term": term_block(data.term),
        "reader_goal": data.goal or "(not given)",
        "documents": documents_block(data.documents),
    }
    return [
        SystemMessage(
            content=(
                "You plan a study of how a term is used in a reader's documents. This is "
                f"{TYPE_GUIDANCE[data.type]} Use only the metadata given; do not invent facts "
                f"about the documents. Write in the language with code '{data.language}'."
            )
        ),
        HumanMessage(
            content=(
                f"{as_json(request)}\n\n"
                "Give `goal` (what this experiment should find out, in one or two sentences; "
                "keep the reader's goal when there is one), `term_context` (what the term "
                "means, and which meanings these documents may give it) and up to 4 "
                "`questions` the results should answer."
            )
        ),
    ]
