"""The JSON API of graph extraction runs (`graph-...`): start one on a content with template
packs, read it (its report while it waits for review), and answer it.

The same service as `zettelgraph graph-extract` and `zettelgraph review RUN_ID`, through
`web/actions.py` like the pages: an unknown content or run is 404, an unknown pack or one the
store cannot hold 422, a second start while the content has an open graph run 409 (naming it),
a decision on a run that is not waiting 409, and a model that fails 502.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException

from zettelgraph.web import actions
from zettelgraph.web.api.models import DecisionIn, GraphStartIn, ItemsIn, Run, RunSummary
from zettelgraph.web.security import Csrf
from zettelgraph.web.state import Web

router = APIRouter(tags=["graph runs"])


@router.get("/graph-runs", response_model=list[RunSummary])
def list_graph_runs(web: Web) -> list[dict[str, Any]]:
    """Every graph extraction run, newest first, without its report."""
    rows = [view.as_dict() for view in web.graph_runs.list()]
    return [{k: v for k, v in row.items() if k != "report"} for row in rows]


@router.post("/graph-runs", response_model=Run, dependencies=Csrf)
def start_graph_run(body: GraphStartIn, web: Web) -> dict[str, Any]:
    """Extract the packs' entities and relationships from a content, up to the review."""
    packs = [name for name in body.packs or [] if name] or None
    view, started = actions.start_graph(web, body.content_id, packs, suggestions=body.suggestions)
    if not started:
        raise HTTPException(
            status_code=409,
            detail=f"graph run {view.run_id} of this content is still open: decide it first",
        )
    return view.as_dict()


@router.get("/graph-runs/{run_id}", response_model=Run)
def get_graph_run(run_id: str, web: Web) -> dict[str, Any]:
    """One graph run, with its report (entities, relationships, drops) when it waits."""
    return actions.get_run(web, run_id, web.graph_runs).as_dict()


@router.post("/graph-runs/{run_id}/answer", response_model=Run, dependencies=Csrf)
def answer_graph_run(run_id: str, body: DecisionIn, web: Web) -> dict[str, Any]:
    """Approve (write the entities, relationships and notes), send feedback (get a revised
    report), or abort. 409 when the run is not waiting for review."""
    return actions.decide(web, run_id, body.action, body.feedback, runs=web.graph_runs).as_dict()


@router.post("/graph-runs/{run_id}/items", response_model=Run, dependencies=Csrf)
def decide_graph_items(run_id: str, body: ItemsIn, web: Web) -> dict[str, Any]:
    """Keep, drop, undecide or retype (to a type the packs allow between the two entities'
    types) single entities (n1 ...) and relationships (r1 ...) of a graph run waiting for
    review; approving then writes exactly what is kept. 422 when one does not fit (none is
    saved), 409 when the run is not waiting for review."""
    return actions.decide_items(web, run_id, body.decisions, runs=web.graph_runs).as_dict()
