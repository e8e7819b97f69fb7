"""Biographies of new authors (issue 16, the Quote Parse Graph's get_or_create_author): the model's
memory marked as unverified, or web search results the biography cites. Real SQLite store, fake
LLM; the web search is a LangChain tool defined here that answers fixed results (no network).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.tools import BaseTool
from pydantic import Field

from zettelgraph.context import Services, open_services
from zettelgraph.context.author_search import (
    DuckDuckGoSearch,
    LLMAuthorEnricher,
    SearchConfigError,
    WebSearchAuthorEnricher,
    author_enricher,
    read_results,
    search_tool,
)
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.models import Person
from zettelgraph.prompts import author_bio
from zettelgraph.settings import Settings
from zettelgraph.workflows.quote_parse.graph import build_quote_parse_graph

NOTES = """---
title: El árbol de la ciencia
author: Pío Baroja
---

# Citas

## Primera parte

La ciencia es un instrumento para conocer el mundo, no un dogma que lo explique todo.
12
"""
RESULTS = [
    {
        "title": "Pío Baroja - Wikipedia",
        "url": "https://es.wikipedia.org/wiki/P%C3%ADo_Baroja",
        "content": "Pío Baroja y Nessi (1872-1956), escritor español de la Generación del 98.",
    },
    {"title": "Sin enlace", "content": "Un resultado sin URL no se puede citar."},
    {
        "title": "Baroja, médico y novelista",
        "href": "https://www.cervantesvirtual.com/portales/pio_baroja/",
        "body": "Estudió medicina y ejerció poco tiempo antes de dedicarse a la novela.",
    },
]


class FixedSearch(BaseTool):
    """A web search that answers the same results to every query, and keeps the queries."""

    name: str = "fixed_search"
    description: str = "Answers fixed results."
    queries: list[str] = Field(default_factory=list)
    answer: Any = RESULTS

    def _run(self, query: str) -> Any:
        self.queries.append(query)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def make_services(home: Path, replies: dict[str, list[Any]] | None = None) -> Services:
    settings = Settings(home=home, llm="fake", embeddings="hash", llm_backoff=0.0)
    llm = FakeChatModel(replies=replies or {})
    return open_services(settings, llms=ChatModels(settings, preset={"fake": llm}))


def web_search(services: Services, tool: BaseTool) -> WebSearchAuthorEnricher:
    """The web search enricher over `tool`, with the services' settings, models and usage log."""
    return WebSearchAuthorEnricher(services.settings, services.llms, services.usage, tool)


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    path = tmp_path / "baroja.md"
    path.write_text(NOTES, encoding="utf-8")
    return path


def ingest(services: Services, path: Path) -> tuple[Person, dict[str, Any]]:
    result: dict[str, Any] = build_quote_parse_graph(services).invoke({"file_path": str(path)})
    author = services.store.author_of(result["content_id"])
    assert author is not None
    return author, result


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    s = make_services(tmp_path / "home")
    yield s
    s.close()


def test_by_default_the_biography_is_the_models_memory_marked_unverified(
    services: Services, notes: Path
) -> None:
    assert isinstance(services.enrich_author, LLMAuthorEnricher)
    author, _ = ingest(services, notes)
    assert author.summary.endswith("(de la memoria del modelo, sin verificar)")
    assert len(author.summary.split()) <= 100
    assert author.occupation and "Fuentes" not in author.summary


def test_without_enrichment_an_author_is_author_of_the_book(
    services: Services, notes: Path
) -> None:
    services.enrich_author = None
    author, _ = ingest(services, notes)
    assert author.summary == "Author of El árbol de la ciencia"
    assert author.occupation == "Author"


def test_with_web_search_the_biography_cites_the_results_it_rests_on(
    tmp_path: Path, notes: Path
) -> None:
    prompts: list[str] = []

    def answer(prompt: str) -> dict[str, Any]:
        prompts.append(prompt)
        return {
            # [1] is Wikipedia, [2] the cervantesvirtual result; [9] was never shown.
            "summary": "Pío Baroja estudió medicina [2]. "
            "Fue novelista de la Generación del 98 [1] [9].",
            "summary_short": "Novelista español [1].",
            "occupation": "novelista",
            "cited_sources": [1, 2, 9],
        }

    services = make_services(tmp_path / "home", {"author_bio": [answer]})
    search = FixedSearch()
    services.enrich_author = web_search(services, search)
    try:
        author, result = ingest(services, notes)
    finally:
        services.close()
    assert len(search.queries) == 1 and "Pío Baroja" in search.queries[0]
    # The model saw the results with a URL, numbered, and nothing of the one without.
    assert "[1] Pío Baroja - Wikipedia (https://es.wikipedia.org/" in prompts[0]
    assert "[2] Baroja, médico y novelista (https://www.cervantesvirtual.com/" in prompts[0]
    assert "Sin enlace" not in prompts[0]
    # Sources are numbered in the order the text cites them; the invented [9] is gone.
    assert author.summary == (
        "Pío Baroja estudió medicina [1]. Fue novelista de la Generación del 98 [2]. "
        "Fuentes: [1] https://www.cervantesvirtual.com/portales/pio_baroja/; "
        "[2] https://es.wikipedia.org/wiki/P%C3%ADo_Baroja"
    )
    assert author.summary_short == "Novelista español."
    assert author.occupation == "novelista"
    assert not result.get("warnings")


