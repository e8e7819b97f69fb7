"""Study approved cards with FSRS: what is due, a rating, and how the reader is doing.

The scheduler is the `fsrs` package's (FSRS-6, not SM-2: it models each card's memory
stability and difficulty and schedules at the retention the reader asks for). A card's FSRS
state lives on its LearningItem (`schedule`, `due`); every rating is kept as a ReviewLog, so
the parameters can be fitted to the reader's own history later (`fsrs.Optimizer`).

Every function takes `now`: the CLI and web pass the clock, tests a fixed one.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from fsrs import Card, Rating, Scheduler

from zettelgraph.models import (
    CardCounts,
    CardState,
    ItemStatus,
    LearningItem,
    NodeLabel,
    ReviewLog,
    StudyScope,
    review_log_id,
)
from zettelgraph.services.cards import CardError, ItemFilter, get_items
from zettelgraph.services.study_order import needs_first, ordered_new
from zettelgraph.settings import Settings
from zettelgraph.store.base import GraphStore, every_node

# What the reader presses, in FSRS's order.
RATINGS: dict[int, str] = {1: "again", 2: "hard", 3: "good", 4: "easy"}


def scheduler_for(settings: Settings) -> Scheduler:
    """The FSRS scheduler the settings ask for.

    Args:
        settings: the settings with the target retention (ZETTELGRAPH_STUDY_RETENTION, a share
            between 0 and 1) and whether intervals are fuzzed.

    Returns:
        A new `Scheduler`.
    """
    return Scheduler(desired_retention=settings.study_retention, enable_fuzzing=settings.study_fuzz)


def parse_rating(text: str | int) -> int:
    """1-4 or again / hard / good / easy (any case) -> 1-4.

    Args:
        text: the rating as given: 1-4 (a number or its text) or its name.

    Returns:
        The rating, 1 (again) to 4 (easy).

    Raises:
        CardError: anything else (the message lists what is accepted).
    """
    if isinstance(text, int) or text.strip().isdigit():
        value = int(text)
        if value in RATINGS:
            return value
    else:
        names = {name: value for value, name in RATINGS.items()}
        value = names.get(text.strip().casefold(), 0)
        if value:
            return value
    raise CardError(f"rating {text!r}: use 1-4 or again, hard, good, easy")


def _card_id(item_id: str) -> int:
    # fsrs wants an integer id; a stable one keeps a card's logs together across exports.
    return int.from_bytes(hashlib.sha256(item_id.encode()).digest()[:6], "big")


def card_of(item: LearningItem, now: datetime) -> Card:
    """The item's FSRS card; a new item is a new card due now.

    Args:
        item: the learning item, with its `schedule` when it was rated before.
        now: when a new card is due (timezone-aware).

    Returns:
        The FSRS `Card`.
    """
    if item.schedule:
        return Card.from_dict(item.schedule)  # type: ignore[arg-type]
    return Card(card_id=_card_id(item.id), due=now)


def as_utc(moment: datetime) -> datetime:
    """`moment` in UTC; a naive one is taken as UTC already.

    Args:
        moment: a time, timezone-aware or naive.

    Returns:
        The same moment, with the UTC zone.
    """
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def review_logs(store: GraphStore) -> Iterator[ReviewLog]:
    """Every rating ever given, page by page (in id order, not time order).

    Args:
        store: the graph store to read.

    Returns:
        An iterator over every `ReviewLog`, read a page at a time.
    """
    return every_node(store, NodeLabel.REVIEW_LOG, ReviewLog)


def day_start(now: datetime) -> datetime:
    """Midnight of `now`'s day in the clock's own zone: "today" is the reader's day.

    Args:
        now: the clock's time, in its own zone.

    Returns:
        Midnight at the start of that day, in the same zone.
    """
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def scope_of(which: ItemFilter) -> StudyScope:
    """The store's study scope for the cards `which` takes (its status aside).

    Args:
        which: a book, a concept, a kind, or any.

    Returns:
        The `StudyScope` with the same book, concept and kind.
    """
    return StudyScope(
        content_id=which.content_id, concept_id=which.concept_id, item_type=which.item_type
    )


def card_totals(
    store: GraphStore, which: ItemFilter, now: datetime, end_of_day: datetime | None = None
) -> CardCounts:
    """The store's counts of the cards `which` takes, over every book.

    Args:
        store: the graph store.
        which: the cards counted (its status aside).
        now: the clock.
        end_of_day: what "due today" counts up to; `now` by default.

    Returns:
        The counts, summed over the books.
    """
    return store.card_total(now, end_of_day or now, scope_of(which))


# New cards read from the store per page: one page serves a day's allowance (20 by default)
# unless many cards wait for their prerequisites.
_NEW_PAGE = 100


@dataclass
class StudyQueue:
    """What a session shows, in order: cards due (oldest due first), then new cards. The
    store counts them and reads the study states of the first `limit` only (a page shows one
    card); whole cards are read when asked for."""

    store: GraphStore
    due_states: list[CardState]
    new_states: list[CardState]
    due_count: int = 0  # every card due, shown or not
    new_count: int = 0  # the new cards of today's allowance, shown or not

    @functools.cached_property
    def items(self) -> list[LearningItem]:
        """The queue's cards read, due then new, read whole once when first asked for."""
        return self.store.get_learning_items([s.id for s in [*self.due_states, *self.new_states]])

    @property
    def due(self) -> list[LearningItem]:
        """The cards due read, oldest due first."""
        return self.items[: len(self.due_states)]

    @property
    def new(self) -> list[LearningItem]:
        """The new cards read, in `new_order`."""
        return self.items[len(self.due_states) :]

    def first(self) -> LearningItem | None:
        """The card shown next, read alone.

        Returns:
            The first due card, else the first new one; None when the queue is empty.
        """
        states = [*self.due_states[:1], *self.new_states[:1]]
        return self.store.get_learning_items([states[0].id])[0] if states else None

    def __len__(self) -> int:
        return self.due_count + self.new_count


