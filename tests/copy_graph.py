"""A graph with something of every kind, and a store's whole content in a comparable form: the
tests of `store copy` (tests/store/test_copy.py, tests/reliability/test_store_copy.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zettelgraph.models import ChangeSet, NodeLabel
from zettelgraph.store import GraphStore

if TYPE_CHECKING:
    from store.conftest import Builders


def everything(store: GraphStore) -> dict[str, Any]:
    """Every node, relation and vector of a store, exactly, in a comparable form."""
    nodes = {str(label): store.nodes(label, limit=1_000_000) for label in NodeLabel}
    return {
        "embedder": store.embedding_info(),
        "nodes": nodes,
        "relations": store.relations(),
        "vectors": {node_id: vector.tobytes() for node_id, vector in store.vectors()},
        "counts": store.counts(),
    }


def fill(store: GraphStore, make: Builders) -> None:
    """Two books, concepts with relations of several types (and reverses), odd strings, and
    a document with its Sections, passages and an Answer."""
    store.ensure_embedder(make.embedder.model, make.embedder.dim)
    spark = make.book()
    quijote = make.book(
        "Don Quijote",
        "Miguel de Cervantes",
        quotes=[
            'En un lugar de la Mancha, de cuyo nombre no quiero acordarme…\n"No ha mucho"',
            "La libertad, Sancho, es uno de los más preciosos dones\\que a los hombres dieron.",
        ],
    )
    store.apply(spark)
    store.apply(quijote)
    concepts = make.concepts_for(spark, ["Neuroplasticidad", "Ejercicio aeróbico", "Memoria"])
    a, b, c = concepts.concepts
    relations = [
        make.relation(a.id, "GENERALIZES", b.id, why="más general", confidence=0.8),
        make.relation(b.id, "SUPPORTS", c.id, why="apoya"),
        make.relation(a.id, "SIMILAR_TO", c.id),
        make.relation(quijote.quotes[1].id, "SUPPORTS", c.id),
    ]
    store.apply(concepts.model_copy(update={"relations": [*concepts.relations, *relations]}))
    many = [make.concept(f"Concepto {i:04d}") for i in range(30)]
    store.apply(ChangeSet(concepts=many, vectors=make.vectors(many)))
    # A document: Sections, passages that point at them, and an Answer that cites two.
    document = make.document()
    store.apply(document)
    store.apply(ChangeSet(relations=[make.relation(document.quotes[2].id, "SUPPORTS", c.id)]))
