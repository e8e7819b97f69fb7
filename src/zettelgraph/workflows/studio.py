"""What LangGraph's own tooling loads: the `make_graph` entry points named in `langgraph.json`.

`langgraph dev` (and LangGraph Studio through it) calls a graph factory for every request
that needs the graph, a run or only its schema, and enters what it returns as a context
manager. So each entry point opens the services from the environment (`Settings()`) and closes
them when the server is done with the graph: a store connection or a local model server left
open per request would pile up. The graph is compiled without a checkpointer because the
server attaches its own, which is what lets Studio pause at a review and resume a thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from langgraph.graph.state import CompiledStateGraph

from zettelgraph.context import Services, open_services
from zettelgraph.settings import Settings

Graph = CompiledStateGraph[Any, Any, Any, Any]
# What an entry point returns: the server enters it to get the graph and exits when done.
GraphContext = AbstractAsyncContextManager[Graph]


def entry_point(build: Callable[[Services], Graph]) -> Callable[[], GraphContext]:
    """The `make_graph` a workflow's graph.py names in `langgraph.json`: `build(services)` with
    services opened from the environment, compiled without a checkpointer (the server has
    one)."""

    def make_graph() -> GraphContext:
        return graph_with_services(build)

    return make_graph


def graph_with_services(build: Callable[[Services], Graph]) -> GraphContext:
    """`build(services)` with services opened from the environment, closed on exit.

    Asynchronous, with the opening and closing in a worker thread: the server calls factories
    on its event loop, and `langgraph dev` refuses blocking I/O (files, SQLite) there.
    """

    @asynccontextmanager
    async def opened() -> AsyncIterator[Graph]:
        services = await asyncio.to_thread(open_services, Settings())
        try:
            # Building reads settings that may look for an installed local model on disk.
            yield await asyncio.to_thread(build, services)
        finally:
            await asyncio.to_thread(services.close)

    return opened()
