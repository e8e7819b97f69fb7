"""State of the Learning Item Graph.

Plain JSON-safe data, as in the concept workflow: items travel as `LearningItem` dumps
(`model_dump(mode="json")`) and are validated again when written. Lists filled by parallel
branches (`Send`) use `operator.add` reducers.
"""

from __future__ import annotations

import operator
from typing import Annotated, Literal

from pydantic import with_config

# typing_extensions: pydantic (LangGraph Studio's input and output schemas) reads only this
# TypedDict on Python < 3.12.
from typing_extensions import TypedDict

from zettelgraph.workflows.calls import CallFields
from zettelgraph.workflows.records import MIRROR, JSONObject

# The cards a concept (or a passage) can get, each at most once per concept or passage (a
# relation card once per pair).
Kind = Literal["flashcard", "cloze", "mcq", "relation", "chain", "code_completion", "diagram"]


class QuoteView(TypedDict):
    id: str
    text: str
    page: str | None
    content_id: str


class Target(TypedDict):
    """A reviewed concept cards are made for, with its quotes (the closest to it first) and
    the kinds of card it does not have yet; or a passage cards are made from straight away
    (`passage_kind` set: its id is the passage's, `quotes` holds it alone, `title` is its
    content's and `place` where in it the passage is)."""

    id: str
    title: str
    concept: str
    summary_short: str
    content_ids: list[str]
    quotes: list[QuoteView]
    make: list[Kind]
    passage_kind: str  # "" for a concept; "text", "code" or "figure" for a passage
    place: str


class QuestionResult(TypedDict):
    """What the card_question call gave for one concept (`failed`: nothing usable)."""

    concept_id: str
    question: str
    answer: str
    quote_id: str | None  # a real Quote id, resolved from the model's local id
    cloze_words: str
    failed: bool
    wrong_answers: list[str]  # a passage's multiple choice; [] for a concept
    code_blank: str  # what a code passage's completion card hides; "" otherwise


class DroppedItem(TypedDict):
    front: str
    item_type: str
    guard: str
    reason: str
    concept_ids: list[str]


@with_config(MIRROR)
class CardRecord(TypedDict):
    """A card as it travels between the nodes: a `LearningItem` as JSON (`card_record`),
    validated again when written."""

    id: str
    created_at: str  # ISO 8601
    item_type: str  # an ItemType
    front: str
    back: str
    cloze: str
    options: list[str]
    correct: int | None
    explanation: str
    difficulty: str  # a Difficulty
    language: str
    concept_ids: list[str]
    quote_ids: list[str]
    content_ids: list[str]
    status: str  # an ItemStatus
    duplicate_of: str | None
    warnings: list[str]
    provenance: JSONObject  # how it was made: the generation, the calls, a check that dropped it
    schedule: JSONObject  # the FSRS card state, empty until the first study
    due: str | None


class GenerationReport(TypedDict):
    """What a generation did, for the reader and the benchmarks (`report.build_report`)."""

    generation_id: str | None
    targets: int  # the concepts cards were asked for
    proposed: int
    per_type: dict[str, int]
    per_difficulty: dict[str, int]
    dropped: list[DroppedItem]  # every card a check set aside, duplicates included
    checks: dict[str, int]  # check -> cards it dropped
    duplicates: int
    set_aside: int  # flashcards a check dropped, kept in the store as dropped
    duplicate_share_before: float
    duplicate_share_after: float
    skipped: dict[str, int]  # kind -> concepts (or pairs) that have that card already
    skipped_concepts: int
    already_stored: int
    calls: int
    concepts_with_cards: int
    warnings: list[str]


class QuestionPayload(TypedDict):
    """One flashcard branch (`Send`): the concept to write a question for."""

    target: Target


class GenerationInput(TypedDict, total=False):
    concept_ids: list[str]  # the concepts to make cards for (checked by the caller)
    quote_ids: list[str]  # or the passages to make cards from straight away
    generation_id: str  # required: recorded in every item's provenance


class GenerationOutput(TypedDict, total=False):
    report: GenerationReport
    written: list[CardRecord]  # every item written, proposed and duplicates (dropped)
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
    graph_items: list[CardRecord]  # multiple choice and relation cards, before the checks
    items: list[CardRecord]  # every card that passed the checks
    rejected: list[CardRecord]  # flashcards a check dropped, written as dropped
    already_stored: int  # cards made again that are in the store already (never rewritten)
    duplicates: list[CardRecord]  # cards dropped as repeats, with what they repeat
    # Share of new cards with a near twin (new or stored) before the duplicate check, and of
    # the kept ones after it.
    duplicate_share_before: float
    duplicate_share_after: float
