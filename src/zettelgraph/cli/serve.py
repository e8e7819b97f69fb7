"""`zettelgraph serve`: the local web app for review and exploration (`web/app.py`).

It refuses to listen beyond this machine without `ZETTELGRAPH_WEB_TOKEN` before anything is
opened (`services/http_security.py` says why), and opens the store as the other commands do,
so a configuration problem ends with the same clear error instead of a server traceback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from zettelgraph.cli.common import (
    fail,
    open_services_or_fail,
    repair_notes,
    settings_from,
    stdout,
)

if TYPE_CHECKING:
    pass


def serve(
    ctx: typer.Context,
    host: Annotated[
        str,
        typer.Option(help="Address to listen on; beyond 127.0.0.1 needs ZETTELGRAPH_WEB_TOKEN."),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8765,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            max=32,
            help="Processes serving requests (each loads its own models; Linux and macOS).",
        ),
    ] = 1,
) -> None:
    """Serve the web app: review runs, browse concepts and the graph, search and ask."""
    from zettelgraph.services.http_security import WebConfigError, check_bind

    settings = settings_from(ctx)
    token = settings.web_token.get_secret_value() if settings.web_token else None
    try:
        check_bind(host, token)
    except WebConfigError as exc:
        fail(str(exc), code=2)

    import uvicorn

    from zettelgraph.services.web_secret import WebSecretError
    from zettelgraph.web.app import create_app

    # Opened here even for several workers: a configuration problem is one clear error
    # before anything listens (each worker then opens its own; `web/workers.py`).
    services = open_services_or_fail(settings)
    repair_notes(services)
    # An IPv6 address needs brackets in a URL.
    url = f"http://{f'[{host}]' if ':' in host else host}:{port}/"
    out = stdout()
    if token:
        # The token itself is never printed: terminals and their scrollback are logged.
        out.print(
            f"open {url}?token=YOUR_TOKEN (the value of ZETTELGRAPH_WEB_TOKEN)",
            markup=False,
            highlight=False,
        )
    else:
        out.print(f"open {url}", markup=False, highlight=False)
    try:
        try:
            app = create_app(settings, services=services)
        except WebSecretError as exc:
            fail(str(exc), code=2)
        if workers == 1:
            uvicorn.run(app, host=host, port=port, log_level="info")
            return
    finally:
        services.close()
    from zettelgraph.web.workers import WorkersError, serve_workers

    try:
        code = serve_workers(lambda: create_app(settings), host, port, workers)
    except WorkersError as exc:
        fail(str(exc), code=2)
    if code:
        raise typer.Exit(code)
