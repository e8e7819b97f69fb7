"""Graph extraction runs in the browser: start one from a source page with a template pack,
review its proposal (entities, relationships, what was dropped and why), and approve, send
feedback or abort.

Everything goes through `actions` with `web.graph_runs`, the same path as the JSON API
(`api/graph_runs.py`) and the same service as `zettelgraph graph-extract` / `review RUN_ID`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from zettelgraph.models import Entity
from zettelgraph.services.review import ItemDecision
from zettelgraph.services.run_view import RunView
from zettelgraph.web import actions
from zettelgraph.web.pages.common import HTMLRoute, graph_run_href, render, see_other
from zettelgraph.web.pages.review import RUN_NOTES, decision_routes, status_note
from zettelgraph.web.security import Csrf
from zettelgraph.web.state import Web, WebState

router = APIRouter(route_class=HTMLRoute, include_in_schema=False)

STATUS_NOTES = {
    **RUN_NOTES,
    "committed": "Approved: the entities and relationships are in the graph.",
}


def _committed_entities(web: WebState, committed: dict[str, Any]) -> dict[str, list[Entity]]:
    """The entities a committed run created and updated, as stored now."""
    store = web.services.store
    return {
        key: store.get_entities(list(committed.get(key, [])))
        for key in ("entities_new", "entities_updated")
    }


@router.get("/graph-runs/{run_id}", response_class=HTMLResponse)
def graph_review_page(run_id: str, request: Request, web: Web) -> HTMLResponse:
    return _page(request, web, actions.get_run(web, run_id, web.graph_runs))


def _page(
    request: Request,
    web: WebState,
    view: RunView,
    *,
    error: dict[str, str] | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    return render(
        request,
        "graph_review.html",
        "inbox",
        status_code=status_code,
        error=error,
        run=view,
        report=view.report or {},
        committed=_committed_entities(web, view.committed) if view.committed else {},
        status_note=status_note(STATUS_NOTES, view),
    )


@router.post("/graph-runs/{run_id}/items", dependencies=Csrf)
def decide_item(
    run_id: str,
    request: Request,
    web: Web,
    item: Annotated[str, Form(max_length=100)],
    action: Annotated[str, Form(max_length=20)],
    type: Annotated[str | None, Form(max_length=100)] = None,
) -> Response:
    """Keep, drop, undo or retype one entity or relationship (plain forms, no JavaScript);
    back at the item, or the page again with the reason at it (422)."""
    view = actions.get_run(web, run_id, web.graph_runs)
    try:
        decision = ItemDecision.model_validate(
            {"item": item, "action": action, **({"type": type} if type else {})}
        )
        view = actions.decide_items(web, run_id, [decision], runs=web.graph_runs)
    except (HTTPException, ValueError) as exc:
        if isinstance(exc, HTTPException) and exc.status_code != 422:
            raise
        message = str(exc.detail) if isinstance(exc, HTTPException) else str(exc)
        return _page(request, web, view, error={"item": item, "message": message}, status_code=422)
    return see_other(graph_run_href(run_id) + f"#item-{item}")


decision_routes(router, "/graph-runs", lambda web: web.graph_runs, graph_run_href)


@router.post("/sources/{content_id}/graph-extract", dependencies=Csrf)
def graph_extract(
    content_id: str,
    web: Web,
    pack: Annotated[list[str] | None, Form(max_length=20)] = None,
) -> Response:
    """Start a graph extraction run on a source with the chosen pack(s) (none: the active
    packs); the source's open graph run is reopened instead of starting a second one."""
    view, _ = actions.start_graph(web, content_id, [p for p in pack or [] if p] or None)
    return see_other(graph_run_href(view.run_id))
