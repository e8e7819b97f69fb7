"""Language-aware full-text search, on every backend: inflected Spanish forms meet at their
stem, accents never matter, English is stemmed by English rules, and a user's "phrase" and
prefix* still work (docs/design.md, "Language-aware full-text search")."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from zettelgraph.models import ChangeSet, NodeLabel
from zettelgraph.store import GraphStore

if TYPE_CHECKING:
    from conftest import Builders

SPANISH = (
    "Las ciudades del norte crecieron durante el siglo diecinueve.",
    "El rey gobernó el país con mano dura durante treinta años.",
    "Los castores construyen presas en los ríos de montaña.",
    "La canción más famosa del grupo habla de una ciudad perdida.",
)
ENGLISH = ("The rivers were running faster than anyone had seen.",)


def ids(store: GraphStore, query: str) -> list[str]:
    return [hit.id for hit in store.text_search(query, 10, label=NodeLabel.QUOTE)]


def library(store: GraphStore, make: Builders) -> ChangeSet:
    book = make.book(title="Crónicas", author="Ana Pérez", quotes=SPANISH + ENGLISH)
    store.apply(book)
    return book


def test_inflected_spanish_forms_find_each_other(store: GraphStore, make: Builders) -> None:
    quotes = library(store, make).quotes
    # Plural and singular, in both directions.
    assert set(ids(store, "ciudad")) == {quotes[0].id, quotes[3].id}
    assert set(ids(store, "ciudades")) == {quotes[0].id, quotes[3].id}
    # Another person and tense of the same verb.
    assert ids(store, "gobernaba") == [quotes[1].id]
    assert ids(store, "castor") == [quotes[2].id]
    assert ids(store, "construyó presa") == [quotes[2].id]
    assert ids(store, "canciones") == [quotes[3].id]


def test_accents_never_matter(store: GraphStore, make: Builders) -> None:
    quotes = library(store, make).quotes
    assert ids(store, "gobernó") == ids(store, "gobernO") == ids(store, "goberno")
    assert ids(store, "goberno") == [quotes[1].id]
    assert ids(store, "cancion") == ids(store, "CANCIÓN") == [quotes[3].id]
    assert ids(store, "rios") == ids(store, "ríos") == [quotes[2].id]


def test_function_words_of_the_question_are_dropped(store: GraphStore, make: Builders) -> None:
    quotes = library(store, make).quotes
    # "de", "la", "en" are in almost every passage; the question is about beavers' dams.
    assert ids(store, "¿Dónde construyen los castores sus presas?")[0] == quotes[2].id
    # A query made only of function words still searches them.
    assert quotes[0].id in ids(store, "del")


def test_english_passages_are_stemmed_as_english(store: GraphStore, make: Builders) -> None:
    quotes = library(store, make).quotes
    assert ids(store, "Which river runs faster?") == [quotes[4].id]


def test_phrases_and_prefixes_typed_by_a_user(store: GraphStore, make: Builders) -> None:
    quotes = library(store, make).quotes
    assert ids(store, '"mano dura"') == [quotes[1].id]
    assert ids(store, '"dura mano"') == []  # a phrase keeps its word order
    assert ids(store, "constru*") == [quotes[2].id]
    assert set(ids(store, 'casto* "ciudad perdida"')) == {quotes[2].id, quotes[3].id}
    # FTS syntax typed by accident is read as words, never as an operator.
    assert ids(store, "castores AND OR NOT (") == [quotes[2].id]


def test_concepts_are_analysed_in_their_own_language(store: GraphStore, make: Builders) -> None:
    concept = make.concept("Gobiernos locales", "Las ciudades se gobiernan a sí mismas.")
    store.apply(ChangeSet(concepts=[concept]))
    hits = store.text_search("ciudad", 5, label=NodeLabel.CONCEPT)
    assert [hit.id for hit in hits] == [concept.id]


def test_a_search_ranks_the_rarest_terms_matches_first_and_still_returns_k(
    store: GraphStore, make: Builders
) -> None:
    if store.url.startswith(("neo4j", "bolt")):
        pytest.skip("Neo4j ranks every match itself (Lucene's BM25)")
    # A bound of one match: only the rarest term's passages are ranked first (as at a million
    # passages, where a common stem matches most of them). Unbounded, the short passage that
    # repeats the common word would beat the long one that names the rare word once.
    store.text_candidates = 1  # type: ignore[attr-defined]
    filler = " ".join(f"palabra{i}" for i in range(60))
    quotes = (
        "El castor y el río.",
        f"Un castor {filler}.",
        "Río, río, río.",
        "El río ancho.",
        "Un río.",
        *(f"Otra cosa número {i}." for i in range(20)),
    )
    book = make.book(quotes=quotes)
    store.apply(book)
    both, rare = book.quotes[0].id, book.quotes[1].id

    two = store.text_search("castor río", 2, label=NodeLabel.QUOTE)
    five = store.text_search("castor río", 5, label=NodeLabel.QUOTE)

    assert [hit.id for hit in two] == [both, rare]
    # Fewer than k among the rarest term's matches: every term's, ranked as a whole.
    assert {hit.id for hit in five} == {book.quotes[i].id for i in range(5)}


def test_when_every_term_is_common_their_conjunction_is_ranked_first(
    store: GraphStore, make: Builders
) -> None:
    if not store.url.startswith("sqlite"):
        pytest.skip("the conjunction first is SQLite's (FTS5 scores every match it ranks)")
    # Even the rarest term matches more than the bound: its passages that hold the other term
    # too come first, though passages with the rare term alone are shorter (and would win on
    # its BM25 alone).
    store.text_candidates = 1  # type: ignore[attr-defined]
    filler = " ".join(f"palabra{i}" for i in range(30))
    quotes = (
        f"El castor cruza el río {filler}.",
        f"Un castor junto al río {filler}.",
        "Castor.",
        "Un castor.",
        "El castor.",
        *(f"El río número {i}." for i in range(6)),
    )
    book = make.book(quotes=quotes)
    store.apply(book)
    hits = store.text_search("castor río", 2, label=NodeLabel.QUOTE)
    assert {hit.id for hit in hits} == {book.quotes[0].id, book.quotes[1].id}
