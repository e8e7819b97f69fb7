"""The store's study reads on every backend: cards by status and due date (`due_cards`,
`new_cards`), their counts per book (`card_counts`, `new_card_counts`), the ratings of a window
(`review_counts`) and the books cited (`card_books`), answered by the database from what it
indexes of each card, so that a Study page over 100,000 cards never reads the deck."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from zettelgraph.models import (
    CardCounts,
    ChangeSet,
    Difficulty,
    ItemStatus,
    ItemType,
    LearningItem,
    ReviewCounts,
    ReviewLog,
    StudyScope,
    review_log_id,
)
from zettelgraph.store import GraphStore

NOW = datetime(2026, 11, 3, 12, 0, tzinfo=UTC)
MADRID = timezone(timedelta(hours=1))
EVERY = StudyScope()


def _card(card_id: str, **fields: Any) -> LearningItem:
    """An approved new card of book-a testing concept `c-<id>`, made at NOW."""
    values: dict[str, Any] = {
        "item_type": ItemType.FLASHCARD,
        "front": f"¿{card_id}?",
        "back": "Sí.",
        "concept_ids": [f"c-{card_id}"],
        "content_ids": ["book-a"],
        "status": ItemStatus.APPROVED,
        "created_at": NOW,
        **fields,
    }
    return LearningItem(id=card_id, **values)


def _studied(card_id: str, due: datetime, state: int = 2, **fields: Any) -> LearningItem:
    return _card(card_id, schedule={"card_id": 1, "state": state}, due=due, **fields)


def _ids(cards: list[Any]) -> list[str]:
    return [card.id for card in cards]


def test_due_cards_are_the_approved_studied_ones_due_by_now_oldest_first(
    store: GraphStore,
) -> None:
    cards = [
        # Due an hour ago, written in another zone: ordered by the moment, not the text.
        _studied("b-madrid", (NOW - timedelta(hours=1)).astimezone(MADRID)),
        _studied("c-older", NOW - timedelta(hours=2)),
        _studied("a-same", NOW - timedelta(hours=1)),  # same moment as b-madrid: by id
        _studied("d-exactly", NOW),
        _studied("later", NOW + timedelta(seconds=1)),
        _studied("proposed", NOW - timedelta(days=1), status=ItemStatus.PROPOSED),
        _studied("other-book", NOW - timedelta(days=2), content_ids=["book-b", "book-a"]),
        _studied("cloze", NOW - timedelta(days=3), item_type=ItemType.CLOZE),
        _card("new"),
    ]
    store.apply(ChangeSet(learning_items=cards))
    every = ["cloze", "other-book", "c-older", "a-same", "b-madrid", "d-exactly"]
    assert _ids(store.due_cards(NOW, EVERY, limit=50)) == every
    assert _ids(store.due_cards(NOW, EVERY, limit=2)) == every[:2]
    # A book is any of the card's books; a kind and a concept narrow it.
    assert _ids(store.due_cards(NOW, StudyScope(content_id="book-b"), limit=50)) == ["other-book"]
    assert _ids(store.due_cards(NOW, StudyScope(item_type=ItemType.CLOZE), limit=50)) == ["cloze"]
    assert _ids(store.due_cards(NOW, StudyScope(concept_id="c-a-same"), limit=50)) == ["a-same"]
    # What is read is each card's study state, as card_states has it.
    states = {state.id: state for state in store.card_states()}
    assert store.due_cards(NOW, EVERY, limit=50) == [states[card_id] for card_id in every]


def test_new_cards_come_easy_first_then_by_book_and_age_page_by_page(store: GraphStore) -> None:
    hour = timedelta(hours=1)
    cards = [
        _card("hard", difficulty=Difficulty.HARD),
        _card("medium", difficulty=Difficulty.MEDIUM),
        _card("b-book", content_ids=["book-b"]),
        _card("a-young", created_at=NOW + hour),
        # An hour older than a-young, written in another zone.
        _card("z-old", created_at=NOW.astimezone(MADRID)),
        _card("no-book", content_ids=[], quote_ids=["q"]),
        _studied("studied", NOW),
        _card("proposed", status=ItemStatus.PROPOSED),
    ]
    store.apply(ChangeSet(learning_items=cards))
    order = ["no-book", "z-old", "a-young", "b-book", "medium", "hard"]
    assert _ids(store.new_cards(EVERY, limit=50)) == order
    pages, after = [], None
    while page := store.new_cards(EVERY, after=after, limit=2):
        pages.append(_ids(page))
        after = page[-1]
    assert pages == [order[0:2], order[2:4], order[4:6]]
    assert _ids(store.new_cards(StudyScope(content_id="book-b"), limit=50)) == ["b-book"]


def test_card_counts_are_per_first_book(store: GraphStore) -> None:
    soon = NOW + timedelta(hours=3)
    cards = [
        _studied("due", NOW - timedelta(days=1)),
        _studied("today", soon),
        _studied("learning", NOW + timedelta(days=3), state=1),
        _card("new"),
        _card("proposed", status=ItemStatus.PROPOSED),
        _studied("dropped", NOW, status=ItemStatus.DROPPED),
        _card("b-new", content_ids=["book-b", "book-a"]),
        _card("no-book", content_ids=[], quote_ids=["q"], status=ItemStatus.PROPOSED),
    ]
    store.apply(ChangeSet(learning_items=cards))
    counts = store.card_counts(NOW, NOW + timedelta(hours=12), EVERY)
    assert counts == {
        "book-a": CardCounts(
            approved=4,
            new=1,
            learning=1,
            review=2,
            due_now=1,
            due_today=2,
            proposed=1,
            next_due=soon,
        ),
        "book-b": CardCounts(approved=1, new=1),
        "": CardCounts(proposed=1),
    }
    # card_total: the same counts summed, or of one first book, without grouping.
    summed = CardCounts()
    for book_counts in counts.values():
        summed.add(book_counts)
    assert store.card_total(NOW, NOW + timedelta(hours=12), EVERY) == summed
    assert store.card_total(NOW, NOW, EVERY, book="book-b") == CardCounts(approved=1, new=1)
    # A scope counts the cards it takes, still per first book.
    assert store.card_counts(NOW, NOW, StudyScope(content_id="book-a")).keys() == {
        "book-a",
        "book-b",
    }
    assert store.new_card_counts(["c-new", "c-b-new", "c-due", "c-x"], EVERY) == {
        "c-new": 1,
        "c-b-new": 1,
    }
    assert store.new_card_counts(["c-new"], StudyScope(content_id="book-b")) == {}


def test_a_scopes_totals_are_the_sums_over_the_cards_it_takes(store: GraphStore) -> None:
    soon = NOW + timedelta(hours=3)
    cards = [
        _studied("due", NOW - timedelta(days=1), content_ids=["book-b", "book-a"]),
        _studied("today", soon, concept_ids=["c-x"]),
        _studied("learning", NOW + timedelta(days=3), state=1, concept_ids=["c-x", "c-y"]),
        _studied("cloze", NOW - timedelta(hours=1), item_type=ItemType.CLOZE),
        _card("new", concept_ids=["c-x"]),
        _card("b-new", content_ids=["book-b"], concept_ids=["c-x"]),
        _card("proposed", status=ItemStatus.PROPOSED, concept_ids=["c-x"]),
        _studied("dropped", NOW, status=ItemStatus.DROPPED, concept_ids=["c-x"]),
    ]
    store.apply(ChangeSet(learning_items=cards))
    end = NOW + timedelta(hours=12)
    for scope in (
        StudyScope(content_id="book-a"),
        StudyScope(content_id="book-b"),
        StudyScope(concept_id="c-x"),
        StudyScope(content_id="book-a", concept_id="c-x"),
        StudyScope(content_id="book-a", item_type=ItemType.CLOZE),
        StudyScope(content_id="book-z"),
    ):
        summed = CardCounts()
        for book_counts in store.card_counts(NOW, end, scope).values():
            summed.add(book_counts)
        assert store.card_total(NOW, end, scope) == summed, scope
    assert store.card_total(NOW, end, StudyScope(concept_id="c-x")) == CardCounts(
        approved=4, new=2, learning=1, review=1, due_today=1, proposed=1, next_due=soon
    )
    assert store.card_total(NOW, end, StudyScope(content_id="book-z")) == CardCounts()
    # The concepts' new cards, of one book or of every book.
    assert store.new_card_counts(["c-x", "c-y"], StudyScope(content_id="book-a")) == {"c-x": 1}
    assert store.new_card_counts(["c-x", "c-y"], EVERY) == {"c-x": 2}
    both = StudyScope(content_id="book-b", concept_id="c-x")
    assert store.new_card_counts(["c-x"], both) == {"c-x": 1}
    assert _ids(store.new_cards(both, limit=10)) == ["b-new"]


def test_review_counts_are_per_book_of_approved_cards(store: GraphStore) -> None:
    cards = [_studied("kept", NOW), _studied("b-kept", NOW, content_ids=["book-b"])]
    cards.append(_studied("dropped", NOW, status=ItemStatus.DROPPED))

    def log(card_id: str, when: datetime, rating: int, before: int | None) -> ReviewLog:
        return ReviewLog(
            id=review_log_id(card_id, when),
            item_id=card_id,
            rating=rating,
            reviewed_at=when,
            state_before=before,
        )

    today = datetime(2026, 11, 3, tzinfo=UTC)
    logs = [
        log("kept", NOW - timedelta(hours=1), 3, None),  # today, a first rating
        log("kept", (NOW - timedelta(minutes=30)).astimezone(MADRID), 1, 2),  # today, a lapse
        log("kept", NOW - timedelta(days=3), 3, 2),  # a recall check before today
        log("kept", NOW - timedelta(days=40), 3, 2),  # out of the window
        log("kept", NOW + timedelta(minutes=1), 3, 2),  # after now
        log("b-kept", NOW - timedelta(days=1), 4, 2),
        log("dropped", NOW - timedelta(hours=2), 3, None),
        log("deleted", NOW - timedelta(hours=2), 3, None),
    ]
    store.apply(ChangeSet(learning_items=cards, review_logs=logs))
    counts = store.review_counts(since=NOW - timedelta(days=30), today=today, now=NOW)
    assert counts == {
        "book-a": ReviewCounts(today=2, introduced=1, recall_checks=2, recalled=1),
        "book-b": ReviewCounts(recall_checks=1, recalled=1),
        None: ReviewCounts(today=2, introduced=2),
    }


def test_card_books_are_every_book_cited_by_cards_of_a_status(store: GraphStore) -> None:
    cards = [
        _card("a", content_ids=["book-c", "book-a"]),
        _card("b", content_ids=["book-a"]),
        _card("p", content_ids=["book-p"], status=ItemStatus.PROPOSED),
    ]
    store.apply(ChangeSet(learning_items=cards))
    assert store.card_books(ItemStatus.APPROVED) == ["book-a", "book-c"]
    assert store.card_books(ItemStatus.PROPOSED) == ["book-p"]


def test_the_study_reads_follow_ratings_edits_and_deletions(store: GraphStore) -> None:
    card = _card("card")
    store.apply(ChangeSet(learning_items=[card]))
    assert _ids(store.new_cards(EVERY, limit=5)) == ["card"]
    due = NOW - timedelta(minutes=5)
    rated = card.model_copy(update={"schedule": {"card_id": 1, "state": 1}, "due": due})
    rating = ReviewLog(id=review_log_id(card.id, due), item_id=card.id, rating=3, reviewed_at=due)
    assert store.record_rating(card, rated, rating)
    assert store.new_cards(EVERY, limit=5) == []
    assert _ids(store.due_cards(NOW, EVERY, limit=5)) == ["card"]
    assert store.review_counts(since=due, today=due, now=NOW)["book-a"].introduced == 1
    store.apply(ChangeSet(learning_items=[rated.model_copy(update={"content_ids": ["book-b"]})]))
    assert store.card_books(ItemStatus.APPROVED) == ["book-b"]
    store.apply(ChangeSet(delete_ids=[card.id, rating.id]))
    assert store.due_cards(NOW, EVERY, limit=5) == []
    assert store.card_counts(NOW, NOW, EVERY) == {}
    assert store.review_counts(since=due, today=due, now=NOW) == {}
