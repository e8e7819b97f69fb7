"""State of the Learning Item Graph.

Plain JSON-safe data, as in the concept workflow: items travel as `LearningItem` dumps
(`model_dump(mode="json")`) and are validated again when written. Lists filled by parallel
branches (`Send`) use `operator.add` reducers.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal

# typing_extensions: pydantic (LangGraph Studio's input and output schemas) reads only this
# TypedDict on Python < 3.12.
from typing_extensions import TypedDict

from zettelgraph.workflows.calls import CallFields

# The cards a concept can get, each at most once per concept (a relation card once per pair).
Kind = Literal["flashcard", "cloze", "mcq", "relation", "chain"]
KINDS: tuple[Kind, ...] = ("flashcard", "cloze", "mcq", "relation", "chain")


class QuoteView(TypedDict):
    id: str
    text: str
    page: str | None
    content_id: str


class Target(TypedDict):
    """A reviewed concept cards are made for, with its quotes (the closest to it first) and
    the kinds of card it does not have yet."""

    id: str
    title: str
    concept: str
    summary_short: str
    content_ids: list[str]
    quotes: list[QuoteView]
    make: list[Kind]


class QuestionResult(TypedDict):
    """What the card_question call gave for one concept (`failed`: nothing usable)."""

    concept_id: str
    question: str
    answer: str
    quote_id: str | None  # a real Quote id, resolved from the model's local id
    cloze_words: str
    failed: bool


class DroppedItem(TypedDict):
    front: str
    item_type: str
    guard: str
    reason: str
    concept_ids: list[str]


class QuestionPayload(TypedDict):
    """One flashcard branch (`Send`): the concept to write a question for."""

    target: Target


class GenerationInput(TypedDict, total=False):
    concept_ids: list[str]  # required: the concepts to make cards for (checked by the caller)
    generation_id: str  # required: recorded in every item's provenance


class GenerationOutput(TypedDict, total=False):
    report: dict[str, Any]
    written: list[dict[str, Any]]  # every item written, proposed and duplicates (dropped)
    dropped: Annotated[list[DroppedItem], operator.add]
    warnings: Annotated[list[str], operator.add]


class GenerationState(GenerationInput, GenerationOutput, CallFields, total=False):
    targets: list[Target]
    # Concept pairs (sorted ids) that already have a relation card.
    covered_pairs: list[list[str]]
    # The concepts (A, B, C) of the chain cards in the store: C -> B -> A is the same chain.
    covered_chains: list[list[str]]
    # Kind -> concepts (or pairs) skipped because they already have that card.
    skipped: dict[str, int]
    skipped_concepts: int
    questions: Annotated[list[QuestionResult], operator.add]
    graph_items: list[dict[str, Any]]  # multiple choice and relation cards, before the checks
    items: list[dict[str, Any]]  # every card that passed the checks
    rejected: list[dict[str, Any]]  # flashcards a check dropped, written as dropped
    already_stored: int  # cards made again that are in the store already (never rewritten)
    duplicates: list[dict[str, Any]]  # cards dropped as repeats: id, duplicate_of, similarity
    # Share of new cards with a near twin (new or stored) before the duplicate check, and of
    # the kept ones after it.
    duplicate_share_before: float
    duplicate_share_after: float
