"""The server factory and its two transports: stdio (a client launches `zettelgraph mcp`) and
streamable HTTP (a client connects to http://127.0.0.1:PORT/mcp).

Over HTTP the web app's rules hold (`services/http_security.py`): without
ZETTELGRAPH_WEB_TOKEN only the loopback address is served, and each request's Host and Origin
are checked against it, so a web page cannot reach the server through DNS rebinding; with the
token set, every request must carry `Authorization: Bearer TOKEN`, wherever the server
listens.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from zettelgraph import __version__
from zettelgraph.mcp_server import (
    resources,
    tools_experiments,
    tools_read,
    tools_review,
    tools_runs,
)
from zettelgraph.mcp_server.access import APPROVE_SETTING, ROOTS_SETTING
from zettelgraph.mcp_server.state import McpState
from zettelgraph.services.http_security import (
    check_bind,
    cross_origin,
    has_bearer,
    loopback_host,
)

HTTP_PATH = "/mcp"

INSTRUCTIONS = f"""\
zettelgraph holds what this person has read (book notes, PDFs, slides, transcripts) as
passages, and the atomic concepts they approved from them, linked by typed relations.
Use search for passages and ask for an answer cited as [n]; cite the passages you use by
their citation. list_concepts, get_concept and neighbours walk the concept graph;
list_contents lists the sources. New reading goes in with ingest_notes (only inside the
folders the reader allowed in {ROOTS_SETTING}) and start_extraction, which stops at the
reader's review: nothing reaches their graph until they approve it (approve_run exists only
when they set {APPROVE_SETTING})."""


def build_server(state: McpState) -> MCPServer[Any]:
    """An MCP server over `state`'s collaborators (opened by the caller, once)."""
    server: MCPServer[Any] = MCPServer(
        "zettelgraph",
        title="zettelgraph",
        description="Your reading as a knowledge graph of cited, atomic ideas.",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
    )
    tools_read.register(server, state)
    tools_runs.register(server, state)
    tools_review.register(server, state)
    tools_experiments.register(server, state)
    resources.register(server, state)
    return server


async def _refuse(send: Send, status: int, message: str, *headers: tuple[bytes, bytes]) -> None:
    start = [(b"content-type", b"text/plain; charset=utf-8"), *headers]
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": message.encode()})


class BearerToken:
    """ASGI middleware: every HTTP request carries `Authorization: Bearer TOKEN`."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not has_bearer(
            Headers(scope=scope).get("authorization", ""), self.token
        ):
            message = "this server needs its token: send 'Authorization: Bearer TOKEN'"
            await _refuse(send, 401, message, (b"www-authenticate", b"Bearer"))
            return
        await self.app(scope, receive, send)


class LoopbackHost:
    """ASGI middleware: without a token, only requests whose Host header is exactly a
    loopback `name[:port]`, by the web app's rule, and that no browser says come from another
    origin. The SDK's own checks matched a Host prefix (letting `127.0.0.1:18766@evil.com`
    through) and allowed an Origin of any port on 127.0.0.1 or localhost (so only the JSON
    content type's preflight stood between a page of another local app and the tools)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            if not loopback_host(headers.get("host", "")):
                await _refuse(send, 400, "this server answers on 127.0.0.1 / localhost only")
                return
            if cross_origin(headers):
                await _refuse(send, 403, "requests from another site or port are refused")
                return
        await self.app(scope, receive, send)


def http_app(server: MCPServer[Any], host: str, token: str | None) -> ASGIApp:
    """The streamable HTTP app at /mcp; refuses (WebConfigError) a host beyond loopback
    without a token, as `zettelgraph serve` does."""
    check_bind(host, token)
    app: ASGIApp = server.streamable_http_app(streamable_http_path=HTTP_PATH, host=host)
    return BearerToken(app, token) if token else LoopbackHost(app)


def serve_stdio(server: MCPServer[Any]) -> None:
    server.run("stdio")


def serve_http(server: MCPServer[Any], host: str, port: int, token: str | None) -> None:
    import uvicorn

    uvicorn.run(http_app(server, host, token), host=host, port=port, log_level="warning")
