"""State of the Concept Extraction Graph (docs/design.md "Concept extraction").

Everything is plain JSON-safe data so checkpoints survive across versions and processes. Lists
filled by parallel branches (`Send`) use `operator.add` reducers.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, NotRequired

# typing_extensions: pydantic (LangGraph Studio's input and output schemas) reads only this
# TypedDict on Python < 3.12.
from typing_extensions import TypedDict

from zettelgraph.workflows.calls import CallFields

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
# "decide": the reader decided on some items (keep, drop, edit ...); the review goes on.
Decision = Literal["approve", "feedback", "abort", "decide"]


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
    # r1, r2 ... stable within the run, given before the review (`decisions.with_keys`);
    # absent in runs checkpointed before item-by-item review and until then.
    key: NotRequired[str]


class RelatedSuggestion(TypedDict):
    """Two near ideas the model related with a type its check did not confirm: shown as an
    untyped "related?" the reader may type (or ignore); never written unless typed."""

    key: str  # s1, s2 ...
    source: str
    target: str
    proposed_type: str  # what the model said, for the reader
    explanation: str
    confidence: float
    history: list[str]


class Proposal(TypedDict):
    concepts: list[DraftConcept]
    attributions: list[Attribution]
    relations: list[DraftRelation]
    unattributed_quote_ids: list[str]
    notes: list[str]
    related: NotRequired[list[RelatedSuggestion]]


class Doubt(TypedDict):
    """How sure the checks are that an item says what its quotes say (a concept) or that its
    type holds (a relation): `score` in [0, 1], `doubtful` under the calibrated floor."""

    score: float
    doubtful: bool
    reasons: list[str]  # what pulled the score down, in the reader's words
    signals: dict[str, float]  # the measurements the score came from
    of: NotRequired[str]  # fingerprint of the text it judged (nodes_doubts.fingerprint)


class Review(TypedDict):
    """The reader's item-by-item decisions so far (`decisions.py`): saved with the run at
    each decision, changeable until the run is approved."""

    concepts: dict[str, dict[str, Any]]  # key -> verdict (keep|drop|merge), into, edit, at
    # Relations (r), suggestions (s) and attributions to existing concepts (e): verdict, type.
    relations: dict[str, dict[str, Any]]
    quotes: dict[str, list[str]]  # concept key -> its quote ids as the reader left them
    added: list[dict[str, Any]]  # relations the reader added: key a1.., source, type, target
    log: list[dict[str, Any]]  # every decision as made, with the item's signals


class BatchPayload(TypedDict):
    """One extraction branch (`Send`): a batch of quotes, and what every batch shares."""

    index: int  # the batch's place, from 0
    quotes: list[dict[str, Any]]  # the batch's quotes, as in `ExtractionState.quotes`
    all_quotes: list[dict[str, str]]  # every quote's id, for the local numbering
    content: dict[str, Any]  # title, author
    suggestions: str | None  # the reader's, for the whole run


class DuplicatePayload(TypedDict):
    """One duplicate check (`Send`): a candidate against the graph's concepts."""

    candidate: DraftConcept
    all_quote_ids: list[str]  # every quote of the run, for the local numbering
    graph_has_concepts: bool  # False: nothing to compare with, no call


class RelationsPayload(TypedDict, total=False):
    """One relations branch (`Send`): a new concept, its new neighbours and its existing
    candidates (the query branch sends the concept alone)."""

    concept: DraftConcept
    others: list[DraftConcept]
    pool: list[str]  # existing Concept ids


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


class ExtractionState(ExtractionInput, ExtractionOutput, CallFields, total=False):
    content: dict[str, Any]  # title, author
    graph_concepts: int  # concepts in the graph when the run started
    # The content's processed date when the run started (ISO, or None): the commit is refused
    # if another run changed it since.
    processed_at_start: str | None
    # A processed content's quotes that support no concept (its review left them open): a
    # run without --force extracts only these.
    open_only: list[str] | None
    quotes: list[dict[str, Any]]  # id, text, section, page; in reading order
    # Parallel results, gathered by reducers.
    batch_results: Annotated[list[dict[str, Any]], operator.add]
    candidates: list[DraftConcept]
    # What the extraction calls said beyond their concepts, for the review: their notes,
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
    # Item by item: the doubt of each proposed item (by key) and the reader's decisions.
    doubts: dict[str, Doubt]
    review: Review


def empty_review() -> Review:
    return {"concepts": {}, "relations": {}, "quotes": {}, "added": [], "log": []}


def empty_proposal() -> Proposal:
    return {
        "concepts": [],
        "attributions": [],
        "relations": [],
        "unattributed_quote_ids": [],
        "notes": [],
    }
