"""Full-text search in the Cypher stores: query terms rendered safely, BM25 ranking of
FalkorDB's matches in the server, and graphs written before `text_stems` upgraded on open and
by `rebuild_fulltext` (docs/design.md, "Server stores")."""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from zettelgraph.models import ChangeSet, NodeLabel, PassageFilter
from zettelgraph.store import open_store
from zettelgraph.store.cypher_search import TextTerm, text_terms
from zettelgraph.store.falkordb import FalkorDBStore
from zettelgraph.store.text_terms import candidate_terms

if TYPE_CHECKING:
    from conftest import Builders, HashEmbedder


def test_query_terms_are_words_phrases_and_prefixes() -> None:
    terms = text_terms('¿Gobernaron las ciudades? "mano dura" constru* c* AND (')
    rendered = [term.query() for term in terms]
    assert '"ciud"' in rendered  # quoted: RediSearch would stem a bare word again
    assert '"man dur"' in rendered  # the phrase is stemmed like the index, order kept
    assert "constru*" in rendered
    assert "c*" not in rendered  # a one-letter prefix would match nearly everything
    assert all(part.strip('"*').replace(" ", "").isalnum() for part in rendered)


def test_the_rarest_terms_are_scored_until_k_then_within_the_budget() -> None:
    found_in = [900, 3, 0, 40, 400]

    assert candidate_terms(found_in, 10, budget=500) == [1, 3, 4]
    assert candidate_terms(found_in, 10, budget=100) == [1, 3]
    # Below k the next rarest term is taken whatever the budget.
    assert candidate_terms(found_in, 50, budget=10) == [1, 3, 4]
    # Every match is wanted: every term that matches.
    assert candidate_terms(found_in, None, budget=10) == [1, 3, 4, 0]


@pytest.fixture
def falkordb(falkordb_url: str, embedder: HashEmbedder) -> Iterator[FalkorDBStore]:
    store = open_store(f"{falkordb_url}/zg_fulltext_{uuid.uuid4().hex[:12]}")
    assert isinstance(store, FalkorDBStore)
    store.ensure_embedder(embedder.model, embedder.dim)
    yield store
    store.drop()
    store.close()


def test_falkordb_ranks_its_matches_by_bm25(falkordb: FalkorDBStore, make: Builders) -> None:
    # queryNodes' own score is no relevance score (FalkorDB issue 1208).
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


def _bm25(query: str, texts: dict[str, str]) -> dict[str, float]:
    """BM25 (Lucene's idf, k1 1.2, b 0.75) of each analysed text, counted word by word."""
    terms = text_terms(query)
    tokens = {node_id: text.split() for node_id, text in texts.items()}
    mean = sum(len(words) for words in tokens.values()) / len(tokens)

    def count(term: TextTerm, words: list[str]) -> int:
        if term.prefix:
            return sum(word.startswith(term.words[0]) for word in words)
        n = len(term.words)
        return sum(tuple(words[i : i + n]) == term.words for i in range(len(words) - n + 1))

    scores = {}
    for node_id, words in tokens.items():
        norm = 1.2 * (1 - 0.75 + 0.75 * len(words) / mean)
        score = 0.0
        for term in terms:
            found = sum(1 for other in tokens.values() if count(term, other))
            tf = count(term, words)
            score += (
                math.log(1 + (len(tokens) - found + 0.5) / (found + 0.5)) * tf * 2.2 / (tf + norm)
            )
        if score:
            scores[node_id] = score
    return scores


@pytest.mark.parametrize(
    "query", ["castores", "mano dura", '"mano dura" castores', "constru*", "ríos ríos montaña"]
)
def test_falkordb_scores_are_bm25_of_words_phrases_and_prefixes(
    falkordb: FalkorDBStore, make: Builders, query: str
) -> None:
    book = make.book(
        quotes=(
            "Los castores construyen presas; las presas de los castores cambian los ríos.",
            "Mano dura, mano dura y mano blanda: el castor construye con mano dura.",
            "Un río de montaña, un río ancho, un castor que pasa.",
            "Construcciones de río en río, ríos y más ríos.",
            "El pájaro canta.",
        )
    )
    falkordb.apply(book)
    texts = dict(falkordb._read("MATCH (n:Quote) RETURN n.id, n.text_stems"))

    hits = falkordb.text_search(query, 10)

    expected = _bm25(query, texts)
    assert {hit.id: hit.score for hit in hits} == pytest.approx(expected)
    assert [hit.score for hit in hits] == pytest.approx(sorted(expected.values(), reverse=True))


def test_falkordb_scores_follow_writes_from_another_handle(
    falkordb: FalkorDBStore, make: Builders
) -> None:
    # Document frequencies are kept between searches: a write elsewhere must renew them.
    book = make.book(quotes=("El castor construye presas.", "El río corre."))
    falkordb.apply(book)
    before = falkordb.text_search("castor", 5)[0].score
    other = open_store(falkordb.url)
    try:
        more = [make.quote(book.contents[0], f"Otro castor, el {i}.", 10 + i) for i in range(4)]
        other.apply(ChangeSet(quotes=more))
    finally:
        other.close()

    after = {hit.id: hit.score for hit in falkordb.text_search("castor", 10)}

    assert len(after) == 5
    assert after[book.quotes[0].id] < before  # the word is common now: a lower idf
    fresh = open_store(falkordb.url)
    try:
        assert {hit.id: hit.score for hit in fresh.text_search("castor", 10)} == after
    finally:
        fresh.close()


def test_falkordb_returns_k_when_the_rarest_terms_match_fewer(
    falkordb: FalkorDBStore, make: Builders
) -> None:
    falkordb.text_candidates = 1
    book = make.book(quotes=("Un castor en el río.", "El río ancho.", "El río corto.", "Río."))
    falkordb.apply(book)

    hits = falkordb.text_search("castor río", 4)

    assert hits[0].id == book.quotes[0].id
    assert {hit.id for hit in hits} == {quote.id for quote in book.quotes}


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
