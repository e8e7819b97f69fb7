"""The GraphStore contract for the reads pages make in one query instead of one per row
(`relation_counts`, `relations_of`, `get_concepts`): every backend must pass these, through
the protocol only."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from zettelgraph.models import ChangeSet, Concept, Content
from zettelgraph.packs.relations import QUOTED_IN, SUPPORTS
from zettelgraph.store import GraphStore

if TYPE_CHECKING:
    from conftest import Builders


def small_graph(store: GraphStore, make: Builders) -> tuple[Content, list[Concept]]:
    """A book whose first quote supports three concepts: a GENERALIZES b (and b SPECIFIC_OF
    a), a SIMILAR_TO c (and back)."""
    book = make.book()
    store.apply(book)
    concepts = make.concepts_for(book, ["Neuroplasticidad", "Ejercicio", "Sueño"])
    store.apply(concepts)
    a, b, c = concepts.concepts
    store.apply(
        ChangeSet(
            relations=[
                make.relation(a.id, "GENERALIZES", b.id),
                make.relation(a.id, "SIMILAR_TO", c.id),
            ]
        )
    )
    return book.contents[0], concepts.concepts


def test_relation_counts_are_what_relations_lists(store: GraphStore, make: Builders) -> None:
    content, (a, b, c) = small_graph(store, make)
    asked = [a.id, b.id, c.id, content.id, "no-such-node"]

    for relation_type in (None, SUPPORTS, "SIMILAR_TO", QUOTED_IN):
        for direction in ("out", "in"):
            counts = store.relation_counts(asked, relation_type=relation_type, direction=direction)
            assert counts == {
                node_id: len(
                    store.relations(node_id, relation_type=relation_type, direction=direction)
                )
                for node_id in asked
            }, (relation_type, direction)
    # What the concepts and sources lists show: relations, supporting passages, passages.
    assert store.relation_counts([a.id]) == {a.id: 2}
    assert store.relation_counts([content.id], relation_type=QUOTED_IN, direction="in") == {
        content.id: len(store.quotes_of(content.id))
    }
    assert store.relation_counts([]) == {}


def test_relation_counts_rejects_an_unknown_direction(store: GraphStore) -> None:
    with pytest.raises(ValueError, match="direction"):
        store.relation_counts(["x"], direction="both")


def test_relations_of_many_nodes_is_each_ones_relations_once(
    store: GraphStore, make: Builders
) -> None:
    content, (a, b, c) = small_graph(store, make)
    quote = store.quotes_of(content.id)[0]
    everything = [a.id, b.id, c.id, content.id, quote.id, "no-such-node"]

    for direction in ("out", "in", "both"):
        for ids in ([a.id], [a.id, b.id], everything, [b.id, b.id], []):
            expected = {r.key: r for i in ids for r in store.relations(i, direction=direction)}
            assert store.relations_of(ids, direction=direction) == [
                expected[key] for key in sorted(expected)
            ], (direction, ids)
    with pytest.raises(ValueError, match="direction"):
        store.relations_of([a.id], direction="sideways")


def test_get_concepts_returns_each_known_concept_once_in_the_order_asked(
    store: GraphStore, make: Builders
) -> None:
    content, (a, _, c) = small_graph(store, make)
    quote = store.quotes_of(content.id)[0]

    found = store.get_concepts([c.id, "no-such-node", a.id, quote.id, c.id, content.id])
    assert found == [store.get_concept(c.id), store.get_concept(a.id)]
    assert store.get_concepts([]) == []
