"""What the web app changes, shared by its pages and its JSON API, for concept runs
(`web.runs`) and graph extraction runs (`web.graph_runs`) alike, and the reader's corrections.

The rules (which decisions exist, one open run per content, one decision per run at a time,
what a correction may change) are `services/`'s; this module only maps each way a request
can be refused to an HTTP status, and the model's failures (`services/errors.py`) to a 502.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager

from fastapi import HTTPException

from zettelgraph.models import Concept
from zettelgraph.services import review
from zettelgraph.services.corrections import CorrectionError, RefusedError, UnknownError
from zettelgraph.services.errors import MODEL_ERRORS, model_error_message
from zettelgraph.services.proposal_runs import ACTIONS, ProposalRuns
from zettelgraph.services.review import ItemDecision
from zettelgraph.services.run_view import BusyError, OpenRunError, RunError, RunView
from zettelgraph.web.state import WebState


@contextmanager
def model_failures(then: str = "") -> Iterator[None]:
    """A model that fails or cannot be used is the upstream's fault: 502, saying why and
    (`then`) what became of the work."""
    try:
        yield
    except MODEL_ERRORS as exc:
        why = model_error_message(exc)
        raise HTTPException(status_code=502, detail=why + (f"; {then}" if then else "")) from exc


@contextmanager
def refusals(statuses: Mapping[type[Exception], int]) -> Iterator[None]:
    """What the services refuse, as HTTP errors carrying their message. `statuses` maps each
    error class to its status; the first class the error is an instance of decides, as a row
    of `except` clauses would (so a subclass goes before its base)."""
    try:
        yield
    except tuple(statuses) as exc:
        status = next(code for kind, code in statuses.items() if isinstance(exc, kind))
        raise HTTPException(status_code=status, detail=str(exc)) from exc


def correction_refusals() -> AbstractContextManager[None]:
    """A correction the services refuse, as HTTP: 404 for what is not in the graph, 409 for
    what the graph's state forbids now (a title another concept has, a run still open),
    422 for bad input; nothing was written in any case."""
    return refusals({UnknownError: 404, RefusedError: 409, CorrectionError: 422})


def not_found(what: str, given: str) -> HTTPException:
    """The 404 of an id that names nothing: `no concept with id 'x'`."""
    return HTTPException(status_code=404, detail=f"no {what} with id {given!r}")


def concept_or_404(web: WebState, concept_id: str) -> Concept:
    """The concept with this id, or 404 (an id from a URL is only ever looked up)."""
    concept = web.services.store.get_concept(concept_id)
    if concept is None:
        raise not_found("concept", concept_id)
    return concept


def extraction_runs(web: WebState) -> list[ProposalRuns]:
    """The workflows whose open runs hold a content (concepts and graph extraction)."""
    return [web.runs, web.graph_runs]


def get_run(web: WebState, run_id: str, runs: ProposalRuns | None = None) -> RunView:
    """The run of `runs` (default: the concept runs), or 404."""
    with refusals({RunError: 404}):
        return (runs or web.runs).view(run_id)


def decide(
    web: WebState,
    run_id: str,
    action: str,
    feedback: str | None = None,
    runs: ProposalRuns | None = None,
) -> RunView:
    """Approve, send feedback on, or abort a run waiting for review.

    404: no such run. 409: the run is not waiting for review, or another decision on it is in
    progress (a request in flight at the same time, or another process): nothing is changed.
    422: a bad action or feedback without text.
    """
    if action not in ACTIONS:
        raise HTTPException(status_code=422, detail=f"action must be one of {', '.join(ACTIONS)}")
    if action == "feedback" and not (feedback or "").strip():
        raise HTTPException(
            status_code=422, detail="feedback needs some text saying what to change"
        )
    runs = runs or web.runs
    get_run(web, run_id, runs)
    then = f"the run stopped; `zettelgraph resume {run_id}` continues it"
    with refusals({RunError: 409}), model_failures(then):
        return runs.answer(run_id, action, feedback)


def decide_items(
    web: WebState,
    run_id: str,
    decisions: Sequence[ItemDecision],
    runs: ProposalRuns | None = None,
) -> RunView:
    """Save the reader's decisions on single items of a concept run waiting for review.

    404: no such run. 409: the run is not waiting for review, or another decision on it is in
    progress. 422: a decision that does not fit the proposal (the message names the item);
    none of the decisions is saved then.
    """
    runs = runs or web.runs
    get_run(web, run_id, runs)
    with refusals({review.ReviewError: 422, RunError: 409}):
        return review.decide(runs, run_id, decisions)


def start(
    web: WebState, content_id: str, *, suggestions: str | None = None, force: bool = False
) -> tuple[RunView, bool]:
    """Start an extraction run on a content: (the new run, True), or (the content's open run,
    False), so a double submit never starts two. 409 while another start is in progress; 502
    when the model fails."""
    then = "no run was started; fix the model setting (`zettelgraph doctor`) and start again"
    try:
        with model_failures(then):
            return web.runs.start(content_id, suggestions=suggestions, force=force), True
    except OpenRunError as exc:
        return exc.run, False
    except BusyError as exc:
        raise HTTPException(status_code=409, detail=str(exc)) from exc


def start_graph(
    web: WebState,
    content_id: str,
    packs: Sequence[str] | None = None,
    *,
    suggestions: str | None = None,
) -> tuple[RunView, bool]:
    """Start a graph extraction run with `packs` (None: the active packs): (the new run, True),
    or (the content's open graph run, False). 404 for an unknown content, 422 for a pack that
    is unknown or cannot be extracted into this store, 409 while another start is in progress,
    502 when the model fails."""
    if web.services.store.get_content(content_id) is None:
        raise HTTPException(status_code=404, detail=f"no source {content_id!r}")
    then = "no run was started; fix the model setting (`zettelgraph doctor`) and start again"
    try:
        with model_failures(then):
            view = web.graph_runs.start(content_id, packs=packs, suggestions=suggestions)
            return view, True
    except OpenRunError as exc:
        return exc.run, False
    except BusyError as exc:
        raise HTTPException(status_code=409, detail=str(exc)) from exc
    except RunError as exc:
        raise HTTPException(status_code=422, detail=str(exc)) from exc


def graph_packs(web: WebState) -> list[dict[str, str]]:
    """The active packs a graph run can extract with, one at a time (name, version,
    description): the zettelkasten pack alone has no entity types, since Concepts are the
    concept runs'."""
    usable = []
    for pack in web.services.packs.packs:
        try:
            web.graph_runs.schema([pack.name])
        except RunError:
            continue
        usable.append({"name": pack.name, "version": pack.version, "description": pack.description})
    return usable
