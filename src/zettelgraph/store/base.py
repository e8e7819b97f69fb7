"""The one interface every graph store implements, and its errors.

Every backend passes the same contract suite (`tests/store/`). Writes go through `apply`,
which takes a whole `ChangeSet` and commits it atomically (or, where the database cannot
roll back, so that a replay converges to the same graph).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from zettelgraph.models import (
    Answer,
    AnyNode,
    CardCounts,
    CardState,
    ChangeSet,
    Concept,
    Content,
    Difficulty,
    Entity,
    ItemStatus,
    ItemType,
    LearningItem,
    NodeLabel,
    PassageFilter,
    Person,
    Proposition,
    Quote,
    Relation,
    Removal,
    ReviewCounts,
    ReviewLog,
    SearchHit,
    Section,
    StudyScope,
)

T = TypeVar("T")
NodeT = TypeVar(
    "NodeT",
    Content,
    Person,
    Quote,
    Concept,
    Proposition,
    Section,
    Answer,
    LearningItem,
    ReviewLog,
    Entity,
    Removal,
)


class StoreError(Exception):
    """A store problem the user can act on; the message says what to do."""


class EmbedderMismatchError(StoreError):
    """The store was embedded with another model than the one configured."""


class ConflictError(StoreError):
    """A change set's expectation (ChangeSet.expect_processed) no longer holds: nothing written."""


def check_expectations(changes: ChangeSet, get_content: Callable[[str], Content | None]) -> None:
    """Raise ConflictError unless every content's processed date is what the writer read.
    Stores call it where no other writer can interleave (inside their write lock)."""
    for content_id, accepted in changes.expect_processed.items():
        content = get_content(content_id)
        if content is None:
            raise ConflictError(f"content {content_id} no longer exists; nothing was written")
        if content.processed_date not in accepted:
            when = f"{content.processed_date:%Y-%m-%d %H:%M}" if content.processed_date else "-"
            raise ConflictError(
                f"'{content.title}' was committed by another run since this one started "
                f"(processed {when}); nothing was written"
            )


class IntegrityError(StoreError):
    """A write refers to something that does not exist or breaks a rule; nothing was written."""


@dataclass(frozen=True)
class EmbeddingInfo:
    model: str
    dim: int


# Which relations of a node `GraphStore.relations` reads: those leaving it ("out"), those
# coming in ("in") or both; `relation_counts` counts one side of each relation.
DIRECTIONS = ("out", "in", "both")
COUNTED_DIRECTIONS = ("out", "in")


def check_direction(direction: str, allowed: Sequence[str] = DIRECTIONS) -> None:
    """Refuse a direction a read does not take (ValueError naming the ones it does), the
    same in every backend."""
    if direction not in allowed:
        names = [f"'{name}'" for name in allowed]
        raise ValueError(f"direction must be {', '.join(names[:-1])} or {names[-1]}")


# How far `passages_around` walks each way: a reading view, not a way to read a whole book.
MAX_PASSAGES_AROUND = 20


def check_around(before: int, after: int) -> None:
    """Refuse a walk `passages_around` does not take, the same in every backend."""
    for name, steps in (("before", before), ("after", after)):
        if not 0 <= steps <= MAX_PASSAGES_AROUND:
            raise ValueError(
                f"{name} must be between 0 and {MAX_PASSAGES_AROUND} passages, not {steps}"
            )


