"""What the web app changes, shared by its pages and its JSON API.

A review decision resumes the LangGraph run exactly as `zettelgraph review` does, through
`ExtractionRuns.answer`; this module only adds what a web server needs on top: one decision
per run at a time, and an HTTP status for each way a decision can be refused.
"""

from __future__ import annotations

from fastapi import HTTPException

from zettelgraph.web.app import WebState
from zettelgraph.workflows.concept_extraction.runner import RunError, RunView

ACTIONS = ("approve", "feedback", "abort")


def get_run(web: WebState, run_id: str) -> RunView:
    """The run, or 404."""
    try:
        return web.runs.view(run_id)
    except RunError as exc:
        raise HTTPException(status_code=404, detail=str(exc)) from exc


def decide(web: WebState, run_id: str, action: str, feedback: str | None = None) -> RunView:
    """Approve, send feedback on, or abort a run waiting for review.

    404: no such run. 409: the run is not waiting for review (already decided, or decided by a
    request that was in flight at the same time): nothing is changed. 422: a bad action or
    feedback without text.
    """
    if action not in ACTIONS:
        raise HTTPException(status_code=422, detail=f"action must be one of {', '.join(ACTIONS)}")
    if action == "feedback" and not (feedback or "").strip():
        raise HTTPException(
            status_code=422, detail="feedback needs some text saying what to change"
        )
    with web.run_lock(run_id):
        view = get_run(web, run_id)
        if view.status != "awaiting_review":
            raise HTTPException(
                status_code=409,
                detail=f"run {run_id} is {view.status}, not waiting for review: nothing changed",
            )
        try:
            return web.runs.answer(run_id, action, feedback)
        except RunError as exc:  # decided between our check and the call: still a conflict
            raise HTTPException(status_code=409, detail=str(exc)) from exc
