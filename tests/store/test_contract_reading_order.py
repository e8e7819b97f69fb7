"""The GraphStore contract for a Content's reading order: passages joined by `NEXT`, walked
by `passages_around` (the passage in context), kept consistent by deletions. Every backend
must pass these, through the protocol only."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import pytest

from zettelgraph.models import ChangeSet, Quote
from zettelgraph.packs.relations import NEXT
from zettelgraph.store import GraphStore

if TYPE_CHECKING:
    from conftest import Builders

TEXTS = (
    "El ejercicio aeróbico mejora la memoria.",
    "Moverse es la mejor medicina para el cerebro.",
    "El estrés crónico daña el hipocampo.",
    "Dormir poco borra lo aprendido.",
    "La siesta breve despeja la mente.",
)


def chained_book(store: GraphStore, make: Builders) -> list[Quote]:
    """A book of five passages, each `NEXT` to the one after it, written in one change set."""
    book = make.book(quotes=TEXTS)
    quotes = book.quotes
    chain = [make.relation(a.id, NEXT, b.id) for a, b in itertools.pairwise(quotes)]
    store.apply(book.model_copy(update={"relations": [*book.relations, *chain]}))
    return quotes


def texts(quotes: list[Quote]) -> list[str]:
    return [q.text for q in quotes]


def test_passages_around_walk_next_both_ways_in_reading_order(
    store: GraphStore, make: Builders
) -> None:
    q = chained_book(store, make)

    assert texts(store.passages_around(q[2].id)) == list(TEXTS[1:4])
    assert texts(store.passages_around(q[2].id, before=2, after=0)) == list(TEXTS[0:3])
    assert texts(store.passages_around(q[2].id, before=0, after=0)) == [TEXTS[2]]
    # The ends of the chain: nothing before the first, nothing after the last.
    assert texts(store.passages_around(q[0].id, before=3, after=1)) == list(TEXTS[0:2])
    assert texts(store.passages_around(q[4].id, before=1, after=5)) == list(TEXTS[3:5])
    assert store.passages_around(q[1].id, before=20, after=20) == store.quotes_of(q[0].content_id)


def test_passages_around_an_unknown_passage_or_another_node_is_empty(
    store: GraphStore, make: Builders
) -> None:
    q = chained_book(store, make)

    assert store.passages_around("no-such-passage") == []
    assert store.passages_around(q[0].content_id) == []


@pytest.mark.parametrize(("before", "after"), [(-1, 1), (1, 21)])
def test_passages_around_refuses_a_walk_out_of_bounds(
    store: GraphStore, make: Builders, before: int, after: int
) -> None:
    q = chained_book(store, make)

    with pytest.raises(ValueError, match="between 0 and 20 passages"):
        store.passages_around(q[0].id, before=before, after=after)


def test_a_new_reading_replaces_the_chain_and_a_deleted_passage_takes_its_edges(
    store: GraphStore, make: Builders
) -> None:
    q = chained_book(store, make)
    # Re-read without the middle passage: its two edges go, one joins its neighbours.
    store.apply(
        ChangeSet(
            relations=[make.relation(q[1].id, NEXT, q[3].id)],
            delete_relations=[(q[1].id, NEXT, q[2].id), (q[2].id, NEXT, q[3].id)],
        )
    )
    assert texts(store.passages_around(q[3].id, before=3, after=0)) == [
        TEXTS[0],
        TEXTS[1],
        TEXTS[3],
    ]
    assert texts(store.passages_around(q[2].id, before=3, after=3)) == [TEXTS[2]]

    # Removing the whole content (as `contents remove` does) leaves no NEXT edge behind.
    store.apply(ChangeSet(delete_ids=[*(quote.id for quote in q), q[0].content_id]))
    assert store.relations(relation_type=NEXT) == []
    assert store.passages_around(q[3].id) == []
