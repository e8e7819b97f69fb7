"""What the reader studies: learning items (cards), what the study rules read of them, and
the ratings of each study session."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import Field, model_validator

from zettelgraph.models.base import Node, stable_id
from zettelgraph.text.normalize import normalize_name


class ItemType(StrEnum):
    """What a learning item asks: recall an idea, fill a gap in the reader's own quote, pick
    the one right option, say how two ideas relate, complete a line of code the reader read,
    or say what a figure shows."""

    FLASHCARD = "flashcard"
    CLOZE = "cloze"
    MCQ = "mcq"
    RELATION = "relation"
    CODE_COMPLETION = "code_completion"
    DIAGRAM = "diagram"


class ItemStatus(StrEnum):
    """Proposed items wait for the reader; only approved ones are studied and exported."""

    PROPOSED = "proposed"
    APPROVED = "approved"
    DROPPED = "dropped"


class Difficulty(StrEnum):
    """How much of the graph a card asks the reader to hold at once: one concept and its quote,
    two linked concepts, or a chain of two relations."""

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


# Easy before hard: the order cards are listed and new cards met in.
DIFFICULTY_RANK: dict[str, int] = {Difficulty.EASY: 0, Difficulty.MEDIUM: 1, Difficulty.HARD: 2}


class LearningItem(Node):
    """A card made from reviewed concepts, or straight from a content's passages, citing the
    concepts it tests and the quotes it rests on (a passage card tests no concept: it cites
    its passage, and `subject_ids` are its quotes).

    `front` is what the learner sees and `back` the answer: for a cloze, `front` is the quote
    with the deleted words shown as [...] and `cloze` the same text in Anki's
    `{{c1::words}}` syntax; for a multiple-choice item, `options` holds every option in the
    order shown and `correct` the index of the one right answer. `schedule` is the FSRS card
    state (`fsrs.Card.to_dict()`), empty until the first study; `due` copies its due date so
    lists can sort without parsing it.
    """

    item_type: ItemType
    front: str = Field(min_length=1, max_length=2000)
    back: str = Field(min_length=1, max_length=2000)
    cloze: str = Field(default="", max_length=2000)
    options: list[str] = Field(default_factory=list, max_length=6)
    correct: int | None = Field(default=None, ge=0, le=5)
    explanation: str = Field(default="", max_length=2000)
    difficulty: Difficulty = Difficulty.EASY
    language: str = "es"
    concept_ids: list[str] = Field(default_factory=list, max_length=3)
    quote_ids: list[str] = Field(default_factory=list, max_length=6)
    content_ids: list[str] = Field(default_factory=list, max_length=6)
    status: ItemStatus = ItemStatus.PROPOSED
    # The item this one repeats, when the duplicate check kept the other.
    duplicate_of: str | None = None
    # What the checks changed or noticed, for the reviewer.
    warnings: list[str] = Field(default_factory=list)
    # How it was made: generator, model, LLM calls, the run id; and who approved or edited it.
    provenance: dict[str, Any] = Field(default_factory=dict)
    schedule: dict[str, Any] = Field(default_factory=dict)
    due: datetime | None = None

    @model_validator(mode="after")
    def _tests_or_cites(self) -> LearningItem:
        if not self.concept_ids and not self.quote_ids:
            raise ValueError(
                "a card must test a concept (concept_ids) or cite a passage (quote_ids)"
            )
        return self

    @property
    def subject_ids(self) -> list[str]:
        """What the card is about: its concepts, or the passages of a card made from them."""
        return self.concept_ids or self.quote_ids


@dataclass(frozen=True)
class CardState:
    """What the study rules read of a card, without its text: a store reads this for every
    card (`GraphStore.card_states`) where parsing whole cards cost ~25 ms per 600 on every
    study page. `schedule` holds only the FSRS state ({} until the first study), so the
    rules read it as they read a LearningItem's."""

    id: str
    item_type: ItemType
    difficulty: Difficulty
    status: ItemStatus
    concept_ids: list[str]
    content_ids: list[str]
    created_at: datetime
    schedule: dict[str, Any]
    due: datetime | None
    # What the card is about, as LearningItem.subject_ids: its concepts, else its passages.
    subject_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class StudyScope:
    """Which approved cards a study read takes: those citing a book (any of their
    `content_ids`), testing a concept, of a kind; None means any."""

    content_id: str | None = None
    concept_id: str | None = None
    item_type: ItemType | None = None


# CardCounts' counts, in the order the stores' queries return them (`CardCounts.counted`).
_COUNTED = ("approved", "new", "learning", "review", "due_now", "due_today", "proposed")


@dataclass
class CardCounts:
    """Cards of one book (their first content) by status and study state, counted by the
    store (`GraphStore.card_counts`): what the study stats and a queue's counts show."""

    approved: int = 0
    new: int = 0  # approved, never studied
    learning: int = 0  # approved, studied, FSRS learning or relearning
    review: int = 0  # approved, studied, FSRS review
    due_now: int = 0
    due_today: int = 0
    proposed: int = 0
    next_due: datetime | None = None  # the first studied card due after now

    @classmethod
    def counted(cls, counts: Sequence[int], next_due: datetime | None) -> CardCounts:
        """The counts of one row of a store's query, in field order (approved, new,
        learning, review, due now, due today, proposed), and its first due time."""
        return cls(**dict(zip(_COUNTED, counts, strict=True)), next_due=next_due)

    def add(self, other: CardCounts) -> None:
        """Add `other`'s counts to these (the earlier `next_due` of the two is kept)."""
        for name in _COUNTED:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        dues = [due for due in (self.next_due, other.next_due) if due is not None]
        self.next_due = min(dues) if dues else None


@dataclass
class ReviewCounts:
    """Ratings of one book's approved cards (by their first content), or of every card not
    approved, counted by the store (`GraphStore.review_counts`)."""

    today: int = 0
    introduced: int = 0  # of today's, those of cards seen for the first time
    recall_checks: int = 0  # ratings of cards in FSRS review state
    recalled: int = 0  # of those, rated above "again"


class ReviewLog(Node):
    """One rating of one item in a study session; kept so the scheduler can be re-fitted."""

    item_id: str
    rating: int = Field(ge=1, le=4, description="1 Again, 2 Hard, 3 Good, 4 Easy (FSRS).")
    reviewed_at: datetime
    duration_ms: int | None = Field(default=None, ge=0)
    # The FSRS state before the rating (None: a new card, first seen), so retention can be
    # measured on cards already learned; and the due date the rating gave.
    state_before: int | None = Field(default=None, ge=1, le=3)
    due: datetime | None = None


def learning_item_id(item_type: str, subject_ids: list[str], front: str) -> str:
    """The same item asked of the same concepts (or, made from passages, the same passages)
    twice is one item (a re-run never repeats)."""
    return stable_id("item", item_type, *sorted(subject_ids), normalize_name(front))


def review_log_id(item_id: str, reviewed_at: datetime) -> str:
    return stable_id("review", item_id, reviewed_at.isoformat())
