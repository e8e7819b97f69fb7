"""How the reader is doing with the approved cards: due now and today, reviews today, and
retention (the share of learned cards recalled when due), in all and per book: what
`zettelgraph cards stats`, the study page and GET /api/study/stats show. The scheduling and
the ratings themselves are `study.py`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from fsrs import State

from zettelgraph.models import CardState, ItemStatus
from zettelgraph.services.cards import ItemFilter
from zettelgraph.services.study import Deck, as_utc, day_start, read_deck
from zettelgraph.store.base import GraphStore

# Retention is measured over this window of reviews of learned cards.
RETENTION_DAYS = 30


@dataclass
class DeckStats:
    """Counts for one book (or all): cards by state, due, and measured retention."""

    title: str
    approved: int = 0
    new: int = 0
    learning: int = 0
    review: int = 0
    due_now: int = 0
    due_today: int = 0
    reviews_today: int = 0
    recalled: int = 0  # ratings above "again" on learned cards, last RETENTION_DAYS days
    recall_checks: int = 0

    @property
    def retention(self) -> float | None:
        """The share of recall checks recalled (0 to 1), or None when there were none."""
        return self.recalled / self.recall_checks if self.recall_checks else None

    def as_dict(self) -> dict[str, Any]:
        """One deck's counts, as `zettelgraph cards stats --json` prints them.

        Returns:
            `title`, `approved`, `new`, `learning`, `review`, `due_now`, `due_today`,
            `reviews_today`, `retention` (rounded to 4 places, None without recall checks) and
            `retention_reviews`.
        """
        retention = self.retention
        return {
            "title": self.title,
            "approved": self.approved,
            "new": self.new,
            "learning": self.learning,
            "review": self.review,
            "due_now": self.due_now,
            "due_today": self.due_today,
            "reviews_today": self.reviews_today,
            "retention": round(retention, 4) if retention is not None else None,
            "retention_reviews": self.recall_checks,
        }


@dataclass
class StudyStats:
    total: DeckStats
    books: list[DeckStats] = field(default_factory=list)
    proposed: int = 0

    def as_dict(self) -> dict[str, Any]:
        """What `zettelgraph cards stats --json` prints and the study page shows.

        Returns:
            The total's `DeckStats.as_dict` with `proposed`, `retention_days` and `books` (one such
            dict per book).
        """
        return {
            **self.total.as_dict(),
            "proposed": self.proposed,
            "retention_days": RETENTION_DAYS,
            "books": [book.as_dict() for book in self.books],
        }


def stats(store: GraphStore, *, now: datetime, deck: Deck | None = None) -> StudyStats:
    """Due today, retention (share of learned cards recalled when due) and counts per book.

    Args:
        store: the graph store.
        now: the clock: "today" is its day, retention the RETENTION_DAYS before it.
        deck: the deck already read, to spare reading it again.

    Returns:
        The counts over all cards, per book (by title), and the proposed cards.
    """
    deck = deck or read_deck(store)
    total = DeckStats(title="all")
    books: dict[str, DeckStats] = {}
    book_of: dict[str, str] = {}
    proposed = 0
    end_of_day = as_utc(day_start(now) + timedelta(days=1))
    for item in deck.items:
        if item.status == ItemStatus.PROPOSED:
            proposed += 1
        if item.status != ItemStatus.APPROVED:
            continue
        key = item.content_ids[0] if item.content_ids else ""
        book_of[item.id] = key
        if key not in books:
            content = store.get_content(key) if key else None
            books[key] = DeckStats(title=content.title if content else "(no book)")
        for tally in (total, books[key]):
            _count_card(tally, item, now, end_of_day)
    start, since = as_utc(day_start(now)), as_utc(now) - timedelta(days=RETENTION_DAYS)
    for log in deck.logs:
        book = book_of.get(log.item_id)
        if book is None:
            continue  # a dropped card's history
        when = as_utc(log.reviewed_at)
        for tally in (total, books[book]):
            if start <= when <= as_utc(now):
                tally.reviews_today += 1
            if log.state_before == State.Review and since <= when <= as_utc(now):
                tally.recall_checks += 1
                tally.recalled += log.rating > 1
    ordered = sorted(books.values(), key=lambda tally: tally.title.casefold())
    return StudyStats(total=total, books=ordered, proposed=proposed)


def _count_card(deck: DeckStats, item: CardState, now: datetime, end_of_day: datetime) -> None:
    deck.approved += 1
    if not item.schedule:
        deck.new += 1
        return
    state = int(item.schedule.get("state", State.Learning))
    if state == State.Review:
        deck.review += 1
    else:
        deck.learning += 1
    if item.due is not None:
        due = as_utc(item.due)
        deck.due_now += due <= as_utc(now)
        deck.due_today += due <= end_of_day


@dataclass(frozen=True)
class Outlook:
    """What waits for the reader (of one book, or all): shown when a session ends or there
    is nothing to study."""

    due_now: int
    next_due: datetime | None  # the first card studied before that comes due after now
    unseen: int  # approved, never studied
    approved: int
    proposed: int


def outlook(
    store: GraphStore, *, now: datetime, which: ItemFilter | None = None, deck: Deck | None = None
) -> Outlook:
    """What waits for the reader once a session ends.

    Args:
        store: the graph store.
        now: the clock.
        which: the cards counted (a book or a concept); all by default.
        deck: the deck already read, to spare reading it again.

    Returns:
        Cards due now, when the next one comes due, and the unseen, approved and proposed.
    """
    which = which or ItemFilter()
    mine = [
        item
        for item in (deck or read_deck(store)).items
        if ItemFilter(content_id=which.content_id, concept_id=which.concept_id).matches(item)
    ]
    approved = [item for item in mine if item.status == ItemStatus.APPROVED]
    dues = sorted(as_utc(i.due) for i in approved if i.schedule and i.due is not None)
    later = [due for due in dues if due > as_utc(now)]
    return Outlook(
        due_now=len(dues) - len(later),
        next_due=later[0] if later else None,
        unseen=sum(1 for item in approved if not item.schedule),
        approved=len(approved),
        proposed=sum(1 for item in mine if item.status == ItemStatus.PROPOSED),
    )
