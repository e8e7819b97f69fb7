"""State of the Concept Extraction Graph (docs/design.md "Concept extraction").

Everything is plain JSON-safe data so checkpoints survive across versions and processes. Lists
filled by parallel branches (`Send`) use `operator.add` reducers.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, NotRequired, Required

# typing_extensions: pydantic (LangGraph Studio's input and output schemas) reads only this
# TypedDict on Python < 3.12.
from typing_extensions import TypedDict

from zettelgraph.guards import FindingRecord
from zettelgraph.guards.doubt import Doubt as Doubt  # where the nodes and reports import it
from zettelgraph.workflows.calls import CallFields
from zettelgraph.workflows.records import ContentInfo
from zettelgraph.workflows.review import Decision, LoggedDecision, ReviewStatus

Status = Literal[
    ReviewStatus,
    "skipped",
    "no_quotes",
    "failed",  # every extraction call failed: nothing to review
    "superseded",  # another run committed the content first: nothing written
]


class QuoteItem(TypedDict):
    """One quote of the content, as the run reads it."""

    id: str  # the Quote id
    text: str
    section: str | None
    page: str | None
    # Words the quote turns on (text_analysis.key_words), shown to small models; empty for
    # other models, absent in runs checkpointed before them.
    key_words: NotRequired[list[str]]
    # The document section (parent chunk) it was cut from; None for book notes, absent in
    # runs checkpointed before it.
    parent_id: NotRequired[str | None]
    # Where it is, for a citation (`models.locations.quote_place`); absent in older runs.
    place: NotRequired[str]


class BatchCandidate(TypedDict):
    """A concept one extraction call proposed, before the batches are merged."""

    title: str
    concept: str
    analysis: str
    summary: str
    summary_short: str
    rationale: str
    quote_ids: list[str]  # real Quote ids, of the batch
    synonyms: NotRequired[list[str]]


class BatchResult(TypedDict):
    """What one extraction branch found."""

    index: int  # the batch's place, from 0
    candidates: list[BatchCandidate]
    failed: bool  # the call failed, or every concept it gave cited quotes it was not shown
    notes: NotRequired[str]  # what the call said beyond its concepts
    unattributed: NotRequired[dict[str, str]]  # quote id -> why it gives no concept


class Flaws(TypedDict):
    """What a rewrite of a concept must fix (`nodes_checks.flaws_of`)."""

    wrong_language: list[str]  # the fields not in the graph's language
    copies_quote: bool
    long_title: bool  # the title is a sentence, not a name
    off_topic: NotRequired[bool]  # none of its quotes is about it
    uncovered: NotRequired[bool]  # a placeholder to write from a quote no concept cited


class RepairRequest(Flaws):
    """A concept the checks sent for a rewrite, and why."""

    key: str


class Repair(TypedDict, total=False):
    """One rewrite (`repair_concept`): its fields as the model wrote them, or why it failed.
    A `titles` rewrite has a title alone."""

    key: Required[str]
    error: str  # every try failed: the last error
    title: str
    concept: str
    analysis: str
    summary_short: str


class DuplicateDecision(TypedDict):
    """Whether one candidate repeats an existing concept (`detect_duplicate`)."""

    key: str  # the candidate's
    duplicate_of: str | None  # the existing Concept id it repeats; None: a new idea
    llm: bool  # the model was asked (not when the embeddings found nothing near)
    reason: str
    confidence: NotRequired[float]
    title: NotRequired[str]  # the existing concept's, when a duplicate
    quote_ids: NotRequired[list[str]]  # the quotes it gives the existing concept


class RelationQuery(TypedDict):
    """The searches for one new concept's related existing concepts."""

    key: str  # the concept's
    queries: list[str]


class CritiqueIssue(TypedDict):
    criterion: str
    subject_id: str  # c1, e2 or q3, or empty
    issue: str
    severity: str  # low, medium or high


class CritiqueEntry(TypedDict, total=False):
    """One self-critique (`self_critique.Critique` and whether it passed), or its failure."""

    iteration: Required[int]
    error: str  # the call failed: the proposal went to the review as it was
    passes: bool
    failed_criteria: list[str]
    issues: list[CritiqueIssue]
    overall_passes: bool
    critique_summary: str
    improvement_suggestions: list[str]


class Committed(TypedDict, total=False):
    """What the commit wrote, and then what the vault sync did."""

    concepts: list[str]  # the new Concept ids
    relations: int
    attributions: int  # quotes that now support an existing concept
    touched_existing: list[str]  # existing concepts that gained a relation or a quote
    left_out: list[dict[str, str]]  # what the reader's decisions left out: item, what, why
    open_quotes: int  # quotes no kept concept cites
    edited: list[str]  # concepts the reader rewrote
    notes_written: list[str]  # the concepts whose notes were written new
    notes_updated: list[str]
    # Other concepts' notes an earlier write left unwritten, written by this commit's vault
    # step (`vault.sync.sync_pending`).
    notes_repaired: list[str]
    vault_errors: list[str]


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
    # Other names a reader may search it by (never its title); absent in older runs.
    synonyms: NotRequired[list[str]]


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