def test_a_failed_search_falls_back_to_memory_with_a_warning(tmp_path: Path, notes: Path) -> None:
    services = make_services(tmp_path / "home")
    services.enrich_author = web_search(
        services, FixedSearch(answer=ConnectionError("rate limited"))
    )
    try:
        author, result = ingest(services, notes)
    finally:
        services.close()
    assert author.summary.endswith("(de la memoria del modelo, sin verificar)")
    assert any("web search for Pío Baroja failed" in w for w in result["warnings"])


def test_a_biography_that_cites_no_result_is_unverified(tmp_path: Path, notes: Path) -> None:
    reply = {"summary": "Escritor.", "summary_short": "Escritor.", "occupation": "escritor"}
    services = make_services(tmp_path / "home", {"author_bio": [reply]})
    services.enrich_author = web_search(services, FixedSearch())
    try:
        author, result = ingest(services, notes)
    finally:
        services.close()
    assert author.summary == "Escritor. (de la memoria del modelo, sin verificar)"
    assert any("cites no search result" in w for w in result["warnings"])


def test_the_setting_picks_the_search_tool(tmp_path: Path, monkeypatch: Any) -> None:
    settings = Settings(home=tmp_path, llm="fake", embeddings="hash", author_search="duckduckgo")
    services = open_services(settings)
    try:
        assert isinstance(services.enrich_author, WebSearchAuthorEnricher)
    finally:
        services.close()
    assert isinstance(search_tool("duckduckgo"), DuckDuckGoSearch)  # built, never called
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    with pytest.raises(SearchConfigError, match="TAVILY_API_KEY"):
        search_tool("tavily")
    with pytest.raises(SearchConfigError, match="one of none, duckduckgo, tavily"):
        search_tool("bing")
    with pytest.raises(ValueError, match="author_search"):
        Settings(home=tmp_path, author_search="bing")
    assert author_enricher  # the factory open_services uses


def test_search_answers_are_read_from_every_tools_shape() -> None:
    tavily = {"query": "x", "results": [{"title": "T", "url": "https://a.org", "content": "c"}]}
    assert [r.url for r in read_results(tavily)] == ["https://a.org"]
    assert [r.snippet for r in read_results(RESULTS)] == [
        RESULTS[0]["content"],
        RESULTS[2]["body"],
    ]
    assert read_results('[{"link": "https://b.org", "snippet": "s"}]')[0].url == "https://b.org"
    assert read_results("not json") == [] and read_results(None) == []
    assert read_results([{"url": "javascript:alert(1)"}]) == []
    with pytest.raises(RuntimeError, match="quota"):
        read_results({"error": "quota exceeded"})


def test_citation_markers_are_renumbered_in_the_order_kept() -> None:
    text = "A [2]. B [1] [7]. C."
    assert author_bio.cited_numbers(text, [3], shown=3) == [2, 1, 3]
    assert author_bio.renumber_citations(text, [2, 1, 3]) == "A [1]. B [2]. C."
    assert author_bio.provenance_note([], "en") == "(from the model's memory, not verified)"
    assert author_bio.provenance_note(["https://a.org"], "en") == "Sources: [1] https://a.org"


@pytest.mark.parametrize(
    ("settings", "enricher"),
    [
        ({"llm": "local"}, None),  # a 1.5B model's memory of a person: no check can verify it
        ({"llm": "fake", "llm_fast": "local:0.5b"}, None),  # the fast model writes biographies
        ({"llm": "local", "author_bio": True}, LLMAuthorEnricher),
        ({"llm": "local", "author_search": "duckduckgo"}, WebSearchAuthorEnricher),
        ({"llm": "fake", "author_bio": False}, None),
    ],
)
def test_small_local_models_write_no_biography_from_memory(
    tmp_path: Path, settings: dict[str, Any], enricher: type | None
) -> None:
    # The local server is built only when a call needs it: these services never start it.
    services = open_services(Settings(home=tmp_path, embeddings="hash", **settings))
    try:
        if enricher is None:
            assert services.enrich_author is None
        else:
            assert isinstance(services.enrich_author, enricher)
    finally:
        services.close()
