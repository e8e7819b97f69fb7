"""The SQLite store's study reads: cards by status and due date, and their counts, from the
`cards`, `card_refs` and `reviews` tables (migration 6) instead of every card's JSON.

The tables copy what `study_keys` says of each card and rating, written with the node in one
transaction (`sqlite_card_index.py`). With 100,000 cards the Study page read
every card's state (about 1.8 s of JSON per read, three reads a page); these reads touch the
few rows a page shows and count the rest in the indexes.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from zettelgraph.models import CardCounts, CardState, ItemStatus, ReviewCounts, StudyScope
from zettelgraph.store.rules import sortable_time
from zettelgraph.store.sqlite_connection import locked
from zettelgraph.store.study_keys import REVIEW_STATE, new_card_key

_APPROVED = str(ItemStatus.APPROVED)


def _scoped(scope: StudyScope, params: dict[str, Any]) -> str:
    """The conditions on `cards c` that `scope` adds (their parameters added to `params`)."""
    sql = ""
    for kind, ref in (("content", scope.content_id), ("concept", scope.concept_id)):
        if ref is not None:
            refs = f"SELECT item_id FROM card_refs WHERE kind = '{kind}' AND ref = :{kind}"
            sql += f" AND c.id IN ({refs})"
            params[kind] = ref
    if scope.item_type is not None:
        sql += " AND c.item_type = :item_type"
        params["item_type"] = str(scope.item_type)
    return sql


class SQLiteCards:
    """The study reads over the `cards`, `card_refs` and `reviews` tables."""

    _db: sqlite3.Connection
    _lock: threading.RLock

    def _card_states(self, where: str, params: Sequence[Any]) -> list[CardState]:
        raise NotImplementedError  # SQLiteReads' (the JSON fields of the cards chosen)

    @locked
    def due_cards(self, now: datetime, scope: StudyScope, *, limit: int) -> list[CardState]:
        params: dict[str, Any] = {"approved": _APPROVED, "now": sortable_time(now)}
        # cards_due: the approved cards studied, in due order; the scan stops at `limit`.
        sql = (
            "SELECT c.id FROM cards c WHERE c.status = :approved AND c.studied = 1 "
            "AND c.due <= :now" + _scoped(scope, params) + " ORDER BY c.due, c.id LIMIT :limit"
        )
        return self._chosen(sql, {**params, "limit": max(limit, 0)})

    @locked
    def new_cards(
        self, scope: StudyScope, *, after: CardState | None = None, limit: int
    ) -> list[CardState]:
        params: dict[str, Any] = {"approved": _APPROVED, "limit": max(limit, 0)}
        # cards_new: the approved cards never studied, in `new_card_key` order.
        sql = "SELECT c.id FROM cards c WHERE c.status = :approved AND c.studied = 0"
        if after is not None:
            sql += " AND (c.card_rank, c.book, c.created_at, c.id) > (:rank, :book, :created, :id)"
            params.update(zip(("rank", "book", "created", "id"), new_card_key(after), strict=True))
        sql += _scoped(scope, params)
        return self._chosen(
            sql + " ORDER BY c.card_rank, c.book, c.created_at, c.id LIMIT :limit", params
        )

    def _chosen(self, sql: str, params: dict[str, Any]) -> list[CardState]:
        """The study states of the card ids `sql` selects, in its order."""
        ids = [row[0] for row in self._db.execute(sql, params)]
        states = self._card_states("id IN (SELECT value FROM json_each(?))", [json.dumps(ids)])
        found = {state.id: state for state in states}
        return [found[card_id] for card_id in ids]

    @locked
    def card_counts(
        self, now: datetime, end_of_day: datetime, scope: StudyScope
    ) -> dict[str, CardCounts]:
        params: dict[str, Any] = {
            "approved": _APPROVED,
            "proposed": str(ItemStatus.PROPOSED),
            "review": REVIEW_STATE,
            "now": sortable_time(now),
            "end": sortable_time(end_of_day),
        }
        studied = "c.status = :approved AND c.studied = 1"
        # cards_counted holds every column read: the counts come from the index alone.
        sql = (
            "SELECT c.book, sum(c.status = :approved), "
            "sum(c.status = :approved AND c.studied = 0), "
            f"sum({studied} AND coalesce(c.state, 0) != :review), "
            f"sum({studied} AND c.state = :review), "
            f"sum({studied} AND c.due <= :now), sum({studied} AND c.due <= :end), "
            "sum(c.status = :proposed), "
            f"min(CASE WHEN {studied} AND c.due > :now THEN c.due END) "
            "FROM cards c WHERE 1" + _scoped(scope, params) + " GROUP BY c.book"
        )
        out: dict[str, CardCounts] = {}
        for book, *counts, next_due in self._db.execute(sql, params):
            due = datetime.fromisoformat(next_due) if next_due else None
            out[book] = CardCounts.counted(counts, due)
        return out

    @locked
    def card_total(
        self, now: datetime, end_of_day: datetime, scope: StudyScope, *, book: str | None = None
    ) -> CardCounts:
        params: dict[str, Any] = {
            "approved": _APPROVED,
            "proposed": str(ItemStatus.PROPOSED),
            "review": REVIEW_STATE,
            "now": sortable_time(now),
            "end": sortable_time(end_of_day),
            "book": book,
        }
        scoped = _scoped(scope, params) + (" AND c.book = :book" if book is not None else "")
        studied = "c.status = :approved AND c.studied = 1"
        # Each count is one range of an index (cards_state, cards_due; cards_counted for a
        # book): one GROUP BY summing expressions over every row took 1.6 us a card.
        # A book's counts read its rows of cards_counted; the planner chose the status
        # indexes and read every card of the status (100 ms at 100,000 cards).
        table = "cards c INDEXED BY cards_counted" if book is not None else "cards c"
        counts = {
            name: f"(SELECT count(*) FROM {table} WHERE {where}{scoped})"
            for name, where in (
                ("approved", "c.status = :approved"),
                ("new", "c.status = :approved AND c.studied = 0"),
                ("review", f"{studied} AND c.state = :review"),
                ("due_now", f"{studied} AND c.due <= :now"),
                ("due_today", f"{studied} AND c.due <= :end"),
                ("proposed", "c.status = :proposed"),
            )
        }
        first = f"(SELECT min(c.due) FROM {table} WHERE {studied} AND c.due > :now{scoped})"
        row = self._db.execute(f"SELECT {', '.join(counts.values())}, {first}", params).fetchone()
        approved, new, review, due_now, due_today, proposed, next_due = row
        return CardCounts(
            approved=approved,
            new=new,
            learning=approved - new - review,
            review=review,
            due_now=due_now,
            due_today=due_today,
            proposed=proposed,
            next_due=datetime.fromisoformat(next_due) if next_due else None,
        )

    @locked
    def new_card_counts(self, concept_ids: Sequence[str], scope: StudyScope) -> dict[str, int]:
        params: dict[str, Any] = {
            "concepts": json.dumps(list(dict.fromkeys(concept_ids))),
            "approved": _APPROVED,
        }
        sql = (
            "SELECT r.ref, count(*) FROM card_refs r CROSS JOIN cards c ON c.id = r.item_id "
            "WHERE r.kind = 'concept' AND r.ref IN (SELECT value FROM json_each(:concepts)) "
            "AND c.status = :approved AND c.studied = 0"
            + _scoped(scope, params)
            + " GROUP BY r.ref"
        )
        return dict(self._db.execute(sql, params).fetchall())

    @locked
    def review_counts(
        self, *, since: datetime, today: datetime, now: datetime
    ) -> dict[str | None, ReviewCounts]:
        start, checks_from = sortable_time(today), sortable_time(since)
        checked = "r.reviewed_at >= :since AND r.state_before = :review"
        # reviews_time: only the ratings of the window are read.
        rows = self._db.execute(
            "SELECT CASE WHEN c.status = :approved THEN c.book END AS approved_book, "
            "sum(r.reviewed_at >= :today), sum(r.reviewed_at >= :today AND r.state_before = 0), "
            f"sum({checked}), sum({checked} AND r.rating > 1) "
            "FROM reviews r LEFT JOIN cards c ON c.id = r.item_id "
            "WHERE r.reviewed_at >= :first AND r.reviewed_at <= :now GROUP BY approved_book",
            {
                "today": start,
                "since": checks_from,
                "review": REVIEW_STATE,
                "first": min(start, checks_from),
                "now": sortable_time(now),
                "approved": _APPROVED,
            },
        ).fetchall()
        return {book: ReviewCounts(*counts) for book, *counts in rows}

    @locked
    def card_books(self, status: ItemStatus) -> list[str]:
        # One seek of card_refs_status per book (a skip over the index): a DISTINCT over every
        # card's books took 160 ms at 100,000 cards, and so did checking each book's cards.
        rows = self._db.execute(
            "WITH RECURSIVE books(ref) AS ("
            " SELECT min(ref) FROM card_refs WHERE kind = 'content' AND status = :status"
            " UNION ALL SELECT (SELECT min(ref) FROM card_refs WHERE kind = 'content'"
            " AND status = :status AND ref > books.ref) FROM books WHERE books.ref IS NOT NULL)"
            " SELECT ref FROM books WHERE ref IS NOT NULL ORDER BY ref",
            {"status": str(status)},
        )
        return [row[0] for row in rows]