@runtime_checkable
class GraphStore(Protocol):
    """A graph of Contents, Persons, Quotes, Concepts, Sections, Answers, LearningItems,
    ReviewLogs, Entities, and the Removals that record what a reader deleted.

    Quotes and Concepts also have vectors and full-text search; Sections (a document's parent
    chunks), Answers (questions asked of the graph), LearningItems (cards) and ReviewLogs (their
    study history) are read by id, parent or time only; whole labels page through `nodes`.
    """

    url: str

    def close(self) -> None: ...

    # --- embedder registration -------------------------------------------------------
    def embedding_info(self) -> EmbeddingInfo | None:
        """The embedder the stored vectors came from, or None for an empty store."""

    def ensure_embedder(self, model: str, dim: int) -> None:
        """Record the embedder on first use; raise EmbedderMismatchError on a different one."""

    def replace_vectors(
        self, model: str, dim: int, vectors: Mapping[str, NDArray[np.float32]]
    ) -> None:
        """Swap every stored vector and the recorded embedder in one transaction."""

    # --- writes ------------------------------------------------------------------------
    def apply(self, changes: ChangeSet) -> None:
        """Delete the nodes (with their relations, vectors and full-text rows) and relations
        (with their twins) it names, then upsert every node, relation (with automatic
        reverses) and vector, in one write."""

    def record_rating(self, shown: LearningItem, rated: LearningItem, log: ReviewLog) -> bool:
        """Write a card's new study state (`rated`) and its rating's ReviewLog in one write,
        only if the stored card is still as the rating saw it: approved and due at
        `shown.due` (None: never studied). The check and the write are one step no other
        process or machine can come between (a compare-and-set), so a shown card is rated
        once whatever the concurrency. False, with nothing written, when another rating (or
        a decision) got there first."""

    def swap_claim(self, key: str, expected: str | None, value: str | None) -> str | None:
        """Set the claim `key` to `value` (None: remove it) if it holds `expected` now (None:
        no claim), in one atomic step every process using the store sees, whatever machine
        it runs on; returns what `key` holds after the call. A run start claims its content
        here (`services/run_claims.py`)."""

    # --- reads -------------------------------------------------------------------------
    def get_content(self, content_id: str) -> Content | None: ...

    def list_contents(self) -> list[Content]: ...

    def get_person(self, person_id: str) -> Person | None: ...

    def find_person(self, name: str) -> Person | None:
        """The person whose name matches case-, accent- and spacing-insensitively."""

    def author_of(self, content_id: str) -> Person | None: ...

    def get_concept(self, concept_id: str) -> Concept | None: ...

    def list_concepts(self) -> list[Concept]: ...

    def get_concepts(self, concept_ids: Sequence[str]) -> list[Concept]:
        """The known Concepts among `concept_ids`, once each, in the order asked."""

    def nodes(self, label: NodeLabel, *, after: str = "", limit: int = 1000) -> list[AnyNode]:
        """Up to `limit` nodes of `label` with id > `after`, by id: a whole graph, page by page."""

    def quotes_of(self, content_id: str) -> list[Quote]:
        """Quotes of a Content (document passages too) in their reading order."""

    def get_quotes(self, quote_ids: Sequence[str]) -> list[Quote]:
        """The known Quotes among `quote_ids`, once each, in the order asked."""

    def passages_around(self, quote_id: str, *, before: int = 1, after: int = 1) -> list[Quote]:
        """The passage `quote_id` with up to `before` passages before it and `after` after it
        along its Content's `NEXT` edges, in reading order; [] for an unknown passage."""

    def sections_of(self, content_id: str) -> list[Section]:
        """Sections of a Content in their reading order (position, then id)."""

    def get_sections(self, section_ids: Sequence[str]) -> list[Section]:
        """The known Sections among `section_ids`, once each, in the order asked."""

    def propositions_of(self, passage_ids: Sequence[str]) -> list[Proposition]:
        """The Propositions of these passages: by passage in the order asked, each passage's
        in their order (position)."""

    def get_propositions(self, proposition_ids: Sequence[str]) -> list[Proposition]:
        """The known Propositions among `proposition_ids`, once each, in the order asked."""

    def answers(self, *, limit: int = 50) -> list[Answer]:
        """Up to `limit` Answers, newest first (by created_at, ties by id)."""

    def chat_answers(self, chat_id: str) -> list[Answer]:
        """The Answers of one chat (`Answer.chat_id`), by turn (ties by created_at, id)."""

    def get_learning_items(self, item_ids: Sequence[str]) -> list[LearningItem]:
        """The known LearningItems among `item_ids`, once each, in the order asked."""

    def card_states(self) -> list[CardState]:
        """Every LearningItem's study state (`CardState`: no text), in id order."""

    def review_logs(self, item_id: str) -> list[ReviewLog]:
        """An item's study history, oldest first (by reviewed_at, ties by id)."""

    # Study reads: by status and due date through the store's indexes, never the whole deck
    # (100,000 cards; `benchmarks/web.py --cards`). "Approved" and "new" as `CardCounts` says.
    def due_cards(self, now: datetime, scope: StudyScope, *, limit: int) -> list[CardState]:
        """Up to `limit` approved cards of `scope` studied before and due by `now`, oldest
        due first (ties by id)."""

    def new_cards(
        self, scope: StudyScope, *, after: CardState | None = None, limit: int
    ) -> list[CardState]:
        """Up to `limit` approved cards of `scope` never studied, after `after`, in
        `rules.new_card_key` order (easy before hard, then book, creation, id): the stream
        `study_order` spreads siblings and prerequisites over."""

    def card_counts(
        self, now: datetime, end_of_day: datetime, scope: StudyScope
    ) -> dict[str, CardCounts]:
        """Cards of `scope` (any status) counted per book (first content id, "" for none),
        due counted by `now` and by `end_of_day`; only books with cards."""

    def card_total(
        self, now: datetime, end_of_day: datetime, scope: StudyScope, *, book: str | None = None
    ) -> CardCounts:
        """`card_counts` summed over the books, or of the one first book `book`: counted in
        the indexes without grouping (what a page shows: 100,000 cards in a few ms)."""

    def new_card_counts(self, concept_ids: Sequence[str], scope: StudyScope) -> dict[str, int]:
        """How many cards `new_cards(scope)` holds of each of `concept_ids` (only those with
        some)."""

    def review_counts(
        self, *, since: datetime, today: datetime, now: datetime
    ) -> dict[str | None, ReviewCounts]:
        """Ratings up to `now` per book (first content id) of approved cards, None for the
        cards not approved or deleted: those from `today` on (and of them, first ratings),
        and the recall checks (ratings in FSRS review state) from `since` on."""

    def card_books(self, status: ItemStatus) -> list[str]:
        """The ids of the contents cited by cards of `status`, sorted."""

    def get_entities(self, entity_ids: Sequence[str]) -> list[Entity]:
        """The known Entities among `entity_ids`, once each, in the order asked."""

    def find_entities(self, name: str) -> list[Entity]:
        """Entities of any type whose name matches case-, accent- and spacing-insensitively,
        by type then id."""

    def relations(
        self,
        node_id: str | None = None,
        *,
        relation_type: str | None = None,
        direction: str = "out",
    ) -> list[Relation]:
        """Relations touching `node_id` ("out", "in" or "both"), or all when None."""

    def relations_of(self, node_ids: Sequence[str], *, direction: str = "both") -> list[Relation]:
        """Relations touching any of `node_ids` ("out", "in" or "both"), each once, by
        (source, type, target): what `relations(id, direction=...)` lists for each id, in one
        read (a graph view reads a whole ring of neighbours at a time)."""

    def relation_counts(
        self,
        node_ids: Sequence[str],
        *,
        relation_type: str | None = None,
        direction: str = "out",
    ) -> dict[str, int]:
        """How many relations `relations(id, ...)` would list for each of `node_ids` ("out"
        or "in"), every id asked included (0 when none), counted by the database: a list of
        concepts or sources shows its counts without one read per row."""

    def vector_search(
        self,
        label: NodeLabel,
        vector: NDArray[np.float32],
        k: int,
        *,
        min_score: float | None = None,
        passages: PassageFilter | None = None,
    ) -> list[SearchHit]:
        """Top-k nodes of `label` by cosine similarity, best first. With an active
        `passages` filter, the top k among the Quotes it admits (exact over them); any other
        label with a filter is a ValueError."""

    def text_search(
        self,
        query: str,
        k: int,
        *,
        label: NodeLabel | None = None,
        passages: PassageFilter | None = None,
    ) -> list[SearchHit]:
        """Full-text matches (accent-insensitive), best first. With an active `passages`
        filter, only Quotes it admits: k of them whenever k such Quotes match."""

    def vectors(
        self, label: NodeLabel | None = None
    ) -> Iterator[tuple[str, NDArray[np.float32]]]: ...

    def rebuild_fulltext(self) -> int:
        """Re-analyse the text of every searched node into the full-text index (after an
        upgrade that changed the analysis: `zettelgraph reindex`); how many were indexed."""

    def counts(self) -> dict[str, int]:
        """Number of nodes per label, relations and vectors."""


