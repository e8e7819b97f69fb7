"""The GraphStore contract for filtered passage search and chats, on every backend.

A `PassageFilter` narrows `text_search` and `vector_search` to the passages of some Contents
(by id, kind or author) and places (pages, slides, turns, a time span), inside the store's
own queries: k passages come back whenever k admitted ones match, even when passages outside
the filter rank higher.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from numpy.typing import NDArray

from zettelgraph.models import (
    ChangeSet,
    Content,
    NodeLabel,
    PassageFilter,
    PlaceRange,
    Quote,
    embedding_text,
)
from zettelgraph.packs.relations import AUTHORED_BY, QUOTED_IN
from zettelgraph.store import GraphStore

if TYPE_CHECKING:
    from conftest import Builders

SCORE_TOL = 1e-5


def _source(
    make: Builders,
    title: str,
    author: str,
    kind: str,
    passages: list[tuple[str, dict[str, Any]]],
) -> tuple[ChangeSet, Content, list[Quote]]:
    """A Content of `kind` by `author` with passages (text, Quote fields), embedded."""
    content = make.content(title, author, kind=kind)
    person = make.person(author)
    quotes = [make.quote(content, text, i, **fields) for i, (text, fields) in enumerate(passages)]
    relations = [make.relation(content.id, AUTHORED_BY, person.id)]
    relations += [make.relation(q.id, QUOTED_IN, content.id) for q in quotes]
    changes = ChangeSet(
        contents=[content],
        persons=[person],
        quotes=quotes,
        relations=relations,
        vectors=make.vectors(quotes),
    )
    return changes, content, quotes


class Library:
    """Four sources: book notes with page text, a PDF with pages, a deck with slides and a
    transcript with times. "memoria" is in every one; the book's passages say it most (so
    they rank first unfiltered)."""

    def __init__(self, store: GraphStore, make: Builders) -> None:
        self.book, self.book_content, self.book_quotes = _source(
            make,
            "Spark",
            "John Ratey",
            "book",
            [
                ("Memoria, memoria y más memoria con el ejercicio.", {"page": "12"}),
                ("La memoria memoria crece al correr.", {"page": "40-41"}),
                ("Memoria y memoria en la posición de Kindle.", {"page": "loc 142"}),
                ("La memoria memoria sin página.", {}),
            ],
        )
        self.pdf, self.pdf_content, self.pdf_quotes = _source(
            make,
            "Guía del sueño",
            "Matthew Walker",
            "pdf",
            [
                ("El sueño fija la memoria.", {"location": {"page": 3}}),
                ("La siesta ayuda a la memoria.", {"location": {"page": 9, "page_end": 11}}),
                ("Dormir poco daña la memoria.", {"location": {"page": 30}}),
            ],
        )
        self.deck, self.deck_content, self.deck_quotes = _source(
            make,
            "Ideas en diapositivas",
            "José Ortega",
            "pptx",
            [
                (f"Diapositiva sobre la memoria número {n}.", {"location": {"slide": n}})
                for n in range(1, 7)
            ],
        )
        self.talk, self.talk_content, self.talk_quotes = _source(
            make,
            "Charla grabada",
            "Ana Autora",
            "transcript",
            [
                (
                    "Empezamos hablando de la memoria.",
                    {"location": {"start": "00:00:05", "end": "00:01:10"}},
                ),
                (
                    "A los diez minutos, la memoria de trabajo.",
                    {"location": {"start": "00:09:50", "end": "00:10:30"}},
                ),
                (
                    "Al final, la memoria y el sueño.",
                    {"location": {"start": "01:02:00,500", "end": "01:03:00"}},
                ),
            ],
        )
        for changes in (self.book, self.pdf, self.deck, self.talk):
            store.apply(changes)
        self.every = self.book_quotes + self.pdf_quotes + self.deck_quotes + self.talk_quotes


@pytest.fixture
def library(store: GraphStore, make: Builders) -> Library:
    return Library(store, make)


def _ids(quotes: list[Quote]) -> set[str]:
    return {q.id for q in quotes}


def _unit(vector: NDArray[np.float32]) -> NDArray[np.float64]:
    array = np.asarray(vector, dtype=np.float64)
    return array / np.linalg.norm(array)


def _brute_force(
    make: Builders, quotes: list[Quote], query: NDArray[np.float32], k: int
) -> list[tuple[str, float]]:
    scored = [
        (q.id, float(_unit(make.embedder.embed(embedding_text(q))) @ _unit(query))) for q in quotes
    ]
    return sorted(scored, key=lambda pair: (-pair[1], pair[0]))[:k]


# --- content, kind, author ---------------------------------------------------------------


def test_text_search_in_one_content_still_returns_k(store: GraphStore, library: Library) -> None:
    unfiltered = store.text_search("memoria", 3, label=NodeLabel.QUOTE)
    assert {h.id for h in unfiltered} - _ids(library.pdf_quotes)  # others outrank the PDF

    only_pdf = PassageFilter(content_ids=(library.pdf_content.id,))
    hits = store.text_search("memoria", 3, passages=only_pdf)
    assert {h.id for h in hits} == _ids(library.pdf_quotes)
    assert all(h.label == NodeLabel.QUOTE for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert len(store.text_search("memoria", 2, passages=only_pdf)) == 2
    assert store.text_search("hipocampo", 3, passages=only_pdf) == []


def test_vector_search_in_a_filter_is_exact_over_the_admitted(
    store: GraphStore, library: Library, make: Builders
) -> None:
    query = make.embedder.embed("una pregunta sobre diapositivas")
    deck = PassageFilter(content_ids=(library.deck_content.id,))
    for k in (1, 3, 6, 10):
        hits = store.vector_search(NodeLabel.QUOTE, query, k, passages=deck)
        expected = _brute_force(make, library.deck_quotes, query, k)
        assert [h.id for h in hits] == [pid for pid, _ in expected]
        for hit, (_, score) in zip(hits, expected, strict=True):
            assert hit.score == pytest.approx(score, abs=SCORE_TOL)
    scores = [score for _, score in _brute_force(make, library.deck_quotes, query, 6)]
    # Halfway between the third and fourth: float rounding cannot move a hit across it.
    cut = (scores[2] + scores[3]) / 2
    above = store.vector_search(NodeLabel.QUOTE, query, 6, passages=deck, min_score=cut)
    assert len(above) == 3


def test_filter_by_kind_is_case_insensitive(
    store: GraphStore, library: Library, make: Builders
) -> None:
    docs = PassageFilter(kinds=("PDF", "pptx"))
    admitted = library.pdf_quotes + library.deck_quotes
    hits = store.text_search("memoria", 20, passages=docs)
    assert {h.id for h in hits} == _ids(admitted)
    query = make.embedder.embed("memoria")
    vector = store.vector_search(NodeLabel.QUOTE, query, 4, passages=docs)
    assert [h.id for h in vector] == [pid for pid, _ in _brute_force(make, admitted, query, 4)]


def test_filter_by_author_ignores_case_accents_and_spacing(
    store: GraphStore, library: Library, make: Builders
) -> None:
    for name in ("José Ortega", "jose  ORTEGA", "JOSÉ ortega"):
        hits = store.text_search("memoria", 20, passages=PassageFilter(authors=(name,)))
        assert {h.id for h in hits} == _ids(library.deck_quotes), name
    two = PassageFilter(authors=("ana autora", "Matthew Walker"))
    hits = store.text_search("memoria", 20, passages=two)
    assert {h.id for h in hits} == _ids(library.talk_quotes + library.pdf_quotes)
    nobody = PassageFilter(authors=("Nadie Conocido",))
    assert store.text_search("memoria", 5, passages=nobody) == []
    query = make.embedder.embed("memoria")
    assert store.vector_search(NodeLabel.QUOTE, query, 5, passages=nobody) == []


def test_criteria_combine_with_and(store: GraphStore, library: Library) -> None:
    mismatch = PassageFilter(content_ids=(library.pdf_content.id,), authors=("John Ratey",))
    assert store.text_search("memoria", 10, passages=mismatch) == []
    match = PassageFilter(content_ids=(library.pdf_content.id,), kinds=("pdf",))
    assert len(store.text_search("memoria", 10, passages=match)) == len(library.pdf_quotes)


# --- places ------------------------------------------------------------------------------


def test_pages_overlap_book_note_page_text_and_document_pages(
    store: GraphStore, library: Library
) -> None:
    pages = PassageFilter(places=(PlaceRange(unit="page", start=10, end=40),))
    hits = store.text_search("memoria", 20, passages=pages)
    book, pdf = library.book_quotes, library.pdf_quotes
    # "12" and "40-41" overlap; "loc 142" is no page; pp. 9-11 overlap; 3 and 30 below/in.
    assert {h.id for h in hits} == {book[0].id, book[1].id, pdf[1].id, pdf[2].id}
    open_ended = PassageFilter(places=(PlaceRange(unit="page", start=30),))
    hits = store.text_search("memoria", 20, passages=open_ended)
    assert {h.id for h in hits} == {book[1].id, pdf[2].id}


def test_slides_turns_and_time_ranges(store: GraphStore, library: Library, make: Builders) -> None:
    slides = PassageFilter(places=(PlaceRange(unit="slide", start=2, end=4),))
    hits = store.text_search("memoria", 20, passages=slides)
    assert {h.id for h in hits} == _ids(library.deck_quotes[1:4])
    minutes = PassageFilter(places=(PlaceRange(unit="time", start=600, end=1200),))
    hits = store.text_search("memoria", 20, passages=minutes)
    assert {h.id for h in hits} == {library.talk_quotes[1].id}
    # SRT's comma fraction is read; a range may close inside a passage's span.
    late = PassageFilter(places=(PlaceRange(unit="time", start=3700, end=3725),))
    query = make.embedder.embed("memoria")
    assert [h.id for h in store.vector_search(NodeLabel.QUOTE, query, 5, passages=late)] == [
        library.talk_quotes[2].id
    ]
    either = PassageFilter(
        places=(PlaceRange(unit="slide", start=6, end=6), PlaceRange(unit="page", end=3))
    )
    hits = store.text_search("memoria", 20, passages=either)
    assert {h.id for h in hits} == {library.deck_quotes[5].id, library.pdf_quotes[0].id}


def test_places_within_a_content_return_k(store: GraphStore, library: Library) -> None:
    deck = library.deck_content.id
    narrowed = PassageFilter(
        content_ids=(deck,), places=(PlaceRange(unit="slide", start=3, end=None),)
    )
    hits = store.text_search("memoria", 2, passages=narrowed)
    assert len(hits) == 2
    assert {h.id for h in hits} <= _ids(library.deck_quotes[2:])


# --- edges -------------------------------------------------------------------------------


def test_an_empty_filter_is_no_filter_and_other_labels_refuse_one(
    store: GraphStore, library: Library, make: Builders
) -> None:
    query = make.embedder.embed("memoria")
    assert store.text_search("memoria", 4, passages=PassageFilter()) == store.text_search(
        "memoria", 4
    )
    assert store.vector_search(
        NodeLabel.QUOTE, query, 4, passages=PassageFilter()
    ) == store.vector_search(NodeLabel.QUOTE, query, 4)
    only = PassageFilter(kinds=("pdf",))
    with pytest.raises(ValueError, match="Quotes only"):
        store.vector_search(NodeLabel.CONCEPT, query, 4, passages=only)
    with pytest.raises(ValueError, match="Quotes only"):
        store.text_search("memoria", 4, label=NodeLabel.CONCEPT, passages=only)
    assert store.text_search("memoria", 0, passages=only) == []
    assert store.vector_search(NodeLabel.QUOTE, query, 0, passages=only) == []


def test_a_filter_on_an_empty_store(store: GraphStore, make: Builders) -> None:
    query = make.embedder.embed("memoria")
    pages = PassageFilter(places=(PlaceRange(unit="page", start=1, end=2),))
    assert store.vector_search(NodeLabel.QUOTE, query, 3, passages=pages) == []
    assert store.text_search("memoria", 3, passages=pages) == []


# --- chats -------------------------------------------------------------------------------


def test_chat_answers_are_its_turns_in_order(store: GraphStore, make: Builders) -> None:
    base = datetime(2025, 5, 1, 9, 0, tzinfo=UTC)
    turns = [
        make.answer("¿Y después?", chat_id="chat-a", turn=2, created_at=base),
        make.answer("¿Qué es?", chat_id="chat-a", turn=1, created_at=base + timedelta(hours=1)),
        make.answer("¿Por qué?", chat_id="chat-a", turn=3, created_at=base + timedelta(hours=2)),
    ]
    other = make.answer("¿Otra cosa?", chat_id="chat-b", turn=1, created_at=base)
    alone = make.answer("¿Sin chat?", created_at=base)  # an answer from before chats
    store.apply(ChangeSet(answers=[*turns, other, alone]))

    assert store.chat_answers("chat-a") == [turns[1], turns[0], turns[2]]
    assert store.chat_answers("chat-b") == [other]
    assert store.chat_answers("chat-nope") == []
    assert store.chat_answers("") == []
    assert alone.chat_id is None and alone in store.answers()
