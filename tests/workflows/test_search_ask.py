"""Hybrid search with citations and cited answers, on the real SQLite store (hash embedder,
fake LLM)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from zettelgraph.context import Services, open_services
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.models import (
    ChangeSet,
    Concept,
    Content,
    NodeLabel,
    Person,
    Quote,
    Relation,
    Section,
    content_id,
    person_id,
    quote_id,
    section_id,
    stable_id,
)
from zettelgraph.packs.relations import (
    AUTHORED_BY,
    CITES,
    IN_SECTION,
    QUOTED_IN,
    SECTION_OF,
    SUPPORTS,
)
from zettelgraph.prompts import answer_question
from zettelgraph.services.ask import ask, guess_language, search
from zettelgraph.settings import Settings

PASSAGES = [
    "Los castores construyen presas de troncos y barro en los ríos del norte.",
    "La fotosíntesis convierte la luz del sol en azúcares dentro de las hojas.",
    "Las abejas danzan para indicar a la colmena dónde están las flores.",
]


def make_services(
    home: Path, replies: dict[str, list[Any]] | None = None, urls: dict[str, str] | None = None
) -> Services:
    settings = Settings(home=home, llm="fake", embeddings="hash", llm_backoff=0.0, **(urls or {}))
    llms = ChatModels(settings, preset={"fake": FakeChatModel(replies=replies or {})})
    return open_services(settings, llms=llms)


def add_document(services: Services) -> dict[str, str]:
    """A PDF-like Content by an author: one section per passage, pages 1..3."""
    store = services.store
    store.ensure_embedder(services.embedder.name, services.embedder.dim)
    cid = content_id("Naturaleza", "Ana Autora")
    author = Person(id=person_id("Ana Autora"), name="Ana Autora")
    sections, quotes = [], []
    for i, text in enumerate(PASSAGES):
        sid = section_id(cid, i, text)
        sections.append(
            Section(
                id=sid,
                content_id=cid,
                title=f"Page {i + 1}",
                text=text,
                position=i,
                location={"page": i + 1},
            )
        )
        quotes.append(
            Quote(
                id=quote_id(cid, text),
                content_id=cid,
                text=text,
                position=i,
                page=str(i + 1),
                location={"page": i + 1},
                parent_id=sid,
            )
        )
    vectors = services.embedder.embed(PASSAGES)
    relations = [Relation(source_id=cid, target_id=author.id, type=AUTHORED_BY)]
    for q in quotes:
        relations.append(Relation(source_id=q.id, target_id=cid, type=QUOTED_IN))
        relations.append(Relation(source_id=q.id, target_id=q.parent_id or "", type=IN_SECTION))
    relations += [Relation(source_id=s.id, target_id=cid, type=SECTION_OF) for s in sections]
    store.apply(
        ChangeSet(
            contents=[Content(id=cid, title="Naturaleza", kind="pdf")],
            persons=[author],
            sections=sections,
            quotes=quotes,
            relations=relations,
            vectors={q.id: vectors[i] for i, q in enumerate(quotes)},
        )
    )
    return {"content": cid, **{f"q{i}": q.id for i, q in enumerate(quotes)}}


@pytest.fixture(params=["sqlite", "falkordb"])
def store_urls(request: pytest.FixtureRequest) -> dict[str, str]:
    """The embedded store, then a FalkorDB graph of the test's own: search and ask use only
    the store protocol, so both must give the same citations."""
    if request.param == "sqlite":
        return {}
    return {"store": request.getfixturevalue("falkordb_graph_url")}


@pytest.fixture
def services(tmp_path: Path, store_urls: dict[str, str]) -> Iterator[Services]:
    s = make_services(tmp_path / "home", urls=store_urls)
    yield s
    s.close()


def test_search_returns_cited_passages_with_context(services: Services) -> None:
    ids = add_document(services)
    results = search(services, "¿Qué construyen los castores en los ríos?", k=3)
    top = results[0]
    assert top.passage_id == ids["q0"]
    assert top.n == 1
    assert top.content_title == "Naturaleza"
    assert top.content_kind == "pdf"
    assert top.author == "Ana Autora"
    assert top.location == {"page": 1}
    assert top.location_label == "p. 1"
    assert top.section_title == "Page 1"
    assert top.context == PASSAGES[0]
    assert "fulltext" in top.methods and "vector" in top.methods
    assert [r.n for r in results] == list(range(1, len(results) + 1))


def test_search_recipes_and_empty_queries(services: Services) -> None:
    ids = add_document(services)
    only_text = search(services, "abejas colmena", k=5, recipe="fulltext")
    assert [r.passage_id for r in only_text] == [ids["q2"]]
    assert only_text[0].methods == ["fulltext"]
    assert search(services, "¿?", k=5) == []
    with pytest.raises(ValueError, match="unknown search recipe"):
        search(services, "abejas", recipe="magic")


def test_graph_expansion_reaches_passages_through_concepts(services: Services) -> None:
    ids = add_document(services)
    store = services.store
    concept = Concept(
        id=stable_id("concept", "ingeniería animal"),
        title="Ingeniería animal hidráulica",
        concept="Ingeniería animal hidráulica",
        summary_short="Ingeniería animal hidráulica",
    )
    store.apply(
        ChangeSet(
            concepts=[concept],
            relations=[Relation(source_id=ids["q0"], target_id=concept.id, type=SUPPORTS)],
            vectors={concept.id: services.embedder.embed([concept.title])[0]},
        )
    )
    # No word of the query is in the passage: only the concept leads to it.
    results = search(services, "ingeniería animal hidráulica", k=3)
    assert results[0].passage_id == ids["q0"]
    assert "graph" in results[0].methods
    assert results[0].method_scores["graph"] > 0.9
    assert search(services, "ingeniería animal hidráulica", k=3, recipe="fulltext") == []
    assert results[0].concepts == [{"id": concept.id, "title": concept.title}]


def test_ask_maps_markers_to_passages_and_stores_the_answer(
    tmp_path: Path, store_urls: dict[str, str]
) -> None:
    reply = {
        "language": "es",
        "answerable": True,
        "sentences": [
            {"text": "Construyen presas de troncos y barro.", "sources": ["q1", "q9"]},
            {"text": "Lo hacen en los ríos del norte.", "sources": ["q1"]},
            {"text": "Lo hacen en  los ríos del norte.", "sources": ["q2"]},  # a repeat
        ],
    }
    services = make_services(tmp_path / "home", {answer_question.NAME: [reply]}, store_urls)
    try:
        ids = add_document(services)
        outcome = ask(services, "¿Qué construyen los castores?", k=3)
        answer = outcome.answer
        assert answer.answerable
        assert answer.answer == (
            "Construyen presas de troncos y barro. [1] Lo hacen en los ríos del norte. [1] [2]"
        )
        assert any("'q9'" in w for w in outcome.warnings)  # invented id dropped, said so
        markers = {int(n) for n in re.findall(r"\[(\d+)\]", answer.answer)}
        by_n = {r.n: r for r in outcome.results}
        assert markers <= set(by_n)
        assert by_n[1].passage_id == ids["q0"]
        stored = services.store.answers(limit=5)
        assert [a.id for a in stored] == [answer.id]
        assert stored[0].citations[0]["quote_id"] == ids["q0"]
        assert stored[0].citations[0]["cited"] is True
        assert [c["cited"] for c in stored[0].citations[1:]] == [True, False]
        cites = services.store.relations(answer.id, relation_type=CITES)
        assert sorted(r.properties["n"] for r in cites) == [1, 2]
    finally:
        services.close()


def test_ask_without_support_says_it_cannot_answer(tmp_path: Path) -> None:
    uncited = {"language": "es", "answerable": True, "sentences": [{"text": "Sí.", "sources": []}]}
    services = make_services(tmp_path / "home", {answer_question.NAME: [uncited]})
    try:
        add_document(services)
        outcome = ask(services, "¿Qué construyen los castores?", k=3)
        assert not outcome.answer.answerable
        assert outcome.answer.answer == "Tus lecturas no contienen la respuesta a esta pregunta."
        assert services.store.relations(outcome.answer.id, relation_type=CITES) == []
        # Nothing found at all: no LLM call, still an answer on record.
        calls = services.usage.as_dict()
        empty = ask(services, "What about quantum chromodynamics?", k=3, recipe="fulltext")
        assert empty.results == []
        assert empty.answer.answer == "Your reading does not contain the answer to this question."
        assert services.usage.as_dict() == calls
        assert services.store.counts()[str(NodeLabel.ANSWER)] == 2
    finally:
        services.close()


def test_guess_language() -> None:
    assert guess_language("¿Dónde viven?", "en") == "es"
    assert guess_language("Where do they live?", "es") == "en"
    assert guess_language("castores", "es") == "es"