@runtime_checkable
class Snapshots(Protocol):
    """A store that can hold one consistent state of itself for a series of reads (SQLite);
    a server store cannot, and its readers must expect writes between their reads."""

    def snapshot(self) -> AbstractContextManager[None]:
        """Every read until the block ends sees the store as it was when the block began,
        whatever other connections write meanwhile (and they are not held up)."""


@runtime_checkable
class Remembers(Protocol):
    """A store that can keep a result computed from its reads until anything is written
    (SQLite, whose read memo watches `data_version`); a server store cannot tell cheaply, and
    its readers compute again."""

    def remembered(self, key: Hashable, read: Callable[[], list[T]]) -> list[T]:
        """`read()`'s result, reused (as a fresh list) while the store is unchanged."""


# Nodes per page when a whole label is read (`every_node`).
_PAGE = 1000


def every_node(store: GraphStore, label: NodeLabel, model: type[NodeT]) -> Iterator[NodeT]:
    """Every node of `label`, by id, a page at a time (`GraphStore.nodes`): a whole deck or
    study history without holding a second copy of it in a list."""
    after = ""
    while True:
        page = store.nodes(label, after=after, limit=_PAGE)
        for node in page:
            if isinstance(node, model):
                yield node
        if len(page) < _PAGE:
            return
        after = page[-1].id


def card_state(record: dict[str, Any]) -> CardState:
    """A CardState from a LearningItem's stored JSON (whole, or the fields it needs)."""
    schedule = record.get("schedule") or {}
    due = record.get("due")
    return CardState(
        id=record["id"],
        item_type=ItemType(record["item_type"]),
        difficulty=Difficulty(record.get("difficulty") or Difficulty.EASY),
        status=ItemStatus(record.get("status") or ItemStatus.PROPOSED),
        concept_ids=list(record["concept_ids"]),
        content_ids=list(record.get("content_ids") or []),
        created_at=datetime.fromisoformat(record["created_at"]),
        schedule={"state": schedule.get("state")} if schedule else {},
        due=datetime.fromisoformat(due) if due else None,
        subject_ids=list(record["concept_ids"] or record.get("quote_ids") or []),
    )
