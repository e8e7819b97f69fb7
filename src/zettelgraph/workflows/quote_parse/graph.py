"""Wiring of the Quote Parse Graph:

    read_file -> parse_quotes -> make_summary -> get_or_create_author -> write_to_db

Parsing comes before the summary (the design documents put it after) so a file without
quotes, or one that did not change, never costs an LLM call.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import RetryPolicy

from zettelgraph.llm.structured import is_transient
from zettelgraph.workflows.context import Services
from zettelgraph.workflows.quote_parse import nodes, routes
from zettelgraph.workflows.quote_parse.state import (
    QuoteParseInput,
    QuoteParseOutput,
    QuoteParseState,
)
from zettelgraph.workflows.studio import GraphContext, graph_with_services

RECURSION_LIMIT = 20


def build_quote_parse_graph(
    services: Services, checkpointer: BaseCheckpointSaver[Any] | None = None
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile the graph with `services` bound into every node."""
    builder = StateGraph(
        QuoteParseState, input_schema=QuoteParseInput, output_schema=QuoteParseOutput
    )
    # Transient store errors (a locked database) are retried; bad input is not.
    store_retry = RetryPolicy(max_attempts=3, initial_interval=0.5, retry_on=is_transient)
    builder.add_node("read_file", partial(nodes.read_file, services=services))
    builder.add_node("parse_quotes", partial(nodes.parse_quotes, services=services))
    builder.add_node("make_summary", partial(nodes.make_summary, services=services))
    builder.add_node("get_or_create_author", partial(nodes.get_or_create_author, services=services))
    builder.add_node(
        "write_to_db", partial(nodes.write_to_db, services=services), retry_policy=store_retry
    )
    builder.add_edge(START, "read_file")
    builder.add_edge("read_file", "parse_quotes")
    builder.add_conditional_edges(
        "parse_quotes", routes.after_parse, ["make_summary", "write_to_db", END]
    )
    builder.add_edge("make_summary", "get_or_create_author")
    builder.add_edge("get_or_create_author", "write_to_db")
    builder.add_edge("write_to_db", END)
    return builder.compile(checkpointer=checkpointer, name="quote_parse")


def make_graph() -> GraphContext:
    """Entry point for LangGraph tooling (`langgraph.json`, `langgraph dev`): the graph with
    services opened from the environment, compiled without a checkpointer (the server has one)."""
    return graph_with_services(build_quote_parse_graph)
