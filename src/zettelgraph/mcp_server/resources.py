"""Resources: the reader's concepts and sources as Markdown a person or a model reads
through, each passage with its citation.

- `zettelgraph://concepts`: every concept, one line each with its URI;
- `zettelgraph://concepts/{concept_id}`: a concept with its relations and quotes;
- `zettelgraph://contents`: every source;
- `zettelgraph://contents/{content_id}`: a source with its author, summary and passages in
  reading order.

Ids are only looked up in the store, never used as paths.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError

from zettelgraph.mcp_server.results import CONCEPT_URI, CONTENT_URI, cite
from zettelgraph.mcp_server.state import McpState
from zettelgraph.services import browse

MARKDOWN = "text/markdown"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.strip().splitlines())


def concepts_markdown(state: McpState) -> str:
    rows = browse.concept_rows(state.services.store)
    lines = [f"# Concepts ({len(rows)})", ""]
    if not rows:
        lines.append(
            "No approved concepts yet: a run's concepts appear once the reader approves it."
        )
    for row in rows:
        summary = _one_line(row["summary_short"])
        lines.append(
            f"- [{row['title']}]({CONCEPT_URI.format(row['id'])})"
            + (f": {summary}" if summary else "")
            + f" ({row['relations']} relations, {row['quotes']} quotes)"
        )
    return "\n".join(lines) + "\n"


def concept_markdown(state: McpState, concept_id: str) -> str:
    store = state.services.store
    concept = store.get_concept(concept_id)
    if concept is None:
        raise ResourceNotFoundError(f"no concept with id {concept_id!r}")
    detail: dict[str, Any] = browse.concept_detail(store, concept)
    lines = [f"# {concept.title}", ""]
    if concept.summary_short:
        lines += [f"*{_one_line(concept.summary_short)}*", ""]
    lines += [concept.concept.strip(), ""]
    if concept.analysis.strip():
        lines += ["## Analysis", "", concept.analysis.strip(), ""]
    if concept.summary.strip():
        lines += ["## Summary", "", concept.summary.strip(), ""]
    relations = [
        (r["type"], r["target"], r["target_id"], r["explanation"]) for r in detail["relations"]
    ] + [
        (f"{r['type']} (from)", r["source"], r["source_id"], r["explanation"])
        for r in detail["incoming"]
        if not r["inferred"]
    ]
    if relations:
        lines += ["## Relations", ""]
        for kind, title, other, why in relations:
            lines.append(
                f"- {kind} [{title}]({CONCEPT_URI.format(other)})"
                + (f": {_one_line(why)}" if why else "")
            )
        lines.append("")
    if detail["quotes"]:
        lines += ["## Quotes", ""]
        for view in detail["quotes"]:
            source = cite(view["content"], view["author"], view["location_label"])
            lines += [
                _quote(view["text"]),
                f"— {source} ({CONTENT_URI.format(view['content_id'])})",
                "",
            ]
    return "\n".join(lines)


def contents_markdown(state: McpState) -> str:
    rows = browse.content_rows(state.services.store)
    lines = [f"# Sources ({len(rows)})", ""]
    for row in rows:
        by = f" by {row['author']}" if row["author"] else ""
        done = "concepts extracted" if row["processed_date"] else "concepts not extracted yet"
        lines.append(
            f"- [{row['title']}]({CONTENT_URI.format(row['id'])}){by} ({row['kind']}, "
            f"{row['quotes']} passages, {done})"
        )
    return "\n".join(lines) + "\n"


def content_markdown(state: McpState, content_id: str) -> str:
    detail = browse.content_detail(state.services.store, content_id)
    if detail is None:
        raise ResourceNotFoundError(f"no source with id {content_id!r}")
    author = (detail.get("author") or {}).get("name")
    lines = [f"# {detail['title']}", ""]
    if author:
        lines += [f"By {author}.", ""]
    if str(detail.get("summary") or "").strip():
        lines += [str(detail["summary"]).strip(), ""]
    lines += [f"## Passages ({len(detail['quotes'])})", ""]
    for view in detail["quotes"]:
        place = view["location_label"]
        lines += [_quote(view["text"]), f"— {place}" if place else "—", ""]
    return "\n".join(lines)


def register(server: MCPServer[Any], state: McpState) -> None:
    @server.resource(
        "zettelgraph://concepts", name="concepts", title="Concepts", mime_type=MARKDOWN
    )
    def concepts() -> str:
        """Every approved concept with its short summary and URI."""
        return concepts_markdown(state)

    @server.resource(
        "zettelgraph://concepts/{concept_id}", name="concept", title="Concept", mime_type=MARKDOWN
    )
    def concept(concept_id: str) -> str:
        """A concept with its analysis, relations and the quotes it was drawn from."""
        return concept_markdown(state, concept_id)

    @server.resource("zettelgraph://contents", name="contents", title="Sources", mime_type=MARKDOWN)
    def contents() -> str:
        """Every source the reader has ingested, with its author and passages."""
        return contents_markdown(state)

    @server.resource(
        "zettelgraph://contents/{content_id}", name="content", title="Source", mime_type=MARKDOWN
    )
    def content(content_id: str) -> str:
        """A source with its author, summary and passages in reading order."""
        return content_markdown(state, content_id)
