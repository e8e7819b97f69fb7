"""Pure data: the domain as the reader sees it. No I/O here.

Ids are deterministic (UUID5 over normalised natural keys) so that writing the same thing
twice, or replaying a write after a crash, never creates a duplicate.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field

from zettelgraph.text.normalize import normalize_name, normalize_text

# Fixed namespace so ids are stable across machines and versions.
NAMESPACE = uuid.UUID("6f1c3c9e-2b7a-4f0e-9a57-2e4f3d0c9b11")


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def stable_id(kind: str, *parts: str) -> str:
    return str(uuid.uuid5(NAMESPACE, "\x1f".join((kind, *parts))))


def content_id(title: str, author: str | None) -> str:
    return stable_id("content", normalize_name(title), normalize_name(author or ""))


def person_id(name: str) -> str:
    return stable_id("person", normalize_name(name))


def quote_id(content: str, text: str) -> str:
    return stable_id("quote", content, normalize_text(text))


def section_id(content: str, position: int, text: str) -> str:
    return stable_id("section", content, str(position), normalize_text(text))


def utcnow() -> datetime:
    return datetime.now(UTC)


class NodeLabel(StrEnum):
    CONTENT = "Content"
    PERSON = "Person"
    QUOTE = "Quote"
    CONCEPT = "Concept"
    SECTION = "Section"
    ANSWER = "Answer"
    LEARNING_ITEM = "LearningItem"
    REVIEW_LOG = "ReviewLog"
    ENTITY = "Entity"
    REMOVAL = "Removal"


class Node(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    created_at: datetime = Field(default_factory=utcnow)


class Content(Node):
    """A source a person read: a book, article, PDF, slide deck or transcript."""

    title: str = Field(min_length=1, max_length=500)
    kind: str = "book"
    source_path: str | None = None
    content_hash: str | None = None
    summary: str = ""
    summary_short: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    processed_date: datetime | None = None


class Person(Node):
    """An author, matched by `normalize_name`."""

    name: str = Field(min_length=1, max_length=300)
    summary: str = ""
    summary_short: str = ""
    occupation: str = ""


class Quote(Node):
    """A verbatim passage of a Content with its location."""

    content_id: str
    text: str = Field(min_length=1)
    section: str | None = None
    page: str | None = None
    position: int = Field(ge=0, description="Order of the passage within its Content.")
    location: dict[str, Any] = Field(default_factory=dict)
    # The Section (parent chunk) a document passage was cut from; None for book-note quotes.
    parent_id: str | None = None


class Section(Node):
    """A parent chunk of a document (a section, slide group, exchange or module).

    Kept whole so an answer can show a passage in its context; only its passages (Quotes
    with `parent_id` pointing here) are embedded, searched and cited.
    """

    content_id: str
    title: str = Field(default="", max_length=1000)
    text: str = Field(min_length=1)
    position: int = Field(ge=0, description="Order of the section within its Content.")
    location: dict[str, Any] = Field(default_factory=dict)


# Who wrote a concept's text: the model that proposed it, or the reader who edited it.
TextAuthor = Literal["model", "reader"]


class ConceptRevision(BaseModel):
    """An earlier text of a concept, kept when the reader replaced it: the model's proposal
    when the reader edited it in the review, or the reader's own text edited again later."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    title: str
    concept: str
    analysis: str = ""
    summary: str = ""
    summary_short: str = ""
    by: TextAuthor
    model: str | None = None  # the model's provider:model string, when `by` is "model"
    replaced_at: datetime
    # Where the reader replaced it: in the run's review, or on the committed concept.
    replaced_in: Literal["review", "graph"]


class Concept(Node):
    """One atomic idea in the configured concept language."""

    title: str = Field(min_length=1, max_length=300)
    concept: str
    analysis: str = ""
    summary: str = ""
    summary_short: str = ""
    language: str = "es"
    vault_sync_pending: bool = False
    # Where it came from: run (thread id), LLM calls, source quotes, the human decision.
    provenance: dict[str, Any] = Field(default_factory=dict)
    # Its earlier texts, oldest first; empty while the text is the model's as proposed.
    revisions: list[ConceptRevision] = Field(default_factory=list)

    @property
    def text_by(self) -> TextAuthor:
        """Who wrote the text it has now: only a reader edits a concept once proposed."""
        return "reader" if self.revisions else "model"


# A relation named by what identifies it: (source id, type, target id), as `Relation.key`.
RelationKey = tuple[str, str, str]


