"""Biographies of new authors (Quote Parse Graph, get_or_create_author).

Two enrichers implement `AuthorEnricher`:
- `LLMAuthorEnricher` asks the fast model what it remembers; the stored biography says it is
  not verified (ZETTELGRAPH_AUTHOR_SEARCH=none, the default, and fully offline);
- `WebSearchAuthorEnricher` first asks a LangChain search tool (DuckDuckGo through `ddgs`, or
  Tavily through `langchain-tavily`; the `search` extra), shows the model the results,
  numbered, and keeps the URLs of those its biography cites. When the search fails or finds
  nothing, it falls back to the model's memory, with a warning.

`context.open_services` picks the enricher (`author_enricher`) and gives it the settings,
the models and the run's usage log: nothing here knows the `Services` bundle.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from langchain_core.tools import BaseTool
from pydantic import ValidationError

from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.usage import UsageLog
from zettelgraph.prompts import author_bio
from zettelgraph.prompts.author_bio import Biography, SearchResult
from zettelgraph.settings import Settings
from zettelgraph.system.extras import require
from zettelgraph.text.summaries import short_summary

SEARCH_TOOLS = ("none", "duckduckgo", "tavily")


class AuthorEnricher(Protocol):
    """Finds a short biography for a new author; None when it cannot.

    ZETTELGRAPH_AUTHOR_SEARCH picks one of this module's (the model's memory, or web search
    results it cites); any other can replace it. One that returns an `author_bio.Biography`
    says where the biography comes from, and that is stored with it.
    """

    def __call__(self, name: str, title: str) -> author_bio.AuthorBio | None: ...


class SearchConfigError(ValueError):
    """The configured search tool cannot be used (e.g. Tavily without its API key)."""


class DuckDuckGoSearch(BaseTool):
    """DuckDuckGo text search through the `ddgs` package: no account, no key."""

    name: str = "duckduckgo_search"
    description: str = "Search the web. Input: a query. Output: results with title, url, text."
    max_results: int = author_bio.MAX_RESULTS

    def _run(self, query: str) -> list[dict[str, Any]]:
        ddgs = require("ddgs", "search", "ZETTELGRAPH_AUTHOR_SEARCH=duckduckgo")
        results: list[dict[str, Any]] = ddgs.DDGS().text(query, max_results=self.max_results)
        return results


def search_tool(kind: str) -> BaseTool:
    """The LangChain tool ZETTELGRAPH_AUTHOR_SEARCH names; a clear error when its package or
    key is missing."""
    if kind == "duckduckgo":
        require("ddgs", "search", "ZETTELGRAPH_AUTHOR_SEARCH=duckduckgo")
        return DuckDuckGoSearch()
    if kind == "tavily":
        tavily = require("langchain_tavily", "search", "ZETTELGRAPH_AUTHOR_SEARCH=tavily")
        try:
            tool: BaseTool = tavily.TavilySearch(max_results=author_bio.MAX_RESULTS)
        except ValidationError as exc:  # langchain-tavily reads TAVILY_API_KEY itself
            raise SearchConfigError(
                "ZETTELGRAPH_AUTHOR_SEARCH=tavily needs your Tavily key in TAVILY_API_KEY; "
                "or set ZETTELGRAPH_AUTHOR_SEARCH=duckduckgo (no key) or none"
            ) from exc
        return tool
    raise SearchConfigError(
        f"unknown author search {kind!r}: ZETTELGRAPH_AUTHOR_SEARCH is one of "
        + ", ".join(SEARCH_TOOLS)
    )


def read_results(raw: Any) -> list[SearchResult]:
    """Search results from what a tool returned: a list of results, a mapping holding them
    under `results` (Tavily), or either as JSON text. A result without a URL is skipped: a
    biography cannot cite it."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return []
    if isinstance(raw, Mapping):
        if raw.get("error"):
            raise RuntimeError(str(raw["error"]))
        raw = raw.get("results", [])
    if not isinstance(raw, list):
        return []
    results: list[SearchResult] = []
    for item in raw:
        if not isinstance(item, Mapping):
            continue
        url = str(item.get("url") or item.get("href") or item.get("link") or "").strip()
        if not url.startswith(("http://", "https://")):
            continue
        snippet = str(item.get("content") or item.get("body") or item.get("snippet") or "")
        results.append(
            SearchResult(
                title=str(item.get("title") or "")[:300], url=url[:2000], snippet=snippet[:1200]
            )
        )
    return results


