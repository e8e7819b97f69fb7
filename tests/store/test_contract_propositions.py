"""The GraphStore contract for propositions (a passage's self-contained statements): stored
with their passage, read back in order, embedded and found by vector search, bounded, and
gone with their passage. Every backend must pass these, through the protocol only."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from pydantic import ValidationError

from zettelgraph.models import (
    MAX_PROPOSITION_CHARS,
    MAX_PROPOSITIONS,
    ChangeSet,
    NodeLabel,
    Proposition,
    Quote,
    Relation,
    proposition_id,
)
from zettelgraph.packs.relations import STATED_IN
from zettelgraph.store import GraphStore

if TYPE_CHECKING:
    from conftest import Builders


def statements(passage: Quote, texts: list[str]) -> list[Proposition]:
    return [
        Proposition(
            id=proposition_id(passage.id, position),
            passage_id=passage.id,
            content_id=passage.content_id,
            text=text,
            position=position,
        )
        for position, text in enumerate(texts)
    ]


def written(make: Builders, propositions: list[Proposition]) -> ChangeSet:
    return ChangeSet(
        propositions=propositions,
        relations=[
            Relation(source_id=p.id, target_id=p.passage_id, type=STATED_IN) for p in propositions
        ],
        vectors={p.id: make.embedder.embed(p.text) for p in propositions},
    )


def test_propositions_are_read_back_by_passage_in_order(store: GraphStore, make: Builders) -> None:
    book = make.book()
    store.apply(book)
    first, second, _ = book.quotes
    made = statements(first, ["El ejercicio mejora la memoria.", "El ejercicio es aeróbico."])
    made += statements(second, ["Moverse es una medicina para el cerebro."])
    store.apply(written(make, made))
    # By passage in the order asked, each passage's in position order.
    assert [p.text for p in store.propositions_of([second.id, first.id, "no-such"])] == [
        "Moverse es una medicina para el cerebro.",
        "El ejercicio mejora la memoria.",
        "El ejercicio es aeróbico.",
    ]
    assert store.get_propositions([made[1].id, "no-such", made[0].id]) == [made[1], made[0]]
    assert {
        r.source_id for r in store.relations(first.id, relation_type=STATED_IN, direction="in")
    } == {
        made[0].id,
        made[1].id,
    }
    assert store.counts()[str(NodeLabel.PROPOSITION)] == 3


def test_propositions_are_found_by_vector_search(store: GraphStore, make: Builders) -> None:
    book = make.book()
    store.apply(book)
    made = statements(book.quotes[0], ["El hipocampo crece con el ejercicio.", "Otra cosa."])
    store.apply(written(make, made))
    hits = store.vector_search(NodeLabel.PROPOSITION, make.embedder.embed(made[0].text), 2)
    assert hits[0].id == made[0].id
    assert hits[0].score == pytest.approx(1.0, abs=1e-4)
    # Propositions are not passages: a passage search does not return them.
    quote_hits = store.vector_search(NodeLabel.QUOTE, make.embedder.embed(made[0].text), 10)
    assert made[0].id not in {hit.id for hit in quote_hits}


def test_propositions_go_with_their_passage(store: GraphStore, make: Builders) -> None:
    book = make.book()
    store.apply(book)
    made = statements(book.quotes[0], ["El ejercicio mejora la memoria."])
    store.apply(written(make, made))
    store.apply(ChangeSet(delete_ids=[made[0].id, book.quotes[0].id]))
    assert store.propositions_of([book.quotes[0].id]) == []
    assert store.vector_search(NodeLabel.PROPOSITION, make.embedder.embed(made[0].text), 5) == []


def test_a_proposition_is_bounded() -> None:
    with pytest.raises(ValidationError, match="text"):
        Proposition(id="p", passage_id="q", content_id="c", text="x" * 401, position=0)
    with pytest.raises(ValidationError, match="position"):
        Proposition(id="p", passage_id="q", content_id="c", text="x", position=MAX_PROPOSITIONS)
    assert MAX_PROPOSITION_CHARS == 400