class FeedbackEntry(TypedDict, total=False):
    """One feedback round: what the reader asked and what the model made of it."""

    round: Required[int]
    feedback: Required[str]
    error: str  # a call of the round failed: it stopped there
    interpretation: str
    unresolved: str
    # The concepts the round changed, as they were before it (check_revisions puts back a
    # revision that fails the checks).
    before: dict[str, DraftConcept]


class AddedRelation(TypedDict):
    """A relation the reader added in the review (`relate`)."""

    key: str  # a1, a2 ...
    source: str  # a concept key of the run or an existing Concept id
    type: str
    target: str
    explanation: str
    at: str  # when, ISO 8601 UTC


class Review(TypedDict):
    """The reader's item-by-item decisions so far (`decisions.py`): saved with the run at
    each decision, changeable until the run is approved."""

    concepts: dict[str, dict[str, Any]]  # key -> verdict (keep|drop|merge), into, edit, at
    # Relations (r), suggestions (s) and attributions to existing concepts (e): verdict, type.
    relations: dict[str, dict[str, Any]]
    quotes: dict[str, list[str]]  # concept key -> its quote ids as the reader left them
    added: list[AddedRelation]
    log: list[LoggedDecision]  # every decision as made, with the item's doubt


class BatchPayload(TypedDict):
    """One extraction branch (`Send`): a batch of quotes, and what every batch shares."""

    index: int  # the batch's place, from 0
    quotes: list[QuoteItem]  # the batch's quotes
    all_quotes: list[dict[str, str]]  # every quote's id, for the local numbering
    content: ContentInfo
    suggestions: str | None  # the reader's, for the whole run


class DuplicatePayload(TypedDict):
    """One duplicate check (`Send`): a candidate against the graph's concepts."""

    candidate: DraftConcept
    all_quote_ids: list[str]  # every quote of the run, for the local numbering
    graph_has_concepts: bool  # False: nothing to compare with, no call


class RepairPayload(Flaws):
    """One rewrite (`Send`): a concept the checks flagged, its quotes and what to fix."""

    concept: DraftConcept
    quotes: list[str]  # the texts of the quotes it cites
    key_words: list[str]  # of those quotes, for a small model's title
    source: ContentInfo  # a title must not be the book's title or author


class RelationResults(TypedDict):
    """The relations one branch proposed from a new concept."""

    key: str  # the concept's
    relations: list[DraftRelation]


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
    committed: Committed
    warnings: Annotated[list[str], operator.add]


class ExtractionState(ExtractionInput, ExtractionOutput, CallFields, total=False):
    content: ContentInfo
    graph_concepts: int  # concepts in the graph when the run started
    # The content's processed date when the run started (ISO, or None): the commit is refused
    # if another run changed it since.
    processed_at_start: str | None
    # A processed content's quotes that support no concept (its review left them open): a
    # run without --force extracts only these.
    open_only: list[str] | None
    quotes: list[QuoteItem]  # in reading order
    # Parallel results, gathered by reducers.
    batch_results: Annotated[list[BatchResult], operator.add]
    candidates: list[DraftConcept]
    # What the extraction calls said beyond their concepts, for the review: their notes,
    # and why each quote they left out gives no concept (quote id -> reason).
    extraction_notes: list[str]
    unattributed_reasons: dict[str, str]
    # Proposal checks: concepts sent for a rewrite, the rewrites, and every check's action.
    repair_requests: list[RepairRequest]
    repairs: Annotated[list[Repair], operator.add]
    check_log: Annotated[list[FindingRecord], operator.add]
    relation_neighbours: dict[str, list[str]]  # concept key -> nearest other new concept keys
    duplicate_decisions: Annotated[list[DuplicateDecision], operator.add]
    relation_queries: Annotated[list[RelationQuery], operator.add]
    relation_pools: dict[str, list[str]]  # concept key -> existing Concept ids
    relation_results: Annotated[list[RelationResults], operator.add]
    # Phase 1 loop.
    phase_1_iteration: int
    quality_passes: bool
    # Set when the run hit its recursion limit and was sent to the review as it stood.
    stopped_at_limit: bool
    critique_log: Annotated[list[CritiqueEntry], operator.add]
    # Phase 2 loop.
    phase_2_iteration: int
    decision: Decision | None
    human_feedback: str | None
    feedback_log: Annotated[list[FeedbackEntry], operator.add]
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
