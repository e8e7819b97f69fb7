"""Search and ask narrowed by a filter, and ask as a conversation, through the services the
CLI, the web app and the MCP server call (real stores, hash embedder, fake LLM with scripted
replies per call name)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
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
    PassageFilter,
    Person,
    Quote,
    Relation,
    content_id,
    person_id,
    quote_id,
    stable_id,
)
from zettelgraph.packs.relations import AUTHORED_BY, CITES, QUOTED_IN, SUPPORTS
from zettelgraph.prompts import answer_question, condense_question
from zettelgraph.services.ask import (
    FilterError,
    UnknownChatError,
    ask,
    chat_thread,
    passage_filter,
    search,
)
from zettelgraph.settings import Settings

# title, author, kind, [(text, Quote fields)]. Every passage says "memoria"; the book says it
# most, so unfiltered it ranks first.
SOURCES: list[tuple[str, str, str, list[tuple[str, dict[str, Any]]]]] = [
    (
        "Spark",
        "John Ratey",
        "book",
        [
            ("Memoria y más memoria: el ejercicio cuida la memoria.", {"page": "12"}),
            ("La memoria, la memoria y la memoria mejoran al correr.", {"page": "41"}),
        ],
    ),
    (
        "Naturaleza",
        "Ana Autora",
        "pdf",
        [
            (
                "Los castores construyen presas de troncos y barro en los ríos del norte.",
                {"location": {"page": 3}},
            ),
            (
                "Las abejas danzan para indicar a la colmena dónde están las flores.",
                {"location": {"page": 8}},
            ),
            ("La memoria de las abejas guarda el camino a las flores.", {"location": {"page": 9}}),
        ],
    ),
    (
        "Diapositivas",
        "José Ortega",
        "pptx",
        [
            (f"La memoria en la diapositiva {n} del curso.", {"location": {"slide": n}})
            for n in range(1, 5)
        ],
    ),
    (
        "Charla",
        "Ana Autora",
        "transcript",
        [
            (
                "Al principio hablamos de memoria y sueño.",
                {"location": {"start": "00:01:00", "end": "00:02:00"}},
            ),
            (
                "Más tarde, la memoria de trabajo.",
                {"location": {"start": "00:12:03", "end": "00:13:10"}},
            ),
        ],
    ),
]


def make_services(
    home: Path, replies: dict[str, list[Any]] | None = None, urls: dict[str, str] | None = None
) -> Services:
    settings = Settings(home=home, llm="fake", embeddings="hash", llm_backoff=0.0, **(urls or {}))
    llms = ChatModels(settings, preset={"fake": FakeChatModel(replies=replies or {})})
    return open_services(settings, llms=llms)


def add_library(services: Services) -> dict[str, list[str]]:
    """The SOURCES, embedded: {title: [passage ids in order]}, plus "content:TITLE" ids."""
    store = services.store
    store.ensure_embedder(services.embedder.name, services.embedder.dim)
    out: dict[str, list[str]] = {}
    for title, author, kind, passages in SOURCES:
        cid = content_id(title, author)
        person = Person(id=person_id(author), name=author)
        quotes = [
            Quote(id=quote_id(cid, text), content_id=cid, text=text, position=i, **fields)
            for i, (text, fields) in enumerate(passages)
        ]
        vectors = services.embedder.embed([q.text for q in quotes])
        relations = [Relation(source_id=cid, target_id=person.id, type=AUTHORED_BY)]
        relations += [Relation(source_id=q.id, target_id=cid, type=QUOTED_IN) for q in quotes]
        store.apply(
            ChangeSet(
                contents=[Content(id=cid, title=title, kind=kind)],
                persons=[person],
                quotes=quotes,
                relations=relations,
                vectors={q.id: vectors[i] for i, q in enumerate(quotes)},
            )
        )
        out[title] = [q.id for q in quotes]
        out[f"content:{title}"] = [cid]
    return out


@pytest.fixture(params=["sqlite", "falkordb"])
def store_urls(request: pytest.FixtureRequest) -> dict[str, str]:
    if request.param == "sqlite":
        return {}
    return {"store": request.getfixturevalue("falkordb_graph_url")}


@pytest.fixture
def services(tmp_path: Path, store_urls: dict[str, str]) -> Iterator[Services]:
    s = make_services(tmp_path / "home", urls=store_urls)
    yield s
    s.close()


def _ids(results: list[Any]) -> list[str]:
    return [r.passage_id for r in results]


# --- search with a filter ------------------------------------------------------------------


def test_search_within_an_author_or_kind_still_returns_k(services: Services) -> None:
    ids = add_library(services)
    unfiltered = search(services, "memoria", k=2)
    assert set(_ids(unfiltered)) <= set(ids["Spark"])  # the book wins without a filter
    by_ortega = passage_filter(services, authors=["jose ORTEGA"])
    results = search(services, "memoria", k=3, passages=by_ortega)
    assert len(results) == 3 and set(_ids(results)) <= set(ids["Diapositivas"])
    assert {r.author for r in results} == {"José Ortega"}
    transcripts = passage_filter(services, kinds=["Transcript"])
    assert set(_ids(search(services, "memoria", k=5, passages=transcripts))) == set(ids["Charla"])
    # The front ends pass an option not given as None: it narrows nothing.
    assert passage_filter(services, contents=None, kinds=["Transcript"], where=None) == transcripts


def test_search_within_a_content_by_title_and_a_place(services: Services) -> None:
    ids = add_library(services)
    pages = passage_filter(services, contents=["naturaleza"], where=["p. 8-20"])
    assert pages is not None and pages.content_ids == tuple(ids["content:Naturaleza"])
    results = search(services, "memoria abejas flores", k=5, passages=pages)
    assert set(_ids(results)) == set(ids["Naturaleza"][1:])
    assert all(r.location["page"] >= 8 for r in results)
    minutes = passage_filter(services, where=["time=00:10:00-00:20:00"])
    assert _ids(search(services, "memoria", k=5, passages=minutes)) == [ids["Charla"][1]]
    book_pages = passage_filter(services, where=["pages=40-50"])
    assert _ids(search(services, "memoria", k=5, passages=book_pages)) == [ids["Spark"][1]]
    slides = passage_filter(services, where=["slides=2-3"])
    assert set(_ids(search(services, "memoria", k=5, passages=slides))) == set(
        ids["Diapositivas"][1:3]
    )


def test_a_filter_that_cannot_be_used_says_why(services: Services) -> None:
    add_library(services)
    assert passage_filter(services) is None
    assert passage_filter(services, contents=[" "], where=[""]) is None
    cases: list[tuple[Callable[[], Any], str]] = [
        (lambda: passage_filter(services, kinds=["pfd"]), "yours: book, pdf, pptx, transcript"),
        (lambda: passage_filter(services, authors=["Nadie"]), "no author of that name"),
        (lambda: passage_filter(services, contents=["Moby Dick"]), "no content with that id"),
        (lambda: passage_filter(services, where=["pgs=3"]), "unknown unit 'pgs'"),
    ]
    for call, message in cases:
        with pytest.raises(FilterError, match=re.escape(message)):
            call()


def test_graph_expansion_keeps_to_the_filter(services: Services) -> None:
    ids = add_library(services)
    concept = Concept(
        id=stable_id("concept", "ingeniería animal"),
        title="Ingeniería animal hidráulica",
        concept="Ingeniería animal hidráulica",
        summary_short="Ingeniería animal hidráulica",
    )
    beavers, slide = ids["Naturaleza"][0], ids["Diapositivas"][0]
    services.store.apply(
        ChangeSet(
            concepts=[concept],
            relations=[
                Relation(source_id=beavers, target_id=concept.id, type=SUPPORTS),
                Relation(source_id=slide, target_id=concept.id, type=SUPPORTS),
            ],
            vectors={concept.id: services.embedder.embed([concept.title])[0]},
        )
    )
    # No word of the query is in either passage: only the concept leads to them.
    both = search(services, "ingeniería animal hidráulica", k=5)
    assert {beavers, slide} <= set(_ids(both))
    deck = passage_filter(services, kinds=["pptx"])
    only = search(services, "ingeniería animal hidráulica", k=5, passages=deck)
    assert _ids(only)[0] == slide and beavers not in _ids(only)
    assert "graph" in only[0].methods


# --- ask: a filter, and a conversation -----------------------------------------------------


def _recorder(replies: list[Any], prompts: list[str]) -> Callable[[str], Any]:
    """A scripted reply that keeps the prompt it was asked with (replies in order)."""

    def reply(prompt: str) -> Any:
        prompts.append(prompt)
        return replies[min(len(prompts), len(replies)) - 1]

    return reply


def test_a_two_turn_conversation(tmp_path: Path, store_urls: dict[str, str]) -> None:
    answered: list[str] = []
    condensed: list[str] = []
    first = {
        "language": "es",
        "answerable": True,
        "sentences": [{"text": "Danzan para señalar las flores.", "sources": ["q1"]}],
    }
    second = {
        "language": "es",
        "answerable": True,
        "sentences": [
            {"text": "Construyen presas de troncos y barro.", "sources": ["q1"]},
            {"text": "Lo hacen en los ríos del norte.", "sources": ["q1", "q7"]},
        ],
    }
    standalone = "¿Qué construyen los castores en los ríos?"
    replies = {
        answer_question.NAME: [_recorder([first, second], answered)],
        condense_question.NAME: [_recorder([{"question": standalone}], condensed)],
    }
    services = make_services(tmp_path / "home", replies, store_urls)
    try:
        ids = add_library(services)
        one = ask(services, "¿Para qué danzan las abejas?", k=3)
        assert one.answer.turn == 1 and one.answer.chat_id and not condensed
        assert one.results[0].passage_id == ids["Naturaleza"][1]

        # Nothing in the follow-up names the beavers: only the condensed question finds them.
        follow_up = "¿Y qué hacen los otros animales con troncos?"
        two = ask(services, follow_up, k=3, chat_id=one.answer.chat_id)
        answer = two.answer
        assert len(condensed) == 1
        assert "¿Para qué danzan las abejas?" in condensed[0]
        assert "Danzan para señalar las flores." in condensed[0]
        assert "[1]" not in condensed[0]  # the earlier answer's markers are left out
        assert follow_up in condensed[0]
        assert two.results[0].passage_id == ids["Naturaleza"][0]
        assert search(services, standalone, k=3)[0].passage_id == ids["Naturaleza"][0]
        assert "Conversation so far" in answered[1] and "Conversation so far" not in answered[0]
        assert f"That is: {standalone}" in answered[1]

        assert (answer.chat_id, answer.turn) == (one.answer.chat_id, 2)
        assert answer.question == follow_up and answer.standalone_question == standalone
        assert answer.answer == (
            "Construyen presas de troncos y barro. [1] Lo hacen en los ríos del norte. [1]"
        )
        assert any("'q7'" in w for w in two.warnings)
        by_n = {r.n: r for r in two.results}
        markers = {int(n) for n in re.findall(r"\[(\d+)\]", answer.answer)}
        assert markers == {1} and by_n[1].passage_id == ids["Naturaleza"][0]
        cites = services.store.relations(answer.id, relation_type=CITES)
        assert [(r.target_id, r.properties["n"]) for r in cites] == [(ids["Naturaleza"][0], 1)]

        thread = chat_thread(services, str(answer.chat_id))
        assert [(a.id, a.turn) for a in thread] == [(one.answer.id, 1), (answer.id, 2)]
        assert services.usage.as_dict()[condense_question.NAME]["calls"] == 1
        with pytest.raises(UnknownChatError, match="no chat 'chat-nope'"):
            ask(services, "¿Y?", chat_id="chat-nope")
    finally:
        services.close()


def test_a_follow_up_keeps_the_filter_unless_given_one(
    tmp_path: Path, store_urls: dict[str, str]
) -> None:
    # Every follow-up stands alone as "memoria memoria", which the book wins unfiltered.
    replies = {condense_question.NAME: [{"question": "memoria memoria"}]}
    services = make_services(tmp_path / "home", replies, store_urls)
    try:
        _follow_ups_keep_the_filter(services)
    finally:
        services.close()


def _follow_ups_keep_the_filter(services: Services) -> None:
    ids = add_library(services)
    deck = passage_filter(services, contents=["Diapositivas"])
    one = ask(services, "¿Qué dice de la memoria?", k=2, passages=deck)
    assert set(_ids(one.results)) <= set(ids["Diapositivas"])
    assert PassageFilter.model_validate(one.answer.passage_filter) == deck

    chat = one.answer.chat_id
    two = ask(services, "¿Y en la siguiente?", k=2, chat_id=chat)
    assert two.answer.passage_filter == one.answer.passage_filter
    assert set(_ids(two.results)) <= set(ids["Diapositivas"])

    everything = ask(services, "memoria memoria", k=2, chat_id=chat, passages=PassageFilter())
    assert everything.answer.passage_filter == {} and everything.answer.turn == 3
    assert set(_ids(everything.results)) <= set(ids["Spark"])
