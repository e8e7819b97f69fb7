"""The tool registry's types: what a tool is, what it gets, how it is run.

A tool is a pure function over the store: given the experiment's focus term and some
documents it returns a typed `ToolOutput`. Its description is what the recommender (stage 2
of an experiment) reads to choose it. `scope` says how it runs: a "document" tool once per
document (independent, so documents run in parallel), a "corpus" tool once over every
document the strategy gave it (it compares them).

The registry itself (`TOOLS`) is in `experiments.tools`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from zettelgraph.experiments.models import DocumentInfo, FocusTerm, ToolOutput, ToolRun
from zettelgraph.llm.embeddings import Embedder
from zettelgraph.models import Content, Quote
from zettelgraph.models.locations import location_label
from zettelgraph.store.base import GraphStore

Scope = Literal["document", "corpus"]


@dataclass(frozen=True)
class Document:
    """A content with its passages, as the tools read it."""

    info: DocumentInfo
    passages: Sequence[Quote]

    def location(self, passage: Quote) -> str:
        return location_label(passage.location, page=passage.page)


@dataclass(frozen=True)
class ToolContext:
    """What every tool may read: the store, the embedder, the term."""

    store: GraphStore
    embedder: Embedder
    term: FocusTerm


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    scope: Scope
    output: type[ToolOutput]
    run: Callable[[ToolContext, Sequence[Document]], ToolOutput] = field(repr=False)


def _year(content: Content) -> int | None:
    value = content.metadata.get("year") or content.metadata.get("date")
    if isinstance(value, int):
        return value
    digits = str(value or "")[:4]
    return int(digits) if digits.isdigit() else None


def document_info(store: GraphStore, content: Content, passages: int) -> DocumentInfo:
    """The structured metadata of a content: title, author, year, kind, language, domain,
    journal, DOI and abstract."""
    author = store.author_of(content.id)
    metadata = content.metadata
    domain = metadata.get("domain") or metadata.get("field")
    language = metadata.get("language") or metadata.get("lang")
    journal, doi = metadata.get("journal"), metadata.get("doi")
    return DocumentInfo(
        id=content.id,
        title=content.title,
        author=author.name if author else None,
        year=_year(content),
        kind=content.kind,
        language=str(language) if language else None,
        domain=str(domain) if domain else None,
        journal=str(journal) if journal else None,
        doi=str(doi) if doi else None,
        abstract=str(metadata.get("abstract") or ""),
        passages=passages,
        summary_short=content.summary_short,
    )


def load_documents(store: GraphStore, content_ids: Sequence[str]) -> list[Document]:
    """The documents of `content_ids`, in the order given. Raises KeyError naming the first
    id the store does not know."""
    documents: list[Document] = []
    for content_id in content_ids:
        content = store.get_content(content_id)
        if content is None:
            raise KeyError(content_id)
        passages = store.quotes_of(content_id)
        documents.append(Document(document_info(store, content, len(passages)), passages))
    return documents


def run_tool(tool: Tool, context: ToolContext, documents: Sequence[Document]) -> ToolRun:
    """Run `tool`, timing it; an exception becomes the run's error (one broken tool must not
    lose the others' results)."""
    started = time.perf_counter()
    ids = [d.info.id for d in documents]
    try:
        output = tool.run(context, documents)
    except Exception as exc:  # a tool's failure is reported, the experiment goes on
        return ToolRun(
            tool=tool.name,
            document_ids=ids,
            seconds=round(time.perf_counter() - started, 4),
            error=f"{type(exc).__name__}: {exc}",
        )
    return ToolRun(
        tool=tool.name,
        document_ids=ids,
        seconds=round(time.perf_counter() - started, 4),
        output=output.model_dump(mode="json"),
    )
