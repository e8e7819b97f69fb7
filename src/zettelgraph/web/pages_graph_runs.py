"""Graph extraction runs in the browser: start one from a source page with a template pack,
review its proposal (entities, relationships, what was dropped and why), and approve, send
feedback or abort.

Everything goes through `actions` with `web.graph_runs`, the same path as the JSON API
(`api_graph_runs`) and the same service as `zettelgraph graph-extract` / `review RUN_ID`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, Response

from zettelgraph.models import Entity
from zettelgraph.web import actions
from zettelgraph.web.pages_common import HTMLRoute, Web, graph_run_href, render, see_other
from zettelgraph.web.security import require_csrf
from zettelgraph.web.state import WebState

router = APIRouter(route_class=HTMLRoute, include_in_schema=False)

STATUS_NOTES = {
    "committed": "Approved: the entities and relationships are in the graph.",
    "aborted": "Aborted: nothing was written.",
    "interrupted": "Stopped in the middle (a crash or a killed process). Continue it with "
    "`zettelgraph resume {run_id}`.",
    "running": "Still running.",
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
    view = actions.get_run(web, run_id, web.graph_runs)
    return render(
        request,
        "graph_review.html",
        "inbox",
        run=view,
        report=view.report or {},
        committed=_committed_entities(web, view.committed) if view.committed else {},
        status_note=STATUS_NOTES.get(view.status, "").format(run_id=view.run_id),
    )


@router.post("/graph-runs/{run_id}/approve", dependencies=[Depends(require_csrf)])
def approve(run_id: str, web: Web) -> Response:
    actions.decide(web, run_id, "approve", runs=web.graph_runs)
    return see_other(graph_run_href(run_id))


@router.post("/graph-runs/{run_id}/feedback", dependencies=[Depends(require_csrf)])
def feedback(
    run_id: str, web: Web, feedback: Annotated[str, Form(max_length=10_000)] = ""
) -> Response:
    actions.decide(web, run_id, "feedback", feedback, runs=web.graph_runs)
    return see_other(graph_run_href(run_id) + "#feedback-log")


@router.post("/graph-runs/{run_id}/abort", dependencies=[Depends(require_csrf)])
def abort(run_id: str, web: Web) -> Response:
    actions.decide(web, run_id, "abort", runs=web.graph_runs)
    return see_other(graph_run_href(run_id))


@router.post("/sources/{content_id}/graph-extract", dependencies=[Depends(require_csrf)])
def graph_extract(
    content_id: str,
    web: Web,
    pack: Annotated[list[str] | None, Form(max_length=20)] = None,
) -> Response:
    """Start a graph extraction run on a source with the chosen pack(s) (none: the active
    packs); the source's open graph run is reopened instead of starting a second one."""
    view, _ = actions.start_graph(web, content_id, [p for p in pack or [] if p] or None)
    return see_other(graph_run_href(view.run_id))