def study_queue(
    store: GraphStore,
    settings: Settings,
    *,
    now: datetime,
    which: ItemFilter | None = None,
    new_limit: int | None = None,
    limit: int | None = None,
) -> StudyQueue:
    """Approved cards due by `now`, and new cards up to what is left of today's allowance.

    Args:
        store: the graph store.
        settings: the new cards a day (`study_new_per_day`) unless `new_limit` says.
        now: the clock.
        which: the cards to study (a book, a concept, a kind); all by default.
        new_limit: new cards a day instead of the setting's.
        limit: at most this many cards read, due ones first (all by default); the counts
            are of every card.

    Returns:
        The queue: cards due (oldest due first), then new cards in `new_order`.
    """
    scope = scope_of(which or ItemFilter())
    totals = card_totals(store, which or ItemFilter(), now)
    allowance = settings.study_new_per_day if new_limit is None else new_limit
    start = as_utc(day_start(now))
    # Every first rating today counts, whatever became of its card since.
    introduced = sum(
        counts.introduced
        for counts in store.review_counts(since=start, today=start, now=now).values()
    )
    new_count = min(max(0, allowance - introduced), totals.new)
    wanted = totals.due_now + new_count if limit is None else limit
    due = store.due_cards(now, scope, limit=wanted) if totals.due_now and wanted else []
    taken = min(new_count, wanted - len(due))
    fresh = list(itertools.islice(_new_cards(store, scope), taken)) if taken > 0 else []
    return StudyQueue(
        store, due_states=due, new_states=fresh, due_count=totals.due_now, new_count=new_count
    )


def _new_cards(store: GraphStore, scope: StudyScope) -> Iterator[CardState]:
    """The new cards of `scope` in `new_order`, read from the store a page at a time as the
    order needs them."""
    # What must be understood first is read only when new cards will be shown.
    prerequisites = needs_first(store)
    concepts = {c for pair in prerequisites.items() for c in (pair[0], *pair[1])}
    carded = store.new_card_counts(sorted(concepts), scope) if concepts else {}
    return ordered_new(_pages(store, scope), prerequisites, carded)


