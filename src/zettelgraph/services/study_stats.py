"""How the reader is doing with the approved cards: due now and today, reviews today, and
retention (the share of learned cards recalled when due), in all and per book: what
`zettelgraph cards stats`, the study page and GET /api/study/stats show. The scheduling and
the ratings themselves are `study.py`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from zettelgraph.models import CardCounts, ReviewCounts, StudyScope
from zettelgraph.services.cards import ItemFilter
from zettelgraph.services.study import as_utc, card_totals, day_start
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


def stats(store: GraphStore, *, now: datetime) -> StudyStats:
    """Due today, retention (share of learned cards recalled when due) and counts per book.

    Args:
        store: the graph store.
        now: the clock: "today" is its day, retention the RETENTION_DAYS before it.

    Returns:
        The counts over all cards, per book (by title), and the proposed cards.
    """
    total, books, proposed = _tallies(store, now)
    for book, tally in books.items():
        content = store.get_content(book) if book else None
        tally.title = content.title if content else "(no book)"
    ordered = sorted(books.values(), key=lambda tally: tally.title.casefold())
    return StudyStats(total=total, books=ordered, proposed=proposed)


def book_stats(store: GraphStore, *, now: datetime, content_id: str | None) -> StudyStats:
    """`stats` of one book (the cards it is the first book of) or of all, without naming
    every book: what the study page shows.

    Args:
        store: the graph store.
        now: the clock.
        content_id: the book; None for all.

    Returns:
        The counts of all cards as `total`, the book's (titled, zero when it has no approved
        card) as the only entry of `books` when one is asked for, and the proposed cards.
    """
    end_of_day = as_utc(day_start(now) + timedelta(days=1))
    counts = store.card_total(now, end_of_day, StudyScope())
    total = DeckStats(title="all")
    _add_cards(total, counts)
    books = [] if content_id is None else [DeckStats(title="")]
    if content_id is not None:
        content = store.get_content(content_id)
        books[0].title = content.title if content else content_id
        _add_cards(books[0], store.card_total(now, end_of_day, StudyScope(), book=content_id))
    for rated, counted in _ratings(store, now).items():
        for tally, book in ((total, None), *((b, content_id) for b in books)):
            if rated is not None and (book is None or rated == book):
                _add_ratings(tally, counted)
    return StudyStats(total=total, books=books, proposed=counts.proposed)


def _tallies(store: GraphStore, now: datetime) -> tuple[DeckStats, dict[str, DeckStats], int]:
    """Every count of `stats`, in all and per book with approved cards (by first content
    id, untitled), and the proposed cards; counted by the store."""
    end_of_day = as_utc(day_start(now) + timedelta(days=1))
    total = DeckStats(title="all")
    books: dict[str, DeckStats] = {}
    proposed = 0
    for book, counts in store.card_counts(now, end_of_day, StudyScope()).items():
        proposed += counts.proposed
        if counts.approved:
            books[book] = DeckStats(title="")
            for tally in (total, books[book]):
                _add_cards(tally, counts)
    for rated, counted in _ratings(store, now).items():
        if rated is None or rated not in books:
            continue  # the history of cards not approved (dropped, or back to proposed)
        for tally in (total, books[rated]):
            _add_ratings(tally, counted)
    return total, books, proposed


def _ratings(store: GraphStore, now: datetime) -> dict[str | None, ReviewCounts]:
    """The ratings `stats` counts, per book of approved cards (None: of other cards)."""
    return store.review_counts(
        since=as_utc(now) - timedelta(days=RETENTION_DAYS), today=day_start(now), now=now
    )


def _add_ratings(deck: DeckStats, counted: ReviewCounts) -> None:
    deck.reviews_today += counted.today
    deck.recall_checks += counted.recall_checks
    deck.recalled += counted.recalled


def _add_cards(deck: DeckStats, counts: CardCounts) -> None:
    deck.approved += counts.approved
    deck.new += counts.new
    deck.learning += counts.learning
    deck.review += counts.review
    deck.due_now += counts.due_now
    deck.due_today += counts.due_today


@dataclass(frozen=True)
class Outlook:
    """What waits for the reader (of one book, or all): shown when a session ends or there
    is nothing to study."""

    due_now: int
    next_due: datetime | None  # the first card studied before that comes due after now
    unseen: int  # approved, never studied
    approved: int
    proposed: int


def outlook(store: GraphStore, *, now: datetime, which: ItemFilter | None = None) -> Outlook:
    """What waits for the reader once a session ends.

    Args:
        store: the graph store.
        now: the clock.
        which: the cards counted (a book or a concept); all by default.

    Returns:
        Cards due now, when the next one comes due, and the unseen, approved and proposed.
    """
    which = which or ItemFilter()
    counts = card_totals(
        store, ItemFilter(content_id=which.content_id, concept_id=which.concept_id), now
    )
    return Outlook(
        due_now=counts.due_now,
        next_due=counts.next_due,
        unseen=counts.new,
        approved=counts.approved,
        proposed=counts.proposed,
    )
