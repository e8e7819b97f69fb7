"""The order of new cards (services/study_order.py): what must be understood first comes
first, through concepts without cards too; otherwise easy before hard and siblings apart; a
circle of prerequisites holds nothing back. On a real SQLite store for the one read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from new_cards import new_card as card
from zettelgraph.models import ChangeSet, Concept, Difficulty, LearningItem, Relation
from zettelgraph.packs.relations import DEFAULT_VOCABULARY, PREREQUISITE_FOR
from zettelgraph.services.study_order import needs_first, new_order
from zettelgraph.store import GraphStore, open_store


def order(cards: list[LearningItem], needs: dict[str, set[str]]) -> list[str]:
    return [c.id for c in new_order(cards, {k: frozenset(v) for k, v in needs.items()})]


def test_a_prerequisites_cards_come_before_the_cards_that_need_it() -> None:
    cards = [card("derivada", n=0), card("derivada", n=1), card("límite", Difficulty.HARD)]
    assert order(cards, {}) == ["derivada-0", "derivada-1", "límite-0"]
    assert order(cards, {"derivada": {"límite"}}) == ["límite-0", "derivada-0", "derivada-1"]


def test_the_need_passes_through_a_concept_without_cards() -> None:
    # integral needs derivada, which needs límite; derivada has no card.
    cards = [card("integral"), card("límite", Difficulty.MEDIUM), card("otra", Difficulty.HARD)]
    needs = {"integral": {"derivada"}, "derivada": {"límite"}}
    assert order(cards, needs) == ["límite-0", "integral-0", "otra-0"]


def test_otherwise_the_plain_order_holds() -> None:
    # Siblings apart and easy before hard are untouched by an unrelated prerequisite.
    cards = [card("a", n=0), card("a", n=1), card("b", n=2), card("c", Difficulty.HARD, n=3)]
    assert order(cards, {"x": {"y"}}) == ["a-0", "b-2", "a-1", "c-3"]
    # A card waits only as long as its prerequisite's cards are unplaced.
    assert order(cards, {"b": {"c"}}) == ["a-0", "a-1", "c-3", "b-2"]


def test_a_circle_of_prerequisites_holds_nothing_back() -> None:
    cards = [card("a"), card("b", Difficulty.MEDIUM), card("c", Difficulty.HARD)]
    assert order(cards, {"a": {"b"}, "b": {"a"}}) == ["a-0", "b-0", "c-0"]
    # c needs a, which is in a circle with b: c still waits for a.
    assert order([card("c"), card("a", Difficulty.HARD)], {"c": {"a"}, "a": {"b"}, "b": {"a"}}) == [
        "a-0",
        "c-0",
    ]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GraphStore]:
    opened = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    yield opened
    opened.close()


def concept(title: str) -> Concept:
    return Concept(
        id=f"{title}-id",
        title=title,
        concept=f"{title}.",
        summary=f"{title}.",
        summary_short=f"{title}.",
    )


def test_needs_first_reads_the_stored_prerequisites(store: GraphStore) -> None:
    limit, derivative, integral = concept("límite"), concept("derivada"), concept("integral")
    given = [
        Relation(source_id=limit.id, target_id=derivative.id, type=PREREQUISITE_FOR),
        Relation(source_id=derivative.id, target_id=integral.id, type=PREREQUISITE_FOR),
        Relation(source_id=limit.id, target_id=integral.id, type="SIMILAR_TO"),
    ]
    store.apply(
        ChangeSet(
            concepts=[limit, derivative, integral],
            relations=DEFAULT_VOCABULARY.with_reverses(given),
        )
    )
    assert needs_first(store) == {
        derivative.id: frozenset({limit.id}),
        integral.id: frozenset({derivative.id}),
    }
