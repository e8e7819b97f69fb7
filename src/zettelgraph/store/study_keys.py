"""What every backend indexes of a card and a rating for the study reads (`GraphStore.due_cards`,
`new_cards`, `card_counts`, `review_counts`): the same fields, computed once here, so SQLite's
`cards` table and the Cypher nodes' properties sort and count alike."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from fsrs import State

from zettelgraph.models import DIFFICULTY_RANK, CardState, ItemStatus, LearningItem, ReviewLog
from zettelgraph.store.rules import sortable_time

# FSRS's review state (a card learned); learning and relearning count as learning.
REVIEW_STATE = int(State.Review)


def time_key(moment: datetime) -> int:
    """`moment` as microseconds since 1970 UTC (a naive one taken as UTC): what a Cypher
    store compares and sorts times by. FalkorDB's range index answers `<=` on text wrongly
    (every indexed value matched), on numbers rightly.

    Args:
        moment: a time.

    Returns:
        The whole microseconds since the epoch.
    """
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - _EPOCH) // _MICROSECOND


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def count_params(
    now: datetime, end_of_day: datetime, key: Callable[[datetime], Any]
) -> dict[str, Any]:
    """The parameters every store's card counts read: the statuses counted, FSRS's review
    state, and the two moments (due now, due today) as that store compares times (`key`:
    `sortable_time` on SQLite, `time_key` on a Cypher store)."""
    return {
        "approved": str(ItemStatus.APPROVED),
        "proposed": str(ItemStatus.PROPOSED),
        "review": REVIEW_STATE,
        "now": key(now),
        "end": key(end_of_day),
    }


def new_card_key(card: CardState | LearningItem) -> tuple[int, str, str, str]:
    """The order new cards come out of the store in: easy before hard, then by book (first
    content id, none first), creation time (UTC text, which sorts as time) and id.

    Args:
        card: a card, whole or as its study state.

    Returns:
        (difficulty rank, first content id or "", creation time as sortable text, id).
    """
    book = card.content_ids[0] if card.content_ids else ""
    return DIFFICULTY_RANK[card.difficulty], book, sortable_time(card.created_at), card.id


def card_fields(item: LearningItem) -> dict[str, Any]:
    """The fields of a card the study reads select, sort and count by.

    Args:
        item: the card as stored.

    Returns:
        `status`, `studied` (ever rated: it has an FSRS schedule), `state` (the FSRS state,
        None when never rated), `due` (sortable UTC text or None) and `due_us` (`time_key`
        or None), `card_rank` and `book`
        and `created_at` (`new_card_key`), `item_type`, `content_ids` and `concept_ids`.
    """
    rank, book, created, _ = new_card_key(item)
    state = item.schedule.get("state") if item.schedule else None
    return {
        "status": str(item.status),
        "studied": bool(item.schedule),
        "state": int(state) if state is not None else None,
        "due": sortable_time(item.due) if item.due is not None else None,
        "due_us": time_key(item.due) if item.due is not None else None,
        "card_rank": rank,
        "book": book,
        "created_at": created,
        "item_type": str(item.item_type),
        "content_ids": list(item.content_ids),
        "concept_ids": list(item.concept_ids),
    }


def review_fields(log: ReviewLog) -> dict[str, Any]:
    """The fields of a rating the study counts read.

    Args:
        log: the rating.

    Returns:
        `item_id`, `reviewed_at` (sortable UTC text) and `reviewed_us` (`time_key`),
        `rating` and `state_before` (0 for a
        card seen for the first time, so that a missing value means "not indexed yet").
    """
    return {
        "item_id": log.item_id,
        "reviewed_at": sortable_time(log.reviewed_at),
        "reviewed_us": time_key(log.reviewed_at),
        "rating": log.rating,
        "state_before": log.state_before or 0,
    }
