"""Wiring of the Quote Parse Graph:

    read_file -> parse_quotes -> make_summary -> get_or_create_author -> write_to_db

Parsing comes before the summary (the design documents put it after) so a file without
quotes, or one that did not change, never costs an LLM call.
"""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import RetryPolicy

from zettelgraph.context import Services
from zettelgraph.llm.structured import is_transient
from zettelgraph.workflows.quote_parse import nodes, nodes_summaries, routes
from zettelgraph.workflows.quote_parse.state import (
    QuoteParseInput,
    QuoteParseOutput,
    QuoteParseState,
)
from zettelgraph.workflows.studio import entry_point
from zettelgraph.workflows.wiring import add_nodes

RECURSION_LIMIT = 20
# Transient store errors (a locked database) are retried; bad input is not.
STORE_RETRY = RetryPolicy(max_attempts=3, initial_interval=0.5, retry_on=is_transient)


def build_quote_parse_graph(
    services: Services, checkpointer: BaseCheckpointSaver[Any] | None = None
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the graph with `services` bound into every node."""
    builder = StateGraph(
        QuoteParseState, input_schema=QuoteParseInput, output_schema=QuoteParseOutput
    )
    add_nodes(
        builder,
        services,
        {
            "read_file": nodes.read_file,
            "parse_quotes": nodes.parse_quotes,
            "make_summary": nodes.make_summary,
            "summarize_passages": nodes_summaries.summarize_passages_node,
            "get_or_create_author": nodes.get_or_create_author,
        },
        retry=None,
    )
    add_nodes(builder, services, {"write_to_db": nodes.write_to_db}, retry=STORE_RETRY)
    builder.add_edge(START, "read_file")
    builder.add_edge("read_file", "parse_quotes")
    builder.add_conditional_edges(
        "parse_quotes", routes.after_parse, ["make_summary", "write_to_db", END]
    )
    builder.add_edge("make_summary", "summarize_passages")
    builder.add_edge("summarize_passages", "get_or_create_author")
    builder.add_edge("get_or_create_author", "write_to_db")
    builder.add_edge("write_to_db", END)
    return builder.compile(checkpointer=checkpointer, name="quote_parse")


make_graph = entry_point(build_quote_parse_graph)
