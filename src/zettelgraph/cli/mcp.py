"""`zettelgraph mcp`: the MCP server, so an assistant (Claude Desktop, an IDE agent) can search,
ask and browse the reader's graph, and start runs that wait for the reader's review
(`mcp_server/`, `docs/mcp.md`).

Over stdio, stdout is the protocol: this command writes nothing there, only notes on stderr.
"""

from __future__ import annotations

from typing import Annotated

import typer

from zettelgraph.cli.common import fail, settings_from, stderr

TRANSPORTS = ("stdio", "http")


def mcp(
    ctx: typer.Context,
    transport: Annotated[
        str, typer.Option(help="stdio (a client launches this command) or http.")
    ] = "stdio",
    host: Annotated[
        str,
        typer.Option(
            help="HTTP: address to listen on; beyond 127.0.0.1 needs ZETTELGRAPH_WEB_TOKEN."
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="HTTP: port to listen on.")] = 8766,
) -> None:
    """Serve your graph to MCP clients: search, ask, concepts, and runs up to your review."""
    if transport not in TRANSPORTS:
        fail(f"--transport must be one of {', '.join(TRANSPORTS)}, not {transport!r}", code=2)
    from zettelgraph.system.extras import MissingExtraError, require

    try:
        require("mcp.server.mcpserver", "mcp", "zettelgraph mcp")
    except MissingExtraError as exc:
        fail(str(exc))
    from zettelgraph.services.http_security import WebConfigError, check_bind

    settings = settings_from(ctx)
    token = settings.web_token.get_secret_value() if settings.web_token else None
    if transport == "http":
        try:
            check_bind(host, token)  # before anything is opened
        except WebConfigError as exc:
            fail(str(exc), code=2)

    from zettelgraph.cli.common import open_services_or_fail, repair_notes
    from zettelgraph.mcp_server.server import HTTP_PATH, build_server, serve_http, serve_stdio
    from zettelgraph.mcp_server.state import open_state
    from zettelgraph.services.checkpoints import CheckpointError

    services = open_services_or_fail(settings)
    # stdio's stdout is the protocol: what the repair says goes to stderr.
    repair_notes(services, quiet_stdout=True)
    try:
        with open_state(settings, services=services) as state:
            server = build_server(state)
            if transport == "stdio":
                serve_stdio(server)
                return
            url = f"http://{f'[{host}]' if ':' in host else host}:{port}{HTTP_PATH}"
            auth = " with 'Authorization: Bearer TOKEN'" if token else ""
            stderr().print(f"MCP server at {url}{auth}", markup=False, highlight=False)
            serve_http(server, host, port, token)
    except CheckpointError as exc:
        fail(str(exc))
    finally:
        services.close()