def ask_for_biography(
    settings: Settings,
    llms: ChatModels,
    usage: UsageLog,
    name: str,
    title: str,
    results: list[SearchResult],
) -> Biography:
    """The fast model's biography of `name`: from `results` (cited) when there are some,
    else from its memory. The call is recorded in `usage`."""
    compact = llms.fast_profile.compact
    data = author_bio.AuthorBioInput(
        name=name,
        title=title,
        language=settings.concept_language,
        results=results,
        compact=compact,
    )
    answer = llms.structured(
        llms.fast,
        name=author_bio.NAME,
        messages=author_bio.messages(data),
        response_model=author_bio.response_model(compact, sourced=bool(results)),
        usage=usage,
    )
    # A small model is not asked for the short summary: it is cut from the summary.
    short = getattr(answer, "summary_short", None) or short_summary(answer.summary)
    if not isinstance(answer, author_bio.CompactSourcedAuthorBio):
        return Biography(summary=answer.summary, summary_short=short, occupation=answer.occupation)
    # Only results that were shown can be cited: a number the model invents loses its
    # marker, it never gains a URL.
    cited = author_bio.cited_numbers(answer.summary, answer.cited_sources, len(results))
    return Biography(
        summary=author_bio.renumber_citations(answer.summary, cited) or answer.summary,
        summary_short=author_bio.renumber_citations(short, []),
        occupation=answer.occupation,
        sources=[results[n - 1].url for n in cited],
    )


class LLMAuthorEnricher:
    """Asks the fast chat model for a biography from what it knows (not verified); each call
    is recorded in `usage` (the run's log)."""

    def __init__(self, settings: Settings, llms: ChatModels, usage: UsageLog) -> None:
        self._settings = settings
        self._llms = llms
        self._usage = usage

    def __call__(self, name: str, title: str) -> Biography | None:
        return ask_for_biography(self._settings, self._llms, self._usage, name, title, [])


class WebSearchAuthorEnricher:
    """Searches the web for the author, then asks the fast model for a biography citing the
    results. `tool` is a LangChain tool taking a `query`, or a factory of one (built on the
    first author, so a missing key stops the ingest that needs it, not every command)."""

    def __init__(
        self,
        settings: Settings,
        llms: ChatModels,
        usage: UsageLog,
        tool: BaseTool | Callable[[], BaseTool],
    ) -> None:
        self._settings = settings
        self._llms = llms
        self._usage = usage
        self._tool = tool

    def _search_tool(self) -> BaseTool:
        if not isinstance(self._tool, BaseTool):
            self._tool = self._tool()
        return self._tool

    def __call__(self, name: str, title: str) -> Biography | None:
        tool = self._search_tool()
        fallback = "the biography is the model's memory, not verified"
        warnings: list[str] = []
        try:
            results = read_results(tool.invoke({"query": f'"{name}" {title} author biography'}))
        # Any failure of an optional web search (network, rate limit, the service's own
        # error) costs the sources, never the ingest.
        except Exception as exc:
            results = []
            warnings.append(
                f"web search for {name} failed ({type(exc).__name__}: {exc}); {fallback}"
            )
        else:
            if not results:
                warnings.append(f"web search found nothing on {name}; {fallback}")
        bio = ask_for_biography(
            self._settings,
            self._llms,
            self._usage,
            name,
            title,
            results[: author_bio.MAX_RESULTS],
        )
        if results and not bio.sources:
            warnings.append(f"the biography of {name} cites no search result; {fallback}")
        return bio.model_copy(update={"warnings": [*warnings, *bio.warnings]})


def author_enricher(settings: Settings, llms: ChatModels, usage: UsageLog) -> AuthorEnricher:
    """The enricher ZETTELGRAPH_AUTHOR_SEARCH asks for, writing with the fast model of `llms`
    and recording its calls in `usage`."""
    kind = settings.author_search
    if kind == "none":
        return LLMAuthorEnricher(settings, llms, usage)
    return WebSearchAuthorEnricher(settings, llms, usage, lambda: search_tool(kind))
