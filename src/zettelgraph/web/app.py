"""The web app factory: review inbox, concept pages, graph view, sources, search and ask.

`create_app(settings)` builds a FastAPI app whose lifespan opens the same collaborators the
CLI uses (Services, the checkpointer, `ExtractionRuns` and `GraphRuns`); the pages
(`web/pages/`) and the JSON API (`web/api/`) call the same services as the CLI
(`services/`), never workflow logic of their own. Imports go one way: app -> pages/api ->
actions -> state.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from zettelgraph.context import Services, open_services
from zettelgraph.services.checkpoints import open_checkpointer
from zettelgraph.services.experiments import ExperimentRuns
from zettelgraph.services.extraction_runs import ExtractionRuns
from zettelgraph.services.graph_runs import GraphRuns
from zettelgraph.services.web_secret import web_secret
from zettelgraph.settings import Settings
from zettelgraph.store.base import EmbedderMismatchError
from zettelgraph.web import api, pages
from zettelgraph.web.ids import WholeIds
from zettelgraph.web.security import AccessRules, refuse
from zettelgraph.web.state import HERE, WebState


def create_app(settings: Settings | None = None, *, services: Services | None = None) -> FastAPI:
    """The app; `services` may be injected (tests, benchmarks), else opened from settings.
    Raises WebSecretError when the installation's secret cannot be read
    (`services/web_secret.py`)."""

    settings = settings or (services.settings if services else Settings())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        opened = services or open_services(settings)
        try:
            with open_checkpointer(settings) as checkpointer:
                app.state.web = WebState(
                    settings=settings,
                    services=opened,
                    runs=ExtractionRuns(opened, checkpointer),
                    graph_runs=GraphRuns(opened, checkpointer),
                    experiments=ExperimentRuns(opened, checkpointer),
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
    # Ids are read after the access rules: the middleware added last runs first.
    app.add_middleware(WholeIds)
    app.add_middleware(AccessRules, token=token, secret=web_secret(settings.home))
    # Search and ask on a store embedded with another model: the same message as the CLI's.
    app.add_exception_handler(
        EmbedderMismatchError, lambda request, exc: refuse(request, 503, str(exc))
    )
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    app.include_router(api.router, prefix="/api")
    app.include_router(pages.router)
    return app
