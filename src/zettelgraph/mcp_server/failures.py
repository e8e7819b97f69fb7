"""Failures a tool saw coming, turned into the SDK's `ToolError`: the client gets the message
(what happened and what to do) as an error result the model can read, not a protocol error,
and the server logs one line instead of a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from mcp.server.mcpserver.exceptions import ToolError

from zettelgraph.mcp_server.access import AccessError
from zettelgraph.services.ask import FilterError, UnknownChatError
from zettelgraph.services.browse import UnknownPassageError
from zettelgraph.services.errors import MODEL_ERRORS, model_error_message
from zettelgraph.services.ids import IdError
from zettelgraph.services.ingest import IngestError
from zettelgraph.services.run_view import RunError
from zettelgraph.store.base import EmbedderMismatchError, StoreError


@contextmanager
def tool_failures(then: str = "") -> Iterator[None]:
    """Known failures as ToolError; `then` says what became of the work after a model error."""
    try:
        yield
    except MODEL_ERRORS as exc:
        why = model_error_message(exc)
        raise ToolError(why + (f"; {then}" if then else "")) from exc
    except (
        AccessError,
        RunError,
        IngestError,
        EmbedderMismatchError,
        StoreError,
        FilterError,
        UnknownChatError,
        IdError,
        UnknownPassageError,
    ) as exc:
        raise ToolError(str(exc)) from exc
