"""State of the Concept Extraction Graph (seed 000, section 3.1).

Everything is plain JSON-safe data so checkpoints survive across versions and processes. Lists
filled by parallel branches (`Send`) use `operator.add` reducers.
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
    "approved",
    "committed",
    "aborted",
    "skipped",
    "no_quotes",
    "failed",  # every extraction call failed: nothing to review
    "superseded",  # another run committed the content first: nothing written
]
Decision = Literal["approve", "feedback", "abort"]


class DraftConcept(TypedDict):
    key: str  # c1, c2 ... stable within the run
    title: str
    concept: str
    analysis: str
    summary: str
    summary_short: str
    quote_ids: list[str]  # real Quote ids
    rationale: str
    history: list[str]  # the LLM calls that produced or changed it


class Attribution(TypedDict):
    concept_id: str  # an existing Concept id
    title: str
    quote_ids: list[str]
    reason: str
    history: list[str]


class DraftRelation(TypedDict):
    source: str  # a concept key (c1) or an existing Concept id
    type: str
    target: str
    explanation: str
    confidence: float
    history: list[str]


class Proposal(TypedDict):
    concepts: list[DraftConcept]
    attributions: list[Attribution]
    relations: list[DraftRelation]
    unattributed_quote_ids: list[str]
    notes: list[str]


class ExtractionInput(TypedDict, total=False):
    content_id: str  # required
    run_id: str  # required: the thread id
    suggestions: str | None
    force: bool


class ExtractionOutput(TypedDict, total=False):
    content_id: str
    status: Status
    proposal: Proposal
    report: dict[str, Any]
    committed: dict[str, Any]
    warnings: Annotated[list[str], operator.add]


class ExtractionState(ExtractionInput, ExtractionOutput, total=False):
    content: dict[str, Any]  # title, author
    graph_concepts: int  # concepts in the graph when the run started
    # The content's processed date when the run started (ISO, or None): the commit is refused
    # if another run changed it since.
    processed_at_start: str | None
    quotes: list[dict[str, Any]]  # id, text, section, page; in reading order
    # Parallel results, gathered by reducers.
    batch_results: Annotated[list[dict[str, Any]], operator.add]
    candidates: list[DraftConcept]
    # What the extraction calls said beyond their concepts (seed 000, step 2.1): their notes,
    # and why each quote they left out gives no concept (quote id -> reason).
    extraction_notes: list[str]
    unattributed_reasons: dict[str, str]
    # Proposal checks: concepts sent for a rewrite, the rewrites, and every check's action.
    repair_requests: list[dict[str, Any]]
    repairs: Annotated[list[dict[str, Any]], operator.add]
    check_log: Annotated[list[dict[str, Any]], operator.add]
    relation_neighbours: dict[str, list[str]]  # concept key -> nearest other new concept keys
    duplicate_decisions: Annotated[list[dict[str, Any]], operator.add]
    relation_queries: Annotated[list[dict[str, Any]], operator.add]
    relation_pools: dict[str, list[str]]  # concept key -> existing Concept ids
    relation_results: Annotated[list[dict[str, Any]], operator.add]
    # Phase 1 loop.
    phase_1_iteration: int
    quality_passes: bool
    # Set when the run hit its recursion limit and was sent to the review as it stood.
    stopped_at_limit: bool
    critique_log: Annotated[list[dict[str, Any]], operator.add]
    # Phase 2 loop.
    phase_2_iteration: int
    decision: Decision | None
    human_feedback: str | None
    feedback_log: Annotated[list[dict[str, Any]], operator.add]
    approved_at: str | None
    llm_calls: Annotated[list[dict[str, Any]], operator.add]
    errors: Annotated[list[str], operator.add]


def empty_proposal() -> Proposal:
    return {
        "concepts": [],
        "attributions": [],
        "relations": [],
        "unattributed_quote_ids": [],
        "notes": [],
    }
