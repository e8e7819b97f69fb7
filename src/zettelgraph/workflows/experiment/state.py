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

from pydantic import with_config

# typing_extensions: pydantic (LangGraph Studio's input and output schemas) reads only this
# TypedDict on Python < 3.12.
from typing_extensions import TypedDict

from zettelgraph.experiments.models import TermMatch
from zettelgraph.workflows.records import MIRROR

Status = Literal[
    "running",
    "awaiting_review",
    "executing",
    "completed",
    "rejected",
    "failed",  # no document had a passage to read
]
Decision = Literal["approve", "modify", "reject"]


class Term(TypedDict):
    """The term the experiment follows (`experiments.models.FocusTerm`, as JSON)."""

    term: str
    definition: str  # the baseline meaning the reader gives
    source: str  # where the definition is from
    domain: str
    anchors: list[str]  # words that pin the baseline meaning
    match: TermMatch  # "stems" (as search finds words) or "exact" (the very word)


@with_config(MIRROR)
class Document(TypedDict):
    """One content the experiment reads (`experiments.models.DocumentInfo`, as JSON)."""

    id: str
    title: str
    author: str | None
    year: int | None
    kind: str
    language: str | None
    domain: str | None
    journal: str | None
    doi: str | None
    abstract: str
    passages: int
    summary_short: str


class Citation(TypedDict):
    """A passage a tool result rests on (`experiments.models.Citation`, as JSON)."""

    passage_id: str
    content_id: str
    title: str
    location: str
    text: str


@with_config(MIRROR)
class ToolRunRecord(TypedDict):
    """One tool's run (`experiments.models.ToolRun`, as JSON)."""

    tool: str
    document_ids: list[str]
    started_at: str  # ISO 8601
    seconds: float
    # The tool's own result (a `ToolOutput` of its kind: count, summary, citations and what
    # that tool measures), read by the report for the tools it draws.
    output: dict[str, Any]
    error: str | None  # the tool failed: the others still ran


@with_config(MIRROR)
class ExperimentCall(TypedDict):
    """One LLM call of a stage (`experiments.models.LLMCallRecord`, as JSON)."""

    name: str
    model: str
    started_at: str
    ended_at: str
    input_tokens: int
    output_tokens: int
    failed: bool


class ShownPassage(Citation):
    """A passage the synthesis showed the model, numbered as the report cites it."""

    n: int


class Insight(TypedDict):
    text: str
    citations: list[int]  # the passages' numbers


class GroupUsage(TypedDict):
    """How one group of the term-evolution table uses the term, as the synthesis wrote it."""

    group: str
    usage: str
    citations: list[int]


class DroppedStatement(TypedDict):
    text: str
    reason: str


class Synthesis(TypedDict):
    """What the synthesis wrote, and what it dropped, over the tools' evidence."""

    grouping: str  # what a group is: year, domain, author or document
    groups: list[str]
    passages: list[ShownPassage]
    findings: list[str]  # one line per tool result
    insights: list[Insight]
    evolution: list[GroupUsage]
    dropped: list[DroppedStatement]


class ToolBranch(TypedDict):
    """One tools branch (`Send`): tools run in turn over the documents given."""

    term: Term
    tools: list[str]  # registered tool names
    content_ids: list[str]


class ExperimentInput(TypedDict, total=False):
    run_id: str  # required: the thread id
    type: str  # an ExperimentType value
    term: Term
    content_ids: list[str]
    goal: str | None  # the reader's own words
    created_at: str


class ExperimentState(ExperimentInput, total=False):
    status: Status
    stage: str  # analyze, recommend, review, execute, synthesize, report
    documents: list[Document]  # in the order given
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
    tool_runs: Annotated[list[ToolRunRecord], operator.add]
    # synthesize
    synthesis: Synthesis
    report_path: str
    charts: list[str]
    completed_at: str
    # Throughout
    llm_calls: Annotated[list[ExperimentCall], operator.add]
    warnings: Annotated[list[str], operator.add]


def empty_synthesis() -> Synthesis:
    """The synthesis before its stage has run: the report's tables stand without it."""
    return {
        "grouping": "document",
        "groups": [],
        "passages": [],
        "findings": [],
        "insights": [],
        "evolution": [],
        "dropped": [],
    }
