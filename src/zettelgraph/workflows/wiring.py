"""How every workflow graph adds its nodes: `services` bound in, one retry policy.

The services are bound with `functools.partial` rather than LangGraph's runtime context
(`context_schema=`, `Runtime[Context]`): a runtime context is not kept in the checkpoint, so
every `stream` and every resume (`Command(resume=...)`) would have to pass it again, and the
`langgraph dev` entry points (`make_graph`) would need the server to hand the nodes a live
`Services` (it passes JSON). Bound once when the graph is compiled, a resumed run finds its
services whoever resumes it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from langgraph.graph import StateGraph
from langgraph.types import RetryPolicy

from zettelgraph.context import Services
from zettelgraph.llm.structured import is_transient

# The LLM calls retry transient errors themselves (`call_structured`); this covers the store
# (a locked database) and an LLM outage longer than those retries.
RETRY = RetryPolicy(max_attempts=3, initial_interval=1.0, retry_on=is_transient)


def add_nodes(
    builder: StateGraph[Any, Any, Any, Any],
    services: Services,
    nodes: Mapping[str, Callable[..., Any]],
    *,
    retry: RetryPolicy | None = RETRY,
    **bound: Any,
) -> None:
    """Add each of `nodes` (name: function) with `services`, and `bound`, bound in."""
    for name, function in nodes.items():
        builder.add_node(name, partial(function, services=services, **bound), retry_policy=retry)
