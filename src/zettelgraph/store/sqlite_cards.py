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
from zettelgraph.store.study_keys import REVIEW_STATE, count_params, new_card_key

_APPROVED = str(ItemStatus.APPROVED)


def _cards(scope: StudyScope, params: dict[str, Any], *, index: str = "") -> tuple[str, str]:
    """The tables and the conditions (`FROM x WHERE y`) of the cards `scope` takes, as `c`;
    their parameters are added to `params`. A book or concept scope starts from its rows of
    `card_refs` (its primary key) and looks each card up: the cards of one book of 200 are a
    few hundred of 100,000, and filtering every approved card by the book's list took 43 ms a
    count."""
    refs = [
        (kind, ref)
        for kind, ref in (("content", scope.content_id), ("concept", scope.concept_id))
        if ref is not None
    ]
    conditions = ["1"]
    if refs:
        kind, ref = refs[0]
        params[f"scope_{kind}"] = ref
        tables = "card_refs s CROSS JOIN cards c ON c.id = s.item_id"
        conditions = [f"s.kind = '{kind}'", f"s.ref = :scope_{kind}"]
    else:
        tables = f"cards c INDEXED BY {index}" if index else "cards c"
    for kind, ref in refs[1:]:
        params[f"scope_{kind}"] = ref
        conditions.append(
            f"c.id IN (SELECT item_id FROM card_refs WHERE kind = '{kind}' AND ref = :scope_{kind})"
        )
    if scope.item_type is not None:
        conditions.append("c.item_type = :item_type")
        params["item_type"] = str(scope.item_type)
    return tables, " AND ".join(conditions)


def _from(scope: StudyScope, params: dict[str, Any], *, index: str = "") -> str:
    """`_cards` as one `FROM`'s text, `x WHERE y` (more conditions follow with AND)."""
    tables, conditions = _cards(scope, params, index=index)
    return f"{tables} WHERE {conditions}"


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
            f"SELECT c.id FROM {_from(scope, params)} AND c.status = :approved "
            "AND c.studied = 1 AND c.due <= :now ORDER BY c.due, c.id LIMIT :limit"
        )
        return self._chosen(sql, {**params, "limit": max(limit, 0)})

    @locked
    def new_cards(
        self, scope: StudyScope, *, after: CardState | None = None, limit: int
    ) -> list[CardState]:
        params: dict[str, Any] = {"approved": _APPROVED, "limit": max(limit, 0)}
        # cards_new: the approved cards never studied, in `new_card_key` order.
        sql = f"SELECT c.id FROM {_from(scope, params)} AND c.status = :approved AND c.studied = 0"
        if after is not None:
            sql += " AND (c.card_rank, c.book, c.created_at, c.id) > (:rank, :book, :created, :id)"
            params.update(zip(("rank", "book", "created", "id"), new_card_key(after), strict=True))
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
        params = count_params(now, end_of_day, sortable_time)
        # Two passes over cards_counted, each reading only its columns: the cards counted by
        # book, status, studied and state, then the studied ones' due dates. One GROUP BY
        # summing eight expressions over every card took 53 ms at 100,000, these two 21.
        source = _from(scope, params, index="cards_counted")
        counted: dict[str, list[int]] = {}
        rows = self._db.execute(
            f"SELECT c.book, c.status, c.studied, c.state, count(*) FROM {source} "
            "GROUP BY c.book, c.status, c.studied, c.state",
            params,
        )
        for book, status, studied, state, n in rows:
            # approved, new, learning, review, due now, due today, proposed (CardCounts.counted)
            row = counted.setdefault(book, [0] * 7)
            if status == _APPROVED:
                row[0] += n
                row[1 if not studied else 3 if state == REVIEW_STATE else 2] += n
            elif status == params["proposed"]:
                row[6] += n
        dues: dict[str, datetime | None] = {}
        rows = self._db.execute(
            "SELECT c.book, sum(c.due <= :now), sum(c.due <= :end), "
            f"min(CASE WHEN c.due > :now THEN c.due END) FROM {source} "
            "AND c.status = :approved AND c.studied = 1 GROUP BY c.book",
            params,
        )
        for book, due_now, due_today, next_due in rows:
            counted[book][4:6] = [due_now, due_today]
            dues[book] = datetime.fromisoformat(next_due) if next_due else None
        return {book: CardCounts.counted(row, dues.get(book)) for book, row in counted.items()}

    @locked
    def card_total(
        self, now: datetime, end_of_day: datetime, scope: StudyScope, *, book: str | None = None
    ) -> CardCounts:
        params = {**count_params(now, end_of_day, sortable_time), "book": book}
        # Each count is one range of an index (cards_state, cards_due; cards_counted for a
        # book): one GROUP BY summing expressions over every row took 1.6 us a card.
        # A book's counts read its rows of cards_counted; the planner chose the status
        # indexes and read every card of the status (100 ms at 100,000 cards).
        source = _from(scope, params, index="cards_counted" if book is not None else "")
        if book is not None:
            source += " AND c.book = :book"
        studied = "c.status = :approved AND c.studied = 1"
        wheres = (
            "c.status = :approved",
            "c.status = :approved AND c.studied = 0",
            f"{studied} AND c.state = :review",
            f"{studied} AND c.due <= :now",
            f"{studied} AND c.due <= :end",
            "c.status = :proposed",
        )
        if scope.content_id is None and scope.concept_id is None:
            counts = [f"(SELECT count(*) FROM {source} AND {where})" for where in wheres]
            first = f"(SELECT min(c.due) FROM {source} AND {studied} AND c.due > :now)"
            sql = f"SELECT {', '.join(counts)}, {first}"
        else:
            # A book's or a concept's cards are a few hundred: one pass over them (each count
            # its own pass looked every card up seven times, 7 ms at 100,000).
            sums = [f"coalesce(sum({where}), 0)" for where in wheres]
            first = f"min(CASE WHEN {studied} AND c.due > :now THEN c.due END)"
            sql = f"SELECT {', '.join(sums)}, {first} FROM {source}"
        row = self._db.execute(sql, params).fetchone()
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
        wanted = "r.kind = 'concept' AND r.ref IN (SELECT value FROM json_each(:concepts))"
        new = "c.status = :approved AND c.studied = 0"
        if scope.content_id is None and scope.concept_id is None:
            # From the concepts' rows of card_refs: a few cards each.
            sql = (
                "SELECT r.ref, count(*) FROM card_refs r CROSS JOIN cards c ON c.id = r.item_id "
                f"WHERE {wanted} AND {new} AND {_cards(scope, params)[1]} GROUP BY r.ref"
            )
        else:
            # From the scope's cards, then each card's concepts (card_refs_item): starting
            # from the concepts and filtering by the book's cards took 34 ms at 100,000.
            tables, conditions = _cards(scope, params)
            sql = (
                f"SELECT r.ref, count(*) FROM {tables} CROSS JOIN card_refs r "
                f"ON r.item_id = c.id WHERE {conditions} AND {new} AND {wanted} GROUP BY r.ref"
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
