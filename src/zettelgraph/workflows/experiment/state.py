"""State of the experiment workflow (five stages, one node each; docs/design.md
"Experiments").

Plain JSON-safe data, so checkpoints survive across versions and processes. Stage outputs
start absent (not empty) and are filled as the stages run; tool runs come from parallel
branches (`Send`) and are gathered with an `operator.add` reducer, as are the LLM call
records and warnings.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal

# typing_extensions: pydantic (LangGraph Studio's input and output schemas) reads only this
# TypedDict on Python < 3.12.
from typing_extensions import TypedDict

Status = Literal[
    "running",
    "awaiting_review",
    "executing",
    "completed",
    "rejected",
    "failed",  # no document had a passage to read
]
Decision = Literal["approve", "modify", "reject"]


class ToolBranch(TypedDict):
    """One tools branch (`Send`): tools run in turn over the documents given."""

    term: dict[str, Any]  # a FocusTerm
    tools: list[str]  # registered tool names
    content_ids: list[str]


class ExperimentInput(TypedDict, total=False):
    run_id: str  # required: the thread id
    type: str  # an ExperimentType value
    term: dict[str, Any]  # a FocusTerm
    content_ids: list[str]
    goal: str | None  # the reader's own words
    created_at: str


class ExperimentState(ExperimentInput, total=False):
    status: Status
    stage: str  # analyze, recommend, review, execute, synthesize, report
    documents: list[dict[str, Any]]  # DocumentInfo, in the order given
    term_passages: dict[str, int]  # content id -> passages that contain the term
    language: str  # what the model writes in: the goal's language, else the concept language
    # analyze
    experiment_goal: str
    term_context: str
    questions: list[str]
    # recommend
    recommended_strategy: dict[str, list[str]]  # content id -> tool names
    strategy_reasoning: str
    confidence: float | None
    strategy_source: str  # "model" or "defaults" (the model's answer was unusable)
    # review
    decision: Decision | None
    review_notes: str
    modified_strategy: dict[str, list[str]] | None
    approved_strategy: dict[str, list[str]]
    reviewed_at: str
    # run_tools
    tool_runs: Annotated[list[dict[str, Any]], operator.add]
    # synthesize
    synthesis: dict[str, Any]
    report_path: str
    charts: list[str]
    completed_at: str
    # Throughout
    llm_calls: Annotated[list[dict[str, Any]], operator.add]
    warnings: Annotated[list[str], operator.add]
