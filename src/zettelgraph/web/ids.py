"""Ids in URLs as a reader types them: `/concepts/dbba9aa6`, `/runs/run-ab66`, `/runs/ab66`,
`/graph?content=187f36dd`, and the same under `/api`.

One middleware reads the id segment of every route that takes one (and the ids of the graph,
cards and study queries) through `services/ids.py`, before the routes see the request: a
unique prefix becomes the whole id (a page is redirected to its whole URL, so the address
bar holds the id a link would; the JSON API answers at once), an ambiguous one is refused
with the candidates (400), and anything else is left as it is, for the route to answer (a
404 that names the id, or a page such as `/cards/generate`).
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote, urlencode

from fastapi import Request, Response
from fastapi.responses import RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from zettelgraph.models import NodeLabel
from zettelgraph.services.ids import AmbiguousIdError, IdError, resolve_node_id
from zettelgraph.web.security import refuse
from zettelgraph.web.state import WebState

Resolve = Callable[[WebState, str], str]


def _node(label: NodeLabel) -> Resolve:
    return lambda web, given: resolve_node_id(web.services.store, label, given)


# The first segment of a path (after `/api`) -> how the id that follows it is read.
PATH_IDS: dict[str, Resolve] = {
    "concepts": _node(NodeLabel.CONCEPT),
    "sources": _node(NodeLabel.CONTENT),
    "contents": _node(NodeLabel.CONTENT),
    "cards": _node(NodeLabel.LEARNING_ITEM),
    "study": _node(NodeLabel.LEARNING_ITEM),
    "entities": _node(NodeLabel.ENTITY),
    "passages": _node(NodeLabel.QUOTE),
    "runs": lambda web, given: web.runs.resolve_run_id(given),
    "graph-runs": lambda web, given: web.graph_runs.resolve_run_id(given),
    "experiments": lambda web, given: web.experiments.resolve_run_id(given),
}
# Paths whose queries name a content, a concept or an entity by id.
QUERY_PATHS = ("/graph", "/cards", "/study")
QUERY_IDS: dict[str, Resolve] = {
    "content": _node(NodeLabel.CONTENT),
    "concept": _node(NodeLabel.CONCEPT),
    "entity": _node(NodeLabel.ENTITY),
}


class WholeIds:
    """The ASGI middleware: see the module docstring. Plain ASGI, as `security.AccessRules`
    (Starlette's `BaseHTTPMiddleware` runs every request in a task of its own)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        web: WebState | None = None
        if scope["type"] == "http":
            web = getattr(scope["app"].state, "web", None)
        if web is None:
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        answer = _whole(web, request)
        if answer is not None:
            await answer(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _whole(web: WebState, request: Request) -> Response | None:
    """The redirect or refusal that answers the request, or None once its ids are whole
    (the scope's path and query rewritten for the JSON API and for posts)."""
    api = request.url.path.startswith("/api/")
    parts = request.url.path.removeprefix("/api" if api else "").split("/")
    query = request.query_params.multi_items()
    try:
        path = "/".join(_path_ids(web, parts))
        if any(path.startswith(p) for p in QUERY_PATHS):
            query = [(k, _read(web, QUERY_IDS[k], v) if k in QUERY_IDS else v) for k, v in query]
    except AmbiguousIdError as exc:
        return refuse(request, 400, str(exc))
    if path == "/".join(parts) and query == request.query_params.multi_items():
        return None
    if not api and request.method in ("GET", "HEAD"):
        return RedirectResponse(quote(path) + (f"?{urlencode(query)}" if query else ""), 307)
    whole = ("/api" if api else "") + path
    request.scope["path"] = whole
    request.scope["raw_path"] = quote(whole).encode()
    request.scope["query_string"] = urlencode(query).encode()
    return None


def _path_ids(web: WebState, parts: list[str]) -> list[str]:
    """The path's segments with its ids whole: `/concepts/ID/...`, and the other concept of
    `/concepts/ID/relations/ID`."""
    # parts[0] is the empty text before the leading slash.
    out = list(parts)
    if len(out) > 2 and out[1] in PATH_IDS:
        out[2] = _read(web, PATH_IDS[out[1]], out[2])
    if len(out) > 4 and out[1] == "concepts" and out[3] == "relations":
        out[4] = _read(web, PATH_IDS["concepts"], out[4])
    return out


def _read(web: WebState, resolve: Resolve, given: str) -> str:
    """The whole id `given` starts; `given` itself when it names none (the route says so)."""
    try:
        return resolve(web, given)
    except AmbiguousIdError:
        raise
    except IdError:
        return given
