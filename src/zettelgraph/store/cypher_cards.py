"""The Cypher store's study reads (FalkorDB, Neo4j): cards by status and due date, and their
counts, from the properties `study_keys` puts on each card and rating (`cypher_props.py`),
counted and sorted by the database; the whole deck is never read into Python.

A graph written before these properties existed gets them when the store opens
(`CypherStore._upgrade_card_properties`).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from zettelgraph.models import CardCounts, CardState, ItemStatus, ReviewCounts, StudyScope
from zettelgraph.store.base import card_state
from zettelgraph.store.study_keys import REVIEW_STATE, count_params, new_card_key, time_key

_APPROVED = str(ItemStatus.APPROVED)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

# After the card `after` in `new_card_key` order: (rank, book, created, id) > the key given.
_AFTER = (
    " AND (n.card_rank > $rank OR (n.card_rank = $rank AND (n.book > $book OR "
    "(n.book = $book AND (n.created_at > $created OR "
    "(n.created_at = $created AND n.id > $id))))))"
)


def _scoped(scope: StudyScope, params: dict[str, Any]) -> str:
    """The conditions on card `n` that `scope` adds (their parameters added to `params`)."""
    sql = ""
    if scope.content_id is not None:
        sql += " AND $content IN n.content_ids"
        params["content"] = scope.content_id
    if scope.concept_id is not None:
        sql += " AND $concept IN n.concept_ids"
        params["concept"] = scope.concept_id
    if scope.item_type is not None:
        sql += " AND n.item_type = $item_type"
        params["item_type"] = str(scope.item_type)
    return sql


def _states(rows: list[list[Any]]) -> list[CardState]:
    return [card_state(json.loads(row[0])) for row in rows]


class CypherCards(ABC):
    """The study reads of `GraphStore` over a Cypher database."""

    @abstractmethod
    def _read(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """Rows of a read-only query."""

    def due_cards(self, now: datetime, scope: StudyScope, *, limit: int) -> list[CardState]:
        params: dict[str, Any] = {
            "approved": _APPROVED,
            "now": time_key(now),
            "limit": max(limit, 0),
        }
        query = (
            "MATCH (n:LearningItem) WHERE n.status = $approved AND n.studied = true "
            "AND n.due_us <= $now" + _scoped(scope, params)
        )
        return _states(
            self._read(query + " RETURN n.data ORDER BY n.due_us, n.id LIMIT $limit", params)
        )

    def new_cards(
        self, scope: StudyScope, *, after: CardState | None = None, limit: int
    ) -> list[CardState]:
        params: dict[str, Any] = {"approved": _APPROVED, "limit": max(limit, 0)}
        query = "MATCH (n:LearningItem) WHERE n.status = $approved AND n.studied = false"
        if after is not None:
            query += _AFTER
            params.update(zip(("rank", "book", "created", "id"), new_card_key(after), strict=True))
        query += _scoped(scope, params) + (
            " RETURN n.data ORDER BY n.card_rank, n.book, n.created_at, n.id LIMIT $limit"
        )
        return _states(self._read(query, params))

    def card_counts(
        self, now: datetime, end_of_day: datetime, scope: StudyScope
    ) -> dict[str, CardCounts]:
        params = count_params(now, end_of_day, time_key)
        query = (
            "MATCH (n:LearningItem) WHERE true" + _scoped(scope, params) + " "
            "WITH n.book AS book, n.status = $approved AS approved, "
            "n.status = $approved AND n.studied = true AS studied, n.state AS state, "
            "n.due_us AS due, n.status = $proposed AS proposed "
            "RETURN book, count(CASE WHEN approved THEN 1 END), "
            "count(CASE WHEN approved AND NOT studied THEN 1 END), "
            "count(CASE WHEN studied AND coalesce(state, 0) <> $review THEN 1 END), "
            "count(CASE WHEN studied AND state = $review THEN 1 END), "
            "count(CASE WHEN studied AND due <= $now THEN 1 END), "
            "count(CASE WHEN studied AND due <= $end THEN 1 END), "
            "count(CASE WHEN proposed THEN 1 END), "
            "min(CASE WHEN studied AND due > $now THEN due END)"
        )
        out: dict[str, CardCounts] = {}
        for book, *counts, next_due in self._read(query, params):
            due = _EPOCH + timedelta(microseconds=next_due) if next_due else None
            out[book] = CardCounts.counted(counts, due)
        return out

    def card_total(
        self, now: datetime, end_of_day: datetime, scope: StudyScope, *, book: str | None = None
    ) -> CardCounts:
        total = CardCounts()
        for name, counts in self.card_counts(now, end_of_day, scope).items():
            if book is None or name == book:
                total.add(counts)
        return total

    def new_card_counts(self, concept_ids: Sequence[str], scope: StudyScope) -> dict[str, int]:
        params: dict[str, Any] = {
            "concepts": list(dict.fromkeys(concept_ids)),
            "approved": _APPROVED,
        }
        query = (
            "MATCH (n:LearningItem) WHERE n.status = $approved AND n.studied = false"
            + _scoped(scope, params)
            + " UNWIND n.concept_ids AS concept WITH DISTINCT n.id AS id, concept "
            "WHERE concept IN $concepts RETURN concept, count(id)"
        )
        return {concept: count for concept, count in self._read(query, params)}

    def review_counts(
        self, *, since: datetime, today: datetime, now: datetime
    ) -> dict[str | None, ReviewCounts]:
        start, checks_from = time_key(today), time_key(since)
        checked = "r.reviewed_us >= $since AND r.state_before = $review"
        rows = self._read(
            "MATCH (r:ReviewLog) WHERE r.reviewed_us >= $first AND r.reviewed_us <= $now "
            "OPTIONAL MATCH (c:Node:LearningItem {id: r.item_id}) "
            "WITH CASE WHEN c.status = $approved THEN c.book END AS book, r "
            "RETURN book, count(CASE WHEN r.reviewed_us >= $today THEN 1 END), "
            "count(CASE WHEN r.reviewed_us >= $today AND r.state_before = 0 THEN 1 END), "
            f"count(CASE WHEN {checked} THEN 1 END), "
            f"count(CASE WHEN {checked} AND r.rating > 1 THEN 1 END)",
            {
                "today": start,
                "since": checks_from,
                "review": REVIEW_STATE,
                "first": min(start, checks_from),
                "now": time_key(now),
                "approved": _APPROVED,
            },
        )
        return {
            book: ReviewCounts(
                today=today_count,
                introduced=introduced,
                recall_checks=checks,
                recalled=recalled,
            )
            for book, today_count, introduced, checks, recalled in rows
        }

    def card_books(self, status: ItemStatus) -> list[str]:
        rows = self._read(
            "MATCH (n:LearningItem) WHERE n.status = $status UNWIND n.content_ids AS book "
            "RETURN DISTINCT book ORDER BY book",
            {"status": str(status)},
        )
        return [row[0] for row in rows]
