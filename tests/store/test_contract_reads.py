"""The GraphStore contract for the reads pages make in one query instead of one per row
(`relation_counts`): every backend must pass these, through the protocol only."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from zettelgraph.models import ChangeSet
from zettelgraph.relations import QUOTED_IN, SUPPORTS
from zettelgraph.store import GraphStore

if TYPE_CHECKING:
    from conftest import Builders


def test_relation_counts_are_what_relations_lists(store: GraphStore, make: Builders) -> None:
    book = make.book()
    store.apply(book)
    concepts = make.concepts_for(book, ["Neuroplasticidad", "Ejercicio", "Sueño"])
    store.apply(concepts)
    a, b, c = concepts.concepts
    store.apply(
        ChangeSet(
            relations=[
                make.relation(a.id, "GENERALIZES", b.id),  # and b SPECIFIC_OF a
                make.relation(a.id, "SIMILAR_TO", c.id),  # and c SIMILAR_TO a
            ]
        )
    )
    content = book.contents[0]
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
