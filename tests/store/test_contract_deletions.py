"""The GraphStore contract for deletions (`ChangeSet.delete_ids`, `delete_relations`): every
backend must pass these, through the protocol only."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

import pytest
from test_contract import snapshot

from zettelgraph.models import (
    ChangeSet,
    Concept,
    NodeLabel,
    Relation,
    Removal,
    removal_id,
)
from zettelgraph.packs.relations import SUPPORTS
from zettelgraph.store import GraphStore
from zettelgraph.store.base import IntegrityError

if TYPE_CHECKING:
    from conftest import Builders, HashEmbedder


def concept_graph(store: GraphStore, make: Builders) -> dict[str, Concept]:
    """A book, three concepts its first quote supports, and relations between them:
    a GENERALIZES b (reverse SPECIFIC_OF), b SIMILAR_TO c (symmetric), c SUPPORTS a."""
    book = make.book()
    store.apply(book)
    concepts = make.concepts_for(book, ["Hábito", "Rutina", "Costumbre"])
    a, b, c = concepts.concepts
    concepts.relations += [
        make.relation(a.id, "GENERALIZES", b.id, explanation="a de b"),
        make.relation(b.id, "SIMILAR_TO", c.id),
        make.relation(c.id, "SUPPORTS", a.id),
    ]
    store.apply(concepts)
    return {"a": a, "b": b, "c": c}


def keys(store: GraphStore, node_id: str | None = None) -> set[tuple[str, str, str]]:
    return {r.key for r in store.relations(node_id, direction="both")}


def test_deleting_a_node_takes_its_relations_vector_and_text_with_it(
    store: GraphStore, make: Builders, embedder: HashEmbedder
) -> None:
    graph = concept_graph(store, make)
    a, b = graph["a"], graph["b"]
    before, everything = store.counts(), keys(store)
    query = embedder.embed("Hábito. Hábito")
    # Searched once before, so a store that caches its vectors has them loaded.
    assert a.id in {hit.id for hit in store.vector_search(NodeLabel.CONCEPT, query, 10)}

    store.apply(ChangeSet(delete_ids=[a.id]))

    assert store.get_concept(a.id) is None
    # Its relations went both ways, reverses included; every other one stayed.
    assert keys(store) == {key for key in everything if a.id not in (key[0], key[2])}
    after = store.counts()
    assert after["Concept"] == before["Concept"] - 1
    # a: its quote's SUPPORTS, GENERALIZES + SPECIFIC_OF, SUPPORTS + SUPPORTED_BY.
    assert after["relations"] == before["relations"] - 5
    assert after["vectors"] == before["vectors"] - 1
    assert a.id not in dict(store.vectors(NodeLabel.CONCEPT))
    hits = store.vector_search(NodeLabel.CONCEPT, query, 10)
    assert a.id not in {hit.id for hit in hits} and len(hits) == 2
    assert store.text_search("hábito", 10) == []
    # Nothing else changed: the book, its quotes and the other concepts read back the same.
    assert store.get_concept(b.id) == b and len(store.list_concepts()) == 2


def test_deleting_a_relation_takes_its_reverse_or_symmetric_twin(
    store: GraphStore, make: Builders
) -> None:
    graph = concept_graph(store, make)
    a, b, c = graph["a"], graph["b"], graph["c"]
    everything = keys(store)

    store.apply(ChangeSet(delete_relations=[(b.id, "SPECIFIC_OF", a.id)]))
    gone = {(a.id, "GENERALIZES", b.id), (b.id, "SPECIFIC_OF", a.id)}
    assert keys(store) == everything - gone

    store.apply(ChangeSet(delete_relations=[(c.id, "SIMILAR_TO", b.id)]))
    gone |= {(b.id, "SIMILAR_TO", c.id), (c.id, "SIMILAR_TO", b.id)}
    assert keys(store) == everything - gone

    # An attribution (Quote -> Concept SUPPORTS) has no twin: only it goes, and the
    # concept-to-concept SUPPORTS of the same type stays.
    quote = store.relations(a.id, relation_type=SUPPORTS, direction="in")
    attribution = next(r.key for r in quote if r.source_id not in (b.id, c.id))
    store.apply(ChangeSet(delete_relations=[attribution]))
    gone.add(attribution)
    assert keys(store) == everything - gone
    assert (c.id, "SUPPORTS", a.id) in keys(store)


def test_deletions_and_writes_are_one_write(store: GraphStore, make: Builders) -> None:
    graph = concept_graph(store, make)
    a, b = graph["a"], graph["b"]
    at = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
    record = Removal(
        id=removal_id("concept", a.id, at),
        created_at=at,
        kind="concept",
        title=a.title,
        subject_id=a.id,
        by="Ana",
        concepts={a.id: a.title},
        relations=[(a.id, "GENERALIZES", b.id), (b.id, "SPECIFIC_OF", a.id)],
        details={"concept": a.concept},
    )
    marked = b.model_copy(update={"vault_sync_pending": True})

    store.apply(ChangeSet(delete_ids=[a.id], concepts=[marked], removals=[record]))

    assert store.get_concept(a.id) is None
    assert store.get_concept(b.id) == marked
    assert store.nodes(NodeLabel.REMOVAL) == [record]
    assert store.counts()["Removal"] == 1


def test_a_refused_change_set_deletes_nothing(store: GraphStore, make: Builders) -> None:
    graph = concept_graph(store, make)
    a, b = graph["a"], graph["b"]
    before = snapshot(store)

    with pytest.raises(IntegrityError, match="both written and deleted"):
        store.apply(ChangeSet(delete_ids=[a.id], concepts=[a]))
    # A relation to a node the same write deletes names a node that will not exist.
    with pytest.raises(IntegrityError, match="do not exist"):
        store.apply(
            ChangeSet(
                delete_ids=[a.id],
                relations=[Relation(source_id=b.id, target_id=a.id, type="RELATES_TO")],
            )
        )
    with pytest.raises(IntegrityError, match="upper-case"):
        store.apply(ChangeSet(delete_relations=[(a.id, "x]-(n) DETACH DELETE n //", b.id)]))
    assert snapshot(store) == before


def test_deleting_what_is_gone_changes_nothing_and_replays_converge(
    store: GraphStore, make: Builders
) -> None:
    graph = concept_graph(store, make)
    a, b = graph["a"], graph["b"]
    changes = ChangeSet(
        delete_ids=[a.id, "no-such-node"],
        delete_relations=[(b.id, "SIMILAR_TO", graph["c"].id), ("x", "RELATES_TO", "y")],
    )
    store.apply(changes)
    once = snapshot(store)

    store.apply(changes)

    assert snapshot(store) == once
    # A deleted id may be written again: it is a new node, with none of the old relations.
    store.apply(ChangeSet(concepts=[a], vectors=make.vectors([a])))
    assert store.get_concept(a.id) == a
    assert keys(store, a.id) == set()
