"""What the web app changes, shared by its pages and its JSON API.

A review decision resumes the LangGraph run exactly as `zettelgraph review` does, through
`ExtractionRuns.answer`; this module only adds what a web server needs on top: one decision
per run at a time, and an HTTP status for each way a decision can be refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from fastapi import HTTPException

from zettelgraph.extras import MissingExtraError
from zettelgraph.llm.factory import LLMConfigError
from zettelgraph.llm.structured import SOFT_LLM_ERRORS
from zettelgraph.web.app import WebState
from zettelgraph.workflows.concept_extraction.runner import RunError, RunView

ACTIONS = ("approve", "feedback", "abort")
# A model that cannot be used (not configured, extra missing) or that failed to answer.
MODEL_FAILURES: tuple[type[Exception], ...] = (LLMConfigError, MissingExtraError, *SOFT_LLM_ERRORS)


@contextmanager
def model_failures(then: str = "") -> Iterator[None]:
    """A model that fails or cannot be used is the upstream's fault: 502, saying why and
    (`then`) what became of the work."""
    try:
        yield
    except (LLMConfigError, MissingExtraError) as exc:
        raise _bad_gateway(f"the configured LLM cannot be used: {exc}", then) from exc
    except SOFT_LLM_ERRORS as exc:
        raise _bad_gateway(f"the LLM could not answer: {exc}", then) from exc


def _bad_gateway(why: str, then: str) -> HTTPException:
    return HTTPException(status_code=502, detail=why + (f"; {then}" if then else ""))


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
            with model_failures(f"the run stopped; `zettelgraph resume {run_id}` continues it"):
                return web.runs.answer(run_id, action, feedback)
        except RunError as exc:  # decided between our check and the call: still a conflict
            raise HTTPException(status_code=409, detail=str(exc)) from exc


def start(
    web: WebState, content_id: str, *, suggestions: str | None = None, force: bool = False
) -> tuple[RunView, bool]:
    """Start an extraction run on a content: (the new run, True), or (the run of it already
    waiting for review, False), so a double submit never starts two. 502 when the model fails.
    """
    with web.run_lock(f"content:{content_id}"):
        for view in web.runs.list():
            if view.content_id == content_id and view.status == "awaiting_review":
                return view, False
        then = "the run stopped: `zettelgraph runs` lists it, `zettelgraph resume RUN` continues it"
        with model_failures(then):
            return web.runs.start(content_id, suggestions=suggestions, force=force), True
