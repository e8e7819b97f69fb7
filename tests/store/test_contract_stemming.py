"""Language-aware full-text search, on every backend: inflected Spanish forms meet at their
stem, accents never matter, English is stemmed by English rules, and a user's "phrase" and
prefix* still work (docs/design.md, "Language-aware full-text search")."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
