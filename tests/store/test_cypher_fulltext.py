"""Full-text search in the Cypher stores: query terms rendered safely, BM25 ranking of
FalkorDB's matches, and graphs written before `text_stems` upgraded on open and by
`rebuild_fulltext` (docs/design.md, "Server stores")."""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from zettelgraph.models import NodeLabel, PassageFilter
from zettelgraph.store import open_store
from zettelgraph.store.cypher_search import TextTerm, text_terms
from zettelgraph.store.falkordb import FalkorDBStore
from zettelgraph.store.falkordb_query import bm25

if TYPE_CHECKING:
    from conftest import Builders, HashEmbedder


def test_query_terms_are_words_phrases_and_prefixes() -> None:
    terms = text_terms('¿Gobernaron las ciudades? "mano dura" constru* c* AND (')
    rendered = [term.query() for term in terms]
    assert "ciud" in rendered
    assert '"man dur"' in rendered  # the phrase is stemmed like the index, order kept
    assert "constru*" in rendered
    assert "c*" not in rendered  # a one-letter prefix would match nearly everything
    assert all(part.strip('"*').replace(" ", "").isalnum() for part in rendered)


def test_a_term_counts_its_occurrences() -> None:
    tokens = ["el", "rey", "gobern", "el", "pais", "con", "man", "dur", "man"]
    counts = Counter(tokens)
    assert TextTerm(("man",)).count_in(tokens, counts) == 2
    assert TextTerm(("man", "dur")).count_in(tokens, counts) == 1
    assert TextTerm(("dur", "man", "dur")).count_in(tokens, counts) == 0
    assert TextTerm(("gob",), prefix=True).count_in(tokens, counts) == 1
    assert TextTerm(("e",), prefix=True).count_in(tokens, counts) == 2


def test_bm25_prefers_rare_terms_frequent_matches_and_short_texts() -> None:
    rare, common = TextTerm(("castor",)), TextTerm(("rio",))
    hits = bm25(
        [rare, common],
        [
            ("long", "castor " + "rio " + "palabr " * 40),
            ("short", "castor rio"),
            ("common", "rio rio"),
            ("twice", "castor castor rio"),
        ],
        found_in=[3, 50],
        documents=100,
        mean_length=10.0,
    )
    order = [node_id for node_id, _ in hits]
    assert order[:2] == ["twice", "short"]
    assert order.index("long") < order.index("common")  # the rare word outweighs length
    assert all(score > 0 for _, score in hits)


@pytest.fixture
def falkordb(falkordb_url: str, embedder: HashEmbedder) -> Iterator[FalkorDBStore]:
    store = open_store(f"{falkordb_url}/zg_fulltext_{uuid.uuid4().hex[:12]}")
    assert isinstance(store, FalkorDBStore)
    store.ensure_embedder(embedder.model, embedder.dim)
    yield store
    store.drop()
    store.close()


def test_falkordb_ranks_its_matches_by_bm25(falkordb: FalkorDBStore, make: Builders) -> None:
    # queryNodes' own score ignores how often and how rare a word is (FalkorDB issue 1208).
    book = make.book(
        quotes=(
            "Los castores construyen presas; las presas de los castores cambian los ríos.",
            "Un río de montaña, un río ancho, un castor que pasa y un pájaro que canta.",
            "El río.",
        )
    )
    falkordb.apply(book)

    hits = falkordb.text_search("castores presas", 3)

    assert [hit.id for hit in hits] == [book.quotes[0].id, book.quotes[1].id]
    assert hits[0].score > hits[1].score > 0


def _to_old_layout(store: FalkorDBStore) -> None:
    """The graph as a version before `text_stems` left it: an index over the folded text."""
    for label in (NodeLabel.QUOTE, NodeLabel.CONCEPT, NodeLabel.ENTITY):
        store._run(f"CALL db.idx.fulltext.drop('{label}')")
        store.wait_for_indexes()
        store._run(f"CALL db.idx.fulltext.createNodeIndex('{label}', {{field: 'text_key'}})")
    store._run("MATCH (n:Node) WHERE n.text_stems IS NOT NULL SET n.text_key = 'vieja'")
    store._run("MATCH (n:Node) SET n.text_stems = NULL, n.text_length = NULL")
    store.wait_for_indexes()


def test_an_older_falkordb_graph_is_upgraded_when_opened(
    falkordb: FalkorDBStore, make: Builders
) -> None:
    book = make.book()
    falkordb.apply(book)
    _to_old_layout(falkordb)
    assert falkordb.text_search("memorias", 5) == []

    reopened = open_store(falkordb.url)
    try:
        assert [hit.id for hit in reopened.text_search("memorias", 5)] == [book.quotes[0].id]
        assert reopened.text_search("vieja", 5) == []
    finally:
        reopened.close()


def test_rebuild_fulltext_reanalyses_every_searched_node(
    falkordb: FalkorDBStore, make: Builders
) -> None:
    book = make.book()
    concepts = make.concepts_for(book)
    falkordb.apply(book)
    falkordb.apply(concepts)
    falkordb._run("MATCH (n:Quote) SET n.text_stems = 'otra cosa'")
    assert falkordb.text_search("hipocampo", 5) == []

    assert falkordb.rebuild_fulltext() == len(book.quotes) + len(concepts.concepts)

    assert [hit.id for hit in falkordb.text_search("hipocampo", 5)] == [book.quotes[2].id]
    assert falkordb.text_search("otra cosa", 5) == []
    assert falkordb.counts()["Quote"] == len(book.quotes)


def test_filtered_search_ranks_within_the_filter(falkordb: FalkorDBStore, make: Builders) -> None:
    first = make.book("Spark", "John Ratey")
    second = make.book("Otro", "Ana Pérez", quotes=("La memoria y la memoria del ejercicio.",))
    falkordb.apply(first)
    falkordb.apply(second)

    hits = falkordb.text_search(
        "memoria", 5, passages=PassageFilter(content_ids=[first.contents[0].id])
    )

    assert [hit.id for hit in hits] == [first.quotes[0].id]
