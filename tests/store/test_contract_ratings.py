"""The store's compare-and-set for a study rating (`GraphStore.record_rating`), on every
backend: a card is rated only from the state the rating saw, so a card shown once is rated
once, however many ratings of it arrive together."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from zettelgraph.models import (
    ChangeSet,
    ItemStatus,
    ItemType,
    LearningItem,
    NodeLabel,
    ReviewLog,
    learning_item_id,
    review_log_id,
)
from zettelgraph.store import GraphStore

if TYPE_CHECKING:
    from conftest import Builders

WHEN = datetime(2026, 11, 3, 8, 0, tzinfo=UTC)


def _card(store: GraphStore, make: Builders, **fields: Any) -> LearningItem:
    """An approved card, stored with its book and concept."""
    book = make.book()
    concepts = make.concepts_for(book)
    store.apply(book)
    store.apply(concepts)
    values: dict[str, Any] = {
        "item_type": ItemType.FLASHCARD,
        "front": "¿Qué mejora el ejercicio aeróbico?",
        "back": "La memoria.",
        "concept_ids": [concepts.concepts[0].id],
        "quote_ids": [book.quotes[0].id],
        "status": ItemStatus.APPROVED,
        **fields,
    }
    item = LearningItem(
        id=learning_item_id(str(values["item_type"]), values["concept_ids"], values["front"]),
        **values,
    )
    store.apply(ChangeSet(learning_items=[item]))
    return item


def _rating(item: LearningItem, when: datetime, days: int = 4) -> tuple[LearningItem, ReviewLog]:
    """`item` after a rating at `when` (due `days` later), and the rating's log."""
    due = when + timedelta(days=days)
    schedule = {"card_id": 1, "state": 2, "last_review": when.isoformat(), "due": due.isoformat()}
    rated = item.model_copy(update={"schedule": schedule, "due": due})
    log = ReviewLog(
        id=review_log_id(item.id, when), item_id=item.id, rating=3, reviewed_at=when, due=due
    )
    return rated, log


def test_a_rating_is_recorded_only_from_the_state_it_saw(store: GraphStore, make: Builders) -> None:
    shown = _card(store, make)  # never studied: no due date
    rated, log = _rating(shown, WHEN)
    assert store.record_rating(shown, rated, log) is True
    assert store.get_learning_items([shown.id]) == [rated]
    assert store.review_logs(shown.id) == [log]
    # The same shown card rated again (a double click, a second process): nothing written.
    again, again_log = _rating(shown, WHEN + timedelta(seconds=1), days=1)
    assert store.record_rating(shown, again, again_log) is False
    assert store.get_learning_items([shown.id]) == [rated]
    assert store.review_logs(shown.id) == [log]
    assert store.counts()["ReviewLog"] == 1
    # A rating of the card as it is now is the next one.
    later, later_log = _rating(rated, WHEN + timedelta(days=4), days=9)
    assert store.record_rating(rated, later, later_log) is True
    assert store.get_learning_items([shown.id]) == [later]
    assert store.review_logs(shown.id) == [log, later_log]


def test_a_due_date_in_another_offset_compares_as_stored(store: GraphStore, make: Builders) -> None:
    """A due date kept with its offset and microseconds is the same state when read back."""
    due = datetime(2026, 12, 1, 9, 30, 5, 123456, tzinfo=timezone(timedelta(hours=1)))
    shown = _card(store, make, schedule={"card_id": 1, "state": 2}, due=due)
    [read] = store.get_learning_items([shown.id])
    rated, log = _rating(read, WHEN)
    assert store.record_rating(read, rated, log) is True
    assert store.get_learning_items([shown.id]) == [rated]


def test_a_card_dropped_or_gone_is_not_rated(store: GraphStore, make: Builders) -> None:
    shown = _card(store, make)
    dropped = shown.model_copy(update={"status": ItemStatus.DROPPED})
    store.apply(ChangeSet(learning_items=[dropped]))
    rated, log = _rating(shown, WHEN)
    assert store.record_rating(shown, rated, log) is False
    assert store.get_learning_items([shown.id]) == [dropped]
    gone = shown.model_copy(update={"id": "no-such-card"})
    rated, log = _rating(gone, WHEN)
    assert store.record_rating(gone, rated, log) is False
    assert store.get_learning_items(["no-such-card"]) == []
    assert store.nodes(NodeLabel.REVIEW_LOG) == []


def test_ratings_of_one_shown_card_sent_together_store_one(
    store: GraphStore, make: Builders
) -> None:
    shown = _card(store, make)
    start = threading.Barrier(6)
    won: list[bool] = []

    def rate(second: int) -> None:
        rated, log = _rating(shown, WHEN + timedelta(seconds=second), days=second + 1)
        start.wait()
        won.append(store.record_rating(shown, rated, log))

    threads = [threading.Thread(target=rate, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(won) == [False] * 5 + [True]
    [log] = store.review_logs(shown.id)
    assert store.get_learning_items([shown.id])[0].due == log.due


def test_card_states_are_what_the_study_rules_read(store: GraphStore, make: Builders) -> None:
    """`card_states`: every card's status, type, difficulty, books, concepts, FSRS state and
    due (as the same instant, whatever offset it was written with), in id order, no text."""
    new = _card(store, make, front="¿Qué es la neurogénesis?", content_ids=["c1"])
    rated, log = _rating(_card(store, make, difficulty="hard"), WHEN)
    later = rated.model_copy(update={"due": WHEN.astimezone(timezone(timedelta(hours=-5)))})
    store.record_rating(rated.model_copy(update={"schedule": {}, "due": None}), later, log)
    states = {state.id: state for state in store.card_states()}
    assert [s.id for s in store.card_states()] == sorted(states)
    fresh, studied = states[new.id], states[rated.id]
    assert (fresh.status, fresh.item_type, fresh.difficulty) == (
        ItemStatus.APPROVED,
        ItemType.FLASHCARD,
        "easy",
    )
    assert (fresh.content_ids, fresh.concept_ids, fresh.schedule, fresh.due) == (
        ["c1"],
        new.concept_ids,
        {},
        None,
    )
    assert fresh.created_at == new.created_at
    assert studied.difficulty == "hard"
    assert studied.schedule == {"state": 2}
    assert studied.due == WHEN


def test_a_card_made_from_a_passage_reads_back_citing_it(store: GraphStore, make: Builders) -> None:
    """A card made straight from a passage (issue 31) tests no concept: it reads back whole,
    and its study state names its passage as what it is about (siblings are kept apart)."""
    passage = _card(store, make, item_type=ItemType.CODE_COMPLETION, concept_ids=[])
    assert store.get_learning_items([passage.id]) == [passage]
    concept_card = _card(store, make, front="¿Qué es la neurogénesis?")
    states = {state.id: state for state in store.card_states()}
    assert (
        states[passage.id].concept_ids == [] and states[passage.id].item_type == "code_completion"
    )
    assert states[passage.id].subject_ids == passage.quote_ids
    assert states[concept_card.id].subject_ids == concept_card.concept_ids
