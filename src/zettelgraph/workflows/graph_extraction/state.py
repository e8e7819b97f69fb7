"""State of the Graph Extraction workflow (docs/design.md "Graph extraction"): entities and
relationships of a template pack's types, proposed from a content's passages, reviewed, then
committed at once.

Plain JSON-safe data, as in the concept workflow, so checkpoints survive across versions and
processes. Lists filled by parallel branches (`Send`) use `operator.add` reducers; a feedback
round extracts again, so batch results carry the round they belong to.
"""

from __future__ import annotations

import operator
from typing import Annotated, Literal, NotRequired

# typing_extensions: pydantic (LangGraph Studio's input and output schemas) reads only this
# TypedDict on Python < 3.12.
from typing_extensions import TypedDict

from zettelgraph.workflows.calls import CallFields
from zettelgraph.workflows.records import ContentInfo
from zettelgraph.workflows.review import Decision, LoggedDecision, ReviewStatus

Status = Literal[
    ReviewStatus,
    "no_passages",
    "failed",  # every extraction call failed: nothing to review
]
# A property's value, of the kind its pack gives it (properties.coerce): a date is ISO text.
PropertyValue = str | int | float | bool | list[str]


class Passage(TypedDict):
    """One passage (a Quote) of the content, as the run reads it."""

    id: str  # the Quote id
    text: str
    page: str | None


class ProposedEntity(TypedDict):
    """An entity one extraction call proposed (`extract_graph.ExtractEntity`), not yet
    checked against the packs."""

    name: str
    type: str
    description: str
    properties: dict[str, object]  # as the model gave them: properties.checked_properties


class ProposedRelationship(TypedDict):
    """A relationship one extraction call proposed (`extract_graph.ExtractRelationship`):
    each end by a name extracted in the same answer or by a known entity's local id."""

    source_name: str | None
    source_id: str | None  # e1, e2 ...
    target_name: str | None
    target_id: str | None
    relationship_type: str
    description: str
    # How sure the model was that the passages state it (0..1); None when it did not say.
    confidence: NotRequired[float | None]


class KnownEntity(TypedDict):
    """An existing entity shown to an extraction call."""

    id: str  # the stored Entity id
    name: str
    type: str
    description: str


class BatchResult(TypedDict):
    """What one extraction call proposed, in one round."""

    round: int
    index: int  # the batch's place in the round, from 0
    call: str  # the call's id (nodes_extract.call_id)
    passage_ids: list[str]
    existing: dict[str, KnownEntity]  # e1, e2 ... -> the existing entity shown as it
    entities: list[ProposedEntity]
    relationships: list[ProposedRelationship]
    rejected: list[str]  # tool calls that did not validate, one line each
    failed: bool  # the call failed: its passages were not read


class FeedbackEntry(TypedDict):
    round: int
    feedback: str


class Verdict(TypedDict):
    """The reader's decision on one entity or relationship."""

    verdict: str  # keep or drop
    at: str  # when, ISO 8601 UTC
    type: NotRequired[str]  # a relationship the reader gave another type


class Review(TypedDict):
    """The reader's decisions so far (`decisions.py`), by what each item is."""

    entities: dict[str, Verdict]  # entity id -> its decision
    relationships: dict[str, Verdict]  # decisions.relationship_id -> its decision
    log: list[LoggedDecision]  # every decision as made


class Committed(TypedDict, total=False):
    """What the commit wrote, and then what the vault sync did."""

    entities_new: list[str]
    entities_updated: list[str]  # stored entities this run added passages or properties to
    relationships: int
    relationships_dropped_at_commit: int  # their ends were no longer there to write
    left_out: list[str]  # what the reader's decisions left out, one line each
    notes_written: int
    notes_updated: int
    notes_repaired: list[str]  # concept notes an earlier write had left unwritten
    vault_errors: list[str]


class DraftEntity(TypedDict):
    id: str  # the Entity id: entity_id(type, name) for a new one, the stored id otherwise
    name: str
    type: str
    description: str
    properties: dict[str, PropertyValue]
    existing: bool  # already in the graph (matched by name and type, or by embedding)
    matched_by: str  # "new", "name" or "embedding" (and the score)
    names: list[str]  # every name it was extracted under
    passage_ids: list[str]
    calls: list[str]  # the LLM calls that extracted it


class DraftRelationship(TypedDict):
    source: str  # Entity id
    target: str
    type: str
    description: str
    passage_ids: list[str]
    calls: list[str]
    # The surest of the calls that stated it (0..1); None when none said (or a run
    # checkpointed before relationships had one).
    confidence: NotRequired[float | None]


class Drop(TypedDict):
    """Something the model proposed that is not kept, and why, for the reader."""

    kind: str  # "entity", "property", "relationship" or "call"
    reason: str  # unknown_entity_type, unresolved_name, unknown_id, wrong_endpoint_types ...
    subject: str  # what it was, named
    message: str  # one line saying what and why
    call: str


class Proposal(TypedDict):
    entities: list[DraftEntity]  # new ones and existing ones this run mentions
    relationships: list[DraftRelationship]
    # Existing entities relationships point at but that no call extracted: id -> name, type.
    referenced: dict[str, dict[str, str]]
    dropped: list[Drop]
    # Relationships the graph already holds: not written again, not a fault.
    already_stored: list[str]


class BatchPayload(TypedDict):
    """One extraction branch (`Send`): a batch of passages in one round, with the reader's
    note when a feedback round asks again."""

    index: int  # the batch's place in the round, from 0
    round: int
    passages: list[Passage]
    content: ContentInfo
    packs: list[str] | None
    note: str | None


class GraphInput(TypedDict, total=False):
    content_id: str  # required
    run_id: str  # required: the thread id
    packs: list[str] | None  # the template packs to extract with; None: the active ones
    suggestions: str | None


class GraphOutput(TypedDict, total=False):
    content_id: str
    status: Status
    proposal: Proposal
    committed: Committed
    warnings: Annotated[list[str], operator.add]


class GraphState(GraphInput, GraphOutput, CallFields, total=False):
    content: ContentInfo
    # The packs the run uses, with their versions, fixed when it starts: [{name, version}].
    pack_versions: list[dict[str, str]]
    passages: list[Passage]  # in reading order
    extraction_round: int  # 0, then one more per feedback round
    batch_results: Annotated[list[BatchResult], operator.add]
    # Phase A's output, read by phase B: the run's entities and the names they answer to.
    entities: list[DraftEntity]
    entity_drops: list[Drop]
    # Every call of a feedback round failed: the last proposal goes back to the reader.
    round_failed: bool
    review_rounds: int
    decision: Decision | None
    human_feedback: str | None
    feedback_log: Annotated[list[FeedbackEntry], operator.add]
    approved_at: str | None
    # The reader's decisions on single entities and relationships (`decisions.py`).
    review: Review


def empty_proposal() -> Proposal:
    return {
        "entities": [],
        "relationships": [],
        "referenced": {},
        "dropped": [],
        "already_stored": [],
    }
