"""What the web app does with experiments (`web.experiments`), shared by their pages
(`pages/experiments.py`) and their JSON API (`api/experiments.py`), as `actions` is for runs.

The rules (which types and decisions exist, what a plan must be to run) are
`services/experiments.py`'s; this module only maps each way a request can be refused to an
HTTP status: an unknown experiment or content is 404, a bad value (type, content count, a
modified plan that cannot run) 422, a decision on an experiment that is not waiting or a
resume of one that is not interrupted 409. An experiment that stops on the way (the model
cannot be used, a timeout or an outage that outlived the retries) is `StoppedError`, saying why
and whether retrying may help: the pages show it with the experiment, the API as 502 (the
model's fault) or 503.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from fastapi import HTTPException

from zettelgraph.experiments.models import FocusTerm
from zettelgraph.services import experiments
from zettelgraph.services.errors import (
    MODEL_ERRORS,
    MODEL_UNUSABLE,
    error_kind,
    model_error_message,
)
from zettelgraph.services.experiments import DECISIONS, ExperimentView
from zettelgraph.services.run_view import BusyError, RunError
from zettelgraph.web.actions import refusals
from zettelgraph.web.state import WebState


@dataclass(frozen=True)
class Failure:
    """Why an experiment stopped: what the reader is told, the error's kind (timeout,
    rate_limit, server, refused, invalid_output, other) and whether a retry may help."""

    message: str
    kind: str
    retryable: bool
    status_code: int  # 502 when the model failed, 503 for another passing failure


class StoppedError(Exception):
    """An experiment that stopped on the way; `view` is it as it stands. None when the
    caller does not know which experiment it is (a start that failed): `kept` says whether
    it was kept (interrupted, listed with the others) or, the model being unusable, not."""

    def __init__(self, failure: Failure, view: ExperimentView | None, kept: bool) -> None:
        super().__init__(failure.message)
        self.failure = failure
        self.view = view
        self.kept = kept


@contextmanager
def _stops(web: WebState, run_id: str | None) -> Iterator[None]:
    """Turn a model failure, or any failure a retry may cure, into `StoppedError`; anything
    else is a bug and propagates (a 500)."""
    try:
        yield
    except Exception as exc:
        kind = error_kind(exc)
        if isinstance(exc, MODEL_ERRORS):
            message, status = model_error_message(exc), 502
        elif kind.retryable:
            message, status = f"the experiment stopped: {type(exc).__name__}: {exc}", 503
        else:
            raise
        view = None
        if run_id is not None:
            try:
                view = web.experiments.show(run_id)
            except RunError:
                view = None
        # The service drops a new experiment whose model cannot be used at all: nothing ran.
        kept = view is not None or not isinstance(exc, MODEL_UNUSABLE)
        failure = Failure(message, kind.kind, kind.retryable, status)
        raise StoppedError(failure, view, kept) from exc


def stopped_detail(stop: StoppedError) -> str:
    """What the reader is told of an experiment that stopped: why, and what to do next."""
    failure, view = stop.failure, stop.view
    then = "retry:" if failure.retryable else "once the cause is fixed,"
    if view is None:
        if not stop.kept:
            return f"{failure.message}; no experiment was kept: fix the cause and start again"
        return (
            f"{failure.message}; the experiment stopped in the middle and is kept: {then} "
            "resume it from the experiments list (GET /api/experiments shows it as interrupted)"
        )
    if view.status == "interrupted":
        return (
            f"{failure.message}; experiment {view.id} stopped in the middle: {then} "
            f"POST /api/experiments/{view.id}/resume continues it"
        )
    return f"{failure.message}; experiment {view.id} is {view.status}"


def focus_term(
    term: str,
    definition: str = "",
    source: str = "",
    anchors: list[str] | None = None,
    domain: str = "",
) -> FocusTerm:
    """The focus term from what the reader typed (`services.experiments.focus_term`), or 422
    naming the part that is wrong."""
    try:
        return experiments.focus_term(
            term, definition=definition, source=source, domain=domain, anchors=anchors or []
        )
    except experiments.FocusTermError as exc:
        raise HTTPException(status_code=422, detail=str(exc)) from exc


def get_experiment(web: WebState, run_id: str) -> ExperimentView:
    """The experiment, or 404."""
    with refusals({RunError: 404}):
        return web.experiments.show(run_id)


def start_experiment(
    web: WebState,
    kind: str,
    term: FocusTerm,
    content_ids: Sequence[str],
    goal: str | None = None,
) -> ExperimentView:
    """Analyse a new experiment and recommend its plan, up to the review. 404 for an unknown
    content, 422 for a type or a number of contents the service refuses; `StoppedError` when the
    model or the store fails on the way (the run is kept unless the model could not be used
    at all: `web.experiments.experiments()` lists it)."""
    store = web.services.store
    missing = [cid for cid in dict.fromkeys(content_ids) if store.get_content(cid) is None]
    if missing:
        raise HTTPException(status_code=404, detail=f"no content with id {', '.join(missing)}")
    with refusals({BusyError: 409, RunError: 422}), _stops(web, None):
        return web.experiments.new(kind, term, content_ids, goal=goal)


def review_experiment(
    web: WebState,
    run_id: str,
    action: str,
    strategy: Mapping[str, Sequence[str]] | None = None,
    notes: str = "",
) -> ExperimentView:
    """Approve the plan, run a modified one, or reject the experiment.

    404: no such experiment. 409: it is not waiting for review (or another decision on it is
    in progress). 422: an unknown action, or a modified plan that cannot run (the message
    names every reason; nothing is decided). `StoppedError`: it stopped while running the tools
    or writing the report."""
    if action not in DECISIONS:
        raise HTTPException(
            status_code=422, detail=f"the review is one of {', '.join(DECISIONS)}, not {action!r}"
        )
    view = get_experiment(web, run_id)
    if view.status != "awaiting_review":
        raise HTTPException(
            status_code=409, detail=f"experiment {run_id} is {view.status}, not waiting for review"
        )
    try:
        with _stops(web, run_id):
            return web.experiments.review(
                run_id, action, strategy=strategy if action == "modify" else None, notes=notes
            )
    except BusyError as exc:
        raise HTTPException(status_code=409, detail=str(exc)) from exc
    except RunError as exc:
        # Decided meanwhile by another request (409), or a plan that cannot run (422).
        still_waiting = get_experiment(web, run_id).status == "awaiting_review"
        raise HTTPException(status_code=422 if still_waiting else 409, detail=str(exc)) from exc


def resume_experiment(web: WebState, run_id: str) -> ExperimentView:
    """Continue an experiment that stopped in the middle. 404: no such experiment; 409: it
    is not interrupted, or another process is driving it; `StoppedError`: it stopped again."""
    get_experiment(web, run_id)
    with refusals({RunError: 409}), _stops(web, run_id):
        return web.experiments.continue_run(run_id)