class Relation(BaseModel):
    """A typed, directed edge between two nodes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source_id: str
    target_id: str
    type: str
    properties: dict[str, Any] = Field(default_factory=dict)
    created_at: datetime = Field(default_factory=utcnow)

    @property
    def key(self) -> RelationKey:
        return (self.source_id, self.type, self.target_id)


class Answer(Node):
    """A question asked of the graph, the answer given, and the passages it cites.

    `citations` holds one entry per [n] marker the answer may use: n, quote_id, score and the
    retrieval methods that found the passage; each cited passage also gets a CITES relation.
    """

    question: str = Field(min_length=1, max_length=2000)
    answer: str
    answerable: bool
    language: str = ""
    model: str = ""
    recipe: str = ""
    citations: list[dict[str, Any]] = Field(default_factory=list)
    # A conversation: the turns of one chat share its id (answers stored before chats have
    # none). A follow-up is searched as `standalone_question`, its rewrite without the chat.
    chat_id: str | None = None
    turn: int = Field(default=1, ge=1)
    standalone_question: str = ""
    # The PassageFilter the passages were searched with (`PassageFilter.model_dump`).
    passage_filter: dict[str, Any] = Field(default_factory=dict)


class ItemType(StrEnum):
    """What a learning item asks: recall an idea, fill a gap in the reader's own quote, pick
    the one right option, or say how two ideas relate."""

    FLASHCARD = "flashcard"
    CLOZE = "cloze"
    MCQ = "mcq"
    RELATION = "relation"


class ItemStatus(StrEnum):
    """Proposed items wait for the reader; only approved ones are studied and exported."""

    PROPOSED = "proposed"
    APPROVED = "approved"
    DROPPED = "dropped"


class Difficulty(StrEnum):
    """From the graph, as seed 004 asks: one concept and its quote, two linked concepts, or a
    chain of two relations."""

    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


# Easy before hard: the order cards are listed and new cards met in.
DIFFICULTY_RANK: dict[str, int] = {Difficulty.EASY: 0, Difficulty.MEDIUM: 1, Difficulty.HARD: 2}


class LearningItem(Node):
    """A card made from reviewed concepts, citing the concepts and quotes it tests.

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
    concept_ids: list[str] = Field(min_length=1, max_length=3)
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


class Entity(Node):
    """A person, place, work, claim... of a template pack's type, found in the reader's
    passages. One per (type, name): `entity_id` folds case, accents and spacing."""

    name: str = Field(min_length=1, max_length=300)
    entity_type: str = Field(pattern=r"^[A-Z][A-Za-z0-9]{0,63}$")
    description: str = Field(default="", max_length=2000)
    # Validated against the entity type's properties in the pack (packs/schema.py).
    properties: dict[str, Any] = Field(default_factory=dict)
    pack: str = ""
    # Where it came from: run, passages, LLM call, pack and its version, the human decision.
    provenance: dict[str, Any] = Field(default_factory=dict)


RemovalKind = Literal["concept", "relation", "content"]


class Removal(Node):
    """A correction that took part of the graph away: what went, who removed it and when.

    What it removed is gone from the graph; this record stays (written in the same write), so
    the reader can still see what a deletion took (`zettelgraph removals`), the provenance
    export can say the reader invalidated it, and `vault sync` knows which notes to take out
    of the vault. `created_at` is when it was removed.
    """

    kind: RemovalKind
    # What the reader removed, as they knew it: a concept's or content's title, or
    # "A -[TYPE]-> B" for a relation.
    title: str = Field(min_length=1, max_length=1000)
    # The removed concept's or content's id; for a relation, its source concept's.
    subject_id: str
    by: str = Field(min_length=1, description="The reader (ZETTELGRAPH_READER).")
    # Everything that went with it: concepts (id -> title), concept relations (both
    # directions), cards, pack entities (id -> name), and how many nodes per label.
    concepts: dict[str, str] = Field(default_factory=dict)
    relations: list[RelationKey] = Field(default_factory=list)
    items: list[str] = Field(default_factory=list)
    entities: dict[str, str] = Field(default_factory=dict)
    counts: dict[str, int] = Field(default_factory=dict)
    # What a reader may want back: a removed concept's text, a relation's explanation.
    details: dict[str, Any] = Field(default_factory=dict)


def removal_id(kind: str, subject_id: str, at: datetime) -> str:
    return stable_id("removal", kind, subject_id, at.isoformat())


def entity_id(entity_type: str, name: str) -> str:
    return stable_id("entity", entity_type, normalize_name(name))


def learning_item_id(item_type: str, concept_ids: list[str], front: str) -> str:
    """The same item asked of the same concepts twice is one item (a re-run never repeats)."""
    return stable_id("item", item_type, *sorted(concept_ids), normalize_name(front))


def review_log_id(item_id: str, reviewed_at: datetime) -> str:
    return stable_id("review", item_id, reviewed_at.isoformat())


AnyNode = (
    Content
    | Person
    | Quote
    | Concept
    | Section
    | Answer
    | LearningItem
    | ReviewLog
    | Entity
    | Removal
)


NODE_TYPES: dict[NodeLabel, type[AnyNode]] = {
    NodeLabel.CONTENT: Content,
    NodeLabel.PERSON: Person,
    NodeLabel.QUOTE: Quote,
    NodeLabel.CONCEPT: Concept,
    NodeLabel.SECTION: Section,
    NodeLabel.ANSWER: Answer,
    NodeLabel.LEARNING_ITEM: LearningItem,
    NodeLabel.REVIEW_LOG: ReviewLog,
    NodeLabel.ENTITY: Entity,
    NodeLabel.REMOVAL: Removal,
}


