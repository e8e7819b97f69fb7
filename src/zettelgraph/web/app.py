"""The web app factory: review inbox, concept pages, graph view, sources, search and ask.

`create_app(settings)` builds a FastAPI app whose lifespan opens the same collaborators the
CLI uses (Services, the checkpointer, `ExtractionRuns`); pages (`web/pages.py`) and the JSON
API (`web/api.py`) call the same service functions as the CLI (`workflows/browse.py`,
`workflows/ask.py`, `ExtractionRuns`), never workflow logic of their own.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from zettelgraph.settings import Settings
from zettelgraph.store.base import EmbedderMismatchError
from zettelgraph.web.security import access_middleware, refuse
from zettelgraph.workflows.concept_extraction.runner import ExtractionRuns
from zettelgraph.workflows.context import Services

HERE = Path(__file__).resolve().parent
TEMPLATES = Jinja2Templates(directory=str(HERE / "templates"))


@dataclass
class WebState:
    """What every request handler needs, opened once for the app's life."""

    settings: Settings
    services: Services
    runs: ExtractionRuns
    # One lock per run: two decisions on one run never interleave; the second sees the first's
    # outcome and gets a 409.
    _run_locks: dict[str, threading.Lock] = field(default_factory=dict)
    _guard: threading.Lock = field(default_factory=threading.Lock)

    def run_lock(self, run_id: str) -> threading.Lock:
        with self._guard:
            return self._run_locks.setdefault(run_id, threading.Lock())


def state(request: Request) -> WebState:
    web: WebState = request.app.state.web
    return web


def create_app(settings: Settings | None = None, *, services: Services | None = None) -> FastAPI:
    """The app; `services` may be injected (tests, benchmarks), else opened from settings."""
    from zettelgraph.web import api, pages
    from zettelgraph.workflows.checkpoints import open_checkpointer
    from zettelgraph.workflows.context import open_services

    settings = settings or (services.settings if services else Settings())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        opened = services or open_services(settings)
        try:
            with open_checkpointer(settings) as checkpointer:
                app.state.web = WebState(
                    settings=settings, services=opened, runs=ExtractionRuns(opened, checkpointer)
                )
                yield
        finally:
            if services is None:
                opened.close()

    app = FastAPI(
        title="zettelgraph",
        summary="Review, explore and question your knowledge graph.",
        lifespan=lifespan,
        docs_url="/api/docs",
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    token = settings.web_token.get_secret_value() if settings.web_token else None
    app.middleware("http")(access_middleware(token))
    # Search and ask on a store embedded with another model: the same message as the CLI's.
    app.add_exception_handler(
        EmbedderMismatchError, lambda request, exc: refuse(request, 503, str(exc))
    )
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    app.include_router(api.router, prefix="/api")
    app.include_router(pages.router)
    return app
