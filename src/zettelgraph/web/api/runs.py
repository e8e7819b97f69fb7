"""The review inbox and concept runs under /api: list the runs, read one, decide on it or on
its single items, and start one from a content (`ExtractionRuns` through `web/actions.py`,
as `zettelgraph extract` and `review RUN_ID`).
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, HTTPException

from zettelgraph.services import browse
from zettelgraph.web import actions
from zettelgraph.web.api.models import DecisionIn, InboxRow, ItemsIn, Run, RunSummary, StartIn
from zettelgraph.web.security import Csrf
from zettelgraph.web.state import Web

router = APIRouter()


@router.get("/runs", response_model=list[InboxRow] | list[RunSummary])
def list_runs(
    web: Web, status: Literal["awaiting_review", "all"] = "awaiting_review"
) -> list[dict[str, Any]]:
    """Runs waiting for review (the inbox), or every run without its report."""
    if status == "awaiting_review":
        return browse.inbox(web.runs)
    rows = [view.as_dict() for view in web.runs.list()]
    return [{k: v for k, v in row.items() if k != "report"} for row in rows]


@router.get("/runs/{run_id}", response_model=Run)
def get_run(run_id: str, web: Web) -> dict[str, Any]:
    """One run, with its report when it waits for review."""
    return actions.get_run(web, run_id).as_dict()


@router.post("/runs/{run_id}/decision", response_model=Run, dependencies=Csrf)
def decide(run_id: str, body: DecisionIn, web: Web) -> dict[str, Any]:
    """Approve (write the concepts and notes), send feedback (get a revised report), or abort.

    409 when the run is not waiting for review: already decided, or decided by a request
    running at the same time. Nothing is changed then.
    """
    return actions.decide(web, run_id, body.action, body.feedback).as_dict()


@router.post("/runs/{run_id}/items", response_model=Run, dependencies=Csrf)
def decide_items(run_id: str, body: ItemsIn, web: Web) -> dict[str, Any]:
    """Decide on single items of a concept run waiting for review: keep, drop, edit, merge,
    move_quote, remove_quote, retype, relate, undecide (see `review RUN --help`). The run
    stays waiting for review; approving then writes exactly what is kept.

    422 when a decision does not fit the proposal (none is saved then); 409 when the run is
    not waiting for review or another decision on it is in progress.
    """
    return actions.decide_items(web, run_id, body.decisions).as_dict()


@router.post("/contents/{content_id}/runs", response_model=Run, dependencies=Csrf)
def start_run(content_id: str, body: StartIn, web: Web) -> dict[str, Any]:
    """Extract concepts from a content, up to the review (or the end, for a skipped one).

    409 when a run of this content is already waiting for review, so a double-submitted form
    does not start two.
    """
    if web.services.store.get_content(content_id) is None:
        raise actions.not_found("content", content_id)
    view, started = actions.start(web, content_id, suggestions=body.suggestions, force=body.force)
    if not started:
        raise HTTPException(
            status_code=409,
            detail=f"run {view.run_id} of this content is waiting for review: decide it first",
        )
    return view.as_dict()