def _pages(store: GraphStore, scope: StudyScope) -> Iterator[CardState]:
    after: CardState | None = None
    while True:
        page = store.new_cards(scope, after=after, limit=_NEW_PAGE)
        yield from page
        if len(page) < _NEW_PAGE:
            return
        after = page[-1]


@dataclass(frozen=True)
class Studied:
    item: LearningItem
    log: ReviewLog


class AlreadyRatedError(CardError):
    """The card was rated since the rating's page showed it: a double click or a second tab,
    not a second answer."""


def seen_mark(item: LearningItem) -> str:
    """The card's state as a rating page shows it: a rating sent for an older state is a
    second submit of the same page.

    Args:
        item: the card as the page showed it.

    Returns:
        Its due time (ISO 8601), or "new" for a card never rated.
    """
    return item.due.isoformat() if item.due is not None else "new"


def rate(
    store: GraphStore,
    scheduler: Scheduler,
    item_id: str,
    rating: int,
    *,
    now: datetime,
    duration_ms: int | None = None,
    seen: str | None = None,
) -> Studied:
    """Record one rating: the card's new FSRS state and its ReviewLog, in one write. With
    `seen` (the `seen_mark` the rating's page showed), a card rated since is not rated
    again (AlreadyRatedError). Without it, the state read here is the one rated.

    The store writes only if the card is still in the state read (`record_rating`, a
    compare-and-set): two requests of a double click, or two processes, each read the card
    and each wrote a review before (4 of 12 trials stored two, moving the FSRS schedule
    twice); now the one that comes second is told the card was rated.

    Args:
        store: the graph store.
        scheduler: the FSRS scheduler (`scheduler_for`).
        item_id: the card's whole id.
        rating: 1 (again) to 4 (easy).
        now: the clock, the moment of the rating.
        duration_ms: how long the reader looked at the card, if known.
        seen: the `seen_mark` of the card as the rating's page showed it.

    Returns:
        The card as rated and its ReviewLog.

    Raises:
        CardError: a bad rating or a card not approved.
        AlreadyRatedError: the card was rated since `seen`.
    """
    if rating not in RATINGS:
        raise CardError(f"rating {rating!r}: use 1 (again), 2 (hard), 3 (good) or 4 (easy)")
    (item,) = get_items(store, [item_id])
    _check_ratable(item, seen)
    before = card_of(item, now)
    card, _ = scheduler.review_card(
        before, Rating(rating), review_datetime=as_utc(now), review_duration=duration_ms
    )
    studied = item.model_copy(update={"schedule": dict(card.to_dict()), "due": card.due})
    log = ReviewLog(
        id=review_log_id(item.id, now),
        item_id=item.id,
        rating=rating,
        reviewed_at=now,
        duration_ms=duration_ms,
        state_before=int(before.state) if item.schedule else None,
        due=card.due,
    )
    if not store.record_rating(item, studied, log):
        # Another rating (or a decision) came between the read and the write: say which.
        (now_stored,) = get_items(store, [item_id])
        _check_ratable(now_stored, seen_mark(item))
        raise _already_rated(item)
    return Studied(item=studied, log=log)


def _check_ratable(item: LearningItem, seen: str | None) -> None:
    if seen is not None and item.status == ItemStatus.APPROVED and seen != seen_mark(item):
        raise _already_rated(item)
    if item.status != ItemStatus.APPROVED:
        raise CardError(
            f"card {item.id[:8]} is {item.status}: approve it (`zettelgraph cards approve`) "
            "before studying it"
        )


def _already_rated(item: LearningItem) -> AlreadyRatedError:
    return AlreadyRatedError(f"card {item.id[:8]} was rated a moment ago; the rating is kept once")
