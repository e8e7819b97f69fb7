"""Experiment stage 2, recommend: which registered tools to run on which documents, with the
reasoning and a confidence (the `recommend` node). The reader reviews it."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.experiments.models import ExperimentType, FocusTerm
from zettelgraph.llm.structured import Sampling, schema_for
from zettelgraph.prompts.experiment_common import (
    DOCUMENT_ID,
    TYPE_GUIDANCE,
    PromptDocument,
    as_json,
    documents_block,
    term_block,
)

NAME = "experiment_strategy"
SAMPLING = Sampling(temperature=0.1, max_tokens=900)


class PromptTool(BaseModel):
    name: str
    scope: str  # "document" or "corpus"
    description: str


class StrategyInput(BaseModel):
    type: ExperimentType
    term: FocusTerm
    goal: str
    term_context: str
    documents: list[PromptDocument]
    tools: list[PromptTool]
    preferred: list[str] = Field(default_factory=list)  # the type's usual tools, first
    language: str = "es"


class DocumentTools(BaseModel):
    document: str = Field(pattern=DOCUMENT_ID, max_length=8)
    tools: list[str] = Field(max_length=10)


class StrategyRecommendation(BaseModel):
    assignments: list[DocumentTools] = Field(max_length=60)
    reasoning: str = Field(min_length=1, max_length=900)
    confidence: float = Field(ge=0.0, le=1.0)


def request_schema(data: StrategyInput) -> dict[str, Any]:
    """The response schema with the tool names as an enum, so constrained decoding can only
    name a registered tool (one the validation would otherwise drop)."""
    schema = schema_for(StrategyRecommendation)
    names = [tool.name for tool in data.tools]
    schema["$defs"]["DocumentTools"]["properties"]["tools"]["items"] = {
        "type": "string",
        "enum": names,
    }
    return schema


def messages(data: StrategyInput) -> list[BaseMessage]:
    request = {
        "experiment_type": data.type.value,
        "goal": data.goal,
        "focus_term": {**term_block(data.term), "context": data.term_context},
        "documents": documents_block(data.documents),
        "available_tools": [t.model_dump() for t in data.tools],
        "usually_useful_for_this_type": data.preferred,
    }
    return [
        SystemMessage(
            content=(
                "You choose text-analysis tools for a study of how a term is used in a "
                f"reader's documents. This is {TYPE_GUIDANCE[data.type]} A 'corpus' tool "
                "compares the documents it is given, so give it to every document it should "
                "compare. Prefer few tools that answer the goal over every tool. Write the "
                f"reasoning in the language with code '{data.language}'."
            )
        ),
        HumanMessage(
            content=(
                f"{as_json(request)}\n\n"
                "Give `assignments`: for each document id (d1, d2, ...) the names of the "
                "tools to run on it; `reasoning`: why these tools answer the goal; and "
                "`confidence` from 0 to 1 that this plan answers it."
            )
        ),
    ]