def label_of(node: AnyNode) -> NodeLabel:
    return NodeLabel(type(node).__name__)


def embedding_text(node: Quote | Concept | Entity) -> str:
    """The text whose embedding represents a node in vector search."""
    if isinstance(node, Quote):
        return node.text
    if isinstance(node, Entity):
        return f"{node.name}. {node.description}" if node.description else node.name
    return f"{node.title}. {node.summary_short or node.concept}"


class ChangeSet(BaseModel):
    """Everything one logical write puts in (or takes out of) the store, applied in one
    transaction.

    Writing is an upsert on ids and deleting what is already gone does nothing, so applying
    the same ChangeSet twice converges to the same graph. Deletions come first: a change set
    may delete a concept and rewrite the neighbours that pointed at it, but not write a node
    it deletes.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    contents: list[Content] = Field(default_factory=list)
    persons: list[Person] = Field(default_factory=list)
    quotes: list[Quote] = Field(default_factory=list)
    concepts: list[Concept] = Field(default_factory=list)
    sections: list[Section] = Field(default_factory=list)
    answers: list[Answer] = Field(default_factory=list)
    learning_items: list[LearningItem] = Field(default_factory=list)
    review_logs: list[ReviewLog] = Field(default_factory=list)
    entities: list[Entity] = Field(default_factory=list)
    removals: list[Removal] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)
    # node id -> embedding; the vector must come from the store's registered embedder.
    vectors: dict[str, NDArray[np.float32]] = Field(default_factory=dict)
    # Content id -> the processed dates the writer accepts (None: unprocessed), typically the
    # one it read and its own (a replay after a crash). The store checks them inside the
    # write, atomically, and refuses the whole change set (ConflictError) otherwise: two runs
    # of one book cannot both commit.
    expect_processed: dict[str, list[datetime | None]] = Field(default_factory=dict)
    # Nodes to delete, with every relation touching them, their vectors and full-text rows.
    delete_ids: list[str] = Field(default_factory=list)
    # Relations to delete; one between two Concepts (or two Entities) of a type with a reverse
    # or a symmetric twin goes with its twin, as it was written with it.
    delete_relations: list[RelationKey] = Field(default_factory=list)

    def nodes(self) -> list[AnyNode]:
        # Sections before the quotes that point at them.
        return [
            *self.contents,
            *self.persons,
            *self.sections,
            *self.quotes,
            *self.concepts,
            *self.answers,
            *self.learning_items,
            *self.review_logs,
            *self.entities,
            *self.removals,
        ]


PlaceUnit = Literal["page", "slide", "turn", "time"]


class PlaceRange(BaseModel):
    """A stretch of a source: pages, slides or turns (numbers), or a time span (seconds).

    Both ends are inclusive; None leaves that side open. A passage is inside when its own
    span overlaps the range."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    unit: PlaceUnit
    start: float | None = None
    end: float | None = None


class PassageFilter(BaseModel):
    """Which passages a search may return. Every criterion given must hold; within one,
    any of its values does. An empty filter admits every passage.

    `authors` are names, matched like `normalize_name` (case, accents, spacing); `kinds`
    are Content kinds (book, pdf, pptx, transcript...), matched case-insensitively."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    content_ids: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    places: tuple[PlaceRange, ...] = ()

    @property
    def active(self) -> bool:
        return bool(self.content_ids or self.kinds or self.authors or self.places)

    @property
    def by_content(self) -> bool:
        """Whether it narrows by Content (id, kind or author), not only by place."""
        return bool(self.content_ids or self.kinds or self.authors)


class SearchHit(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    label: NodeLabel
    score: float


class SearchResult(BaseModel):
    """One passage found by search, with everything its citation shows.

    `n` is its 1-based place in the results (the [n] an answer uses); `methods` says which
    searches found it (fulltext, vector, graph) and `method_scores` their raw scores.
    """

    model_config = ConfigDict(frozen=True)

    n: int = Field(ge=1)
    passage_id: str
    text: str
    score: float
    methods: list[str]
    method_scores: dict[str, float] = Field(default_factory=dict)
    content_id: str
    content_title: str
    content_kind: str = "book"
    author: str | None = None
    location: dict[str, Any] = Field(default_factory=dict)
    location_label: str = ""
    section_id: str | None = None
    section_title: str | None = None
    # The parent section's text: the passage in its context.
    context: str | None = None
    # Concepts this passage supports: [{"id": ..., "title": ...}].
    concepts: list[dict[str, str]] = Field(default_factory=list)

    def citation(self) -> dict[str, Any]:
        """What an answer stores per cited passage (the passage text stays in the graph)."""
        return {
            "n": self.n,
            "quote_id": self.passage_id,
            "content_id": self.content_id,
            "content_title": self.content_title,
            "author": self.author,
            "location": self.location_label,
            "score": round(self.score, 6),
            "methods": self.methods,
        }
