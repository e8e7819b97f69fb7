"""services/study.py on a real SQLite store and a fixed clock: scheduling is the `fsrs`
package's own, today's new cards are counted, only approved cards are studied, and retention
is measured on learned cards only."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fsrs import Card, Rating, Scheduler, State

from zettelgraph.models import (
    ChangeSet,
    Content,
    Difficulty,
    ItemStatus,
    ItemType,
    LearningItem,
    learning_item_id,
)
from zettelgraph.services.cards import CardError, ItemFilter
from zettelgraph.services.study import (
    parse_rating,
    rate,
    review_logs,
    scheduler_for,
    study_queue,
)
from zettelgraph.services.study_preview import interval_label, preview
from zettelgraph.services.study_stats import stats
from zettelgraph.settings import Settings
from zettelgraph.store import GraphStore, open_store

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GraphStore]:
    opened = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    yield opened
    opened.close()


def settings(tmp_path: Path, **values: Any) -> Settings:
    return Settings(home=tmp_path, study_fuzz=False, **values)


def card(
    front: str,
    *,
    status: ItemStatus = ItemStatus.APPROVED,
    content: str = "book-a",
    difficulty: Difficulty = Difficulty.EASY,
) -> LearningItem:
    concepts = [f"concept-{front}"]
    return LearningItem(
        id=learning_item_id("flashcard", concepts, front),
        item_type=ItemType.FLASHCARD,
        front=f"¿{front}?",
        back=f"{front}.",
        difficulty=difficulty,
        concept_ids=concepts,
        content_ids=[content],
        status=status,
    )


def add(store: GraphStore, *items: LearningItem) -> None:
    store.apply(ChangeSet(learning_items=list(items)))


def fsrs_replay(
    scheduler: Scheduler, card_id: int, reviews: list[tuple[int, datetime]]
) -> list[Card]:
    """The states the fsrs package gives for these ratings at these moments."""
    state = Card(card_id=card_id, due=reviews[0][1])
    out = []
    for rating, when in reviews:
        state, _ = scheduler.review_card(state, Rating(rating), review_datetime=when)
        out.append(state)
    return out


@pytest.mark.parametrize("retention", [0.9, 0.8])
def test_due_dates_are_the_fsrs_packages_own(
    store: GraphStore, tmp_path: Path, retention: float
) -> None:
    chosen = settings(tmp_path, study_retention=retention)
    item = card("memoria")
    add(store, item)
    scheduler = scheduler_for(chosen)
    # Again, then good through the learning steps, then each review a day after it was due
    # (good, hard, again: a lapse into relearning, good, easy).
    ratings = [1, 3, 3, 3, 2, 1, 3, 4]
    moments = []
    when = T0
    for rating in ratings:
        moments.append(when)
        studied = rate(store, scheduler, item.id, rating, now=when, duration_ms=4000)
        due = studied.item.due
        assert due is not None
        # Learning steps are taken when due; reviews a day late, as a reader would.
        when = due if due - when < timedelta(hours=1) else due + timedelta(days=1)

    expected = fsrs_replay(
        Scheduler(enable_fuzzing=False, desired_retention=retention),
        Card.from_dict(studied.item.schedule).card_id,  # type: ignore[arg-type]
        list(zip(ratings, moments, strict=True)),
    )
    (stored,) = store.get_learning_items([item.id])
    assert stored.schedule == dict(expected[-1].to_dict())
    assert stored.due == expected[-1].due
    logs = sorted(store.review_logs(item.id), key=lambda log: log.reviewed_at)
    assert [log.rating for log in logs] == ratings
    assert [log.due for log in logs] == [state.due for state in expected]
    assert [log.state_before for log in logs] == [
        None,
        *(int(state.state) for state in expected[:-1]),
    ]
    assert all(log.duration_ms == 4000 for log in logs)
    assert State.Relearning in {state.state for state in expected}  # the lapse was exercised


def test_preview_is_what_each_rating_gives(store: GraphStore, tmp_path: Path) -> None:
    scheduler = scheduler_for(settings(tmp_path))
    item = card("atención")
    add(store, item)
    shown = preview(scheduler, item, now=T0)
    assert [interval_label(shown[r]) for r in (1, 2, 3, 4)] == ["1m", "6m", "10m", "8d"]
    for rating in (1, 2, 3, 4):
        fresh = card(f"atención {rating}")
        add(store, fresh)
        studied = rate(store, scheduler, fresh.id, rating, now=T0)
        assert studied.item.due == T0 + shown[rating]


def test_new_cards_per_day_and_due_first(store: GraphStore, tmp_path: Path) -> None:
    chosen = settings(tmp_path, study_new_per_day=2)
    scheduler = scheduler_for(chosen)
    cards = [
        card(f"idea {n}", difficulty=Difficulty.HARD if n == 0 else Difficulty.EASY)
        for n in range(5)
    ]
    add(store, *cards)

    first = study_queue(store, chosen, now=T0)
    assert first.due == [] and len(first.new) == 2
    assert cards[0] not in first.new  # easy before hard
    rate(store, scheduler, first.new[0].id, 3, now=T0)

    later = study_queue(store, chosen, now=T0 + timedelta(minutes=11))
    assert [i.id for i in later.due] == [first.new[0].id]  # due before new
    assert len(later.new) == 1  # one of today's two is used
    assert later.items == [*later.due, *later.new]
    assert len(study_queue(store, chosen, now=T0, new_limit=4).new) == 3
    # A new day, a new allowance.
    assert len(study_queue(store, chosen, now=T0 + timedelta(days=1)).new) == 2
    # One book's cards only.
    add(store, card("otra", content="book-b"))
    other = study_queue(store, chosen, now=T0, which=ItemFilter(content_id="book-b"))
    assert [i.front for i in other.items] == ["¿otra?"]


def test_only_approved_cards_are_studied(store: GraphStore, tmp_path: Path) -> None:
    chosen = settings(tmp_path)
    proposed = card("propuesta", status=ItemStatus.PROPOSED)
    dropped = card("descartada", status=ItemStatus.DROPPED)
    approved = card("aprobada")
    add(store, proposed, dropped, approved)
    assert [i.id for i in study_queue(store, chosen, now=T0).items] == [approved.id]

    for item in (proposed, dropped):
        with pytest.raises(CardError, match="approve it"):
            rate(store, scheduler_for(chosen), item.id, 3, now=T0)
        assert store.get_learning_items([item.id]) == [item]
    assert list(review_logs(store)) == []
    with pytest.raises(CardError, match="1 \\(again\\)"):
        rate(store, scheduler_for(chosen), approved.id, 5, now=T0)
    assert store.get_learning_items([approved.id]) == [approved]


def test_retention_counts_learned_cards_only(store: GraphStore, tmp_path: Path) -> None:
    scheduler = scheduler_for(settings(tmp_path))
    store.apply(ChangeSet(contents=[Content(id="book-a", title="Walden")]))
    remembered, forgotten, learning, gone = (card(n) for n in ("sí", "no", "aún", "fuera"))
    add(store, remembered, forgotten, learning, gone)

    def graduate(item: LearningItem) -> datetime:
        """Good through the learning steps: a review card; when it is due."""
        moment = T0
        for _ in range(2):
            moment = rate(store, scheduler, item.id, 3, now=moment).item.due or moment
        return moment

    due = graduate(remembered)
    assert graduate(forgotten) == due
    graduate(gone)
    rate(store, scheduler, remembered.id, 3, now=due)
    rate(store, scheduler, forgotten.id, 1, now=due)
    rate(store, scheduler, gone.id, 1, now=due)
    # Forgetting while still learning is not a lapse of something learned.
    rate(store, scheduler, learning.id, 1, now=T0)
    rate(store, scheduler, learning.id, 1, now=T0 + timedelta(minutes=2))
    store.apply(
        ChangeSet(
            learning_items=[
                store.get_learning_items([gone.id])[0].model_copy(
                    update={"status": ItemStatus.DROPPED}
                )
            ]
        )
    )

    data = stats(store, now=due + timedelta(minutes=1)).as_dict()
    assert (data["retention"], data["retention_reviews"]) == (0.5, 2)
    assert data["approved"] == 3 and data["new"] == 0
    assert data["review"] == 1 and data["learning"] == 2  # `forgotten` relearns
    assert [(b["title"], b["retention"]) for b in data["books"]] == [("Walden", 0.5)]
    # Thirty days on, those reviews are out of the window.
    assert stats(store, now=due + timedelta(days=31)).as_dict()["retention"] is None


@pytest.mark.parametrize(
    ("given", "value"), [("1", 1), (" Good ", 3), ("EASY", 4), (2, 2), ("again", 1)]
)
def test_parse_rating(given: str | int, value: int) -> None:
    assert parse_rating(given) == value


@pytest.mark.parametrize("given", ["0", "5", "bien", ""])
def test_parse_rating_refuses(given: str) -> None:
    with pytest.raises(CardError, match="again, hard, good, easy"):
        parse_rating(given)


def test_new_cards_of_one_concept_are_spread_apart(store: GraphStore, tmp_path: Path) -> None:
    def of(concept: str, front: str, kind: ItemType, created: int) -> LearningItem:
        return LearningItem(
            id=learning_item_id(str(kind), [concept], front),
            item_type=kind,
            front=front,
            back="x",
            concept_ids=[concept],
            content_ids=["book-a"],
            status=ItemStatus.APPROVED,
            created_at=T0 + timedelta(seconds=created),
        )

    # Made as generation makes them: a concept's flashcard and cloze one after the other.
    add(
        store,
        of("paciencia", "¿Qué falta a quien abandona?", ItemType.FLASHCARD, 0),
        of("paciencia", "Quien no sabe [...] no verá crecer nada.", ItemType.CLOZE, 1),
        of("libertad", "¿Qué vale más que los tesoros?", ItemType.FLASHCARD, 2),
        of("libertad", "La [...], Sancho, es uno de los más preciosos dones.", ItemType.CLOZE, 3),
    )

    queue = study_queue(store, settings(tmp_path), now=T0 + timedelta(hours=1))

    assert [item.concept_ids[0] for item in queue.new] == [
        "paciencia",
        "libertad",
        "paciencia",
        "libertad",
    ]
