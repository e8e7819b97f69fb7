"""What every request handler shares: the opened collaborators and the page templates.

A module of its own so pages, the API and the app factory all import it and not each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from fastapi import Depends, Request
from fastapi.templating import Jinja2Templates

from zettelgraph.context import Services
from zettelgraph.services.experiments import ExperimentRuns
from zettelgraph.services.extraction_runs import ExtractionRuns
from zettelgraph.services.graph_runs import GraphRuns
from zettelgraph.settings import Settings

HERE = Path(__file__).resolve().parent
TEMPLATES = Jinja2Templates(directory=str(HERE / "templates"))


@dataclass
class WebState:
    """What every request handler needs, opened once for the app's life."""

    settings: Settings
    services: Services
    runs: ExtractionRuns
    graph_runs: GraphRuns
    experiments: ExperimentRuns


def web_state(request: Request) -> WebState:
    web: WebState = request.app.state.web
    return web


async def state(request: Request) -> WebState:
    # Async although it awaits nothing: FastAPI runs a plain `def` dependency in its thread
    # pool, one more hand-over between threads for every request (about 6% of the server's
    # CPU under 20 clients, sampled; docs/benchmarks.md).
    return web_state(request)


# The app's shared state, as a route parameter: `web: Web`.
Web = Annotated[WebState, Depends(state)]
