"""The JSON API of experiments (`exp-...`): start one over some contents, read it (its plan
while it waits for review, its findings once completed), review its plan, resume it, and
export its provenance.

The same service as `zettelgraph experiment new|review|show|list|resume`, through
`web/experiment_actions.py` like the pages: an unknown experiment or content is 404, a bad
value (type, number of contents, a modified plan that cannot run) 422, a review of an
experiment that is not waiting or a resume of one that is not interrupted 409, and an
experiment stopped by the model 502 (by another passing failure 503), the message saying
whether resuming may help.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import Response
from pydantic import BaseModel, Field

from zettelgraph.experiments.models import ExperimentType
from zettelgraph.services.provenance import FORMATS, export_provenance
from zettelgraph.services.run_view import RunError
from zettelgraph.web import experiment_actions as actions
from zettelgraph.web.actions import refusals
from zettelgraph.web.api.models import Open
from zettelgraph.web.api.provenance import provenance_refusals
from zettelgraph.web.security import Csrf
from zettelgraph.web.state import Web

router = APIRouter(tags=["experiments"])
# What the list leaves out of each experiment: the heavy parts one experiment's page shows.
_DETAIL_ONLY = ("review", "tool_runs", "synthesis", "llm_calls")


class ExperimentIn(BaseModel):
    type: ExperimentType
    term: str = Field(min_length=1, max_length=100, description="The focus term, e.g. honra.")
    definition: str = Field(default="", max_length=1000, description="Its baseline meaning.")
    source: str = Field(default="", max_length=300, description="Where the definition is from.")
    domain: str = Field(
        default="", max_length=100, description="The field the term belongs to, e.g. derecho."
    )
    goal: str | None = Field(default=None, max_length=2000, description="What to find out.")
    anchors: list[str] = Field(
        default_factory=list,
        max_length=12,
        description="Words that pin the baseline meaning: their absence near the term shows "
        "a shift.",
    )
    contents: list[str] = Field(min_length=1, max_length=100, description="Content ids.")


class ReviewIn(BaseModel):
    action: Literal["approve", "modify", "reject"]
    strategy: dict[str, list[str]] | None = Field(
        default=None, description="For modify: content id -> tool names, the plan to run."
    )
    notes: str = Field(default="", max_length=10_000)


class ExperimentSummary(Open):
    id: str
    status: str = Field(
        description="awaiting_review, running, interrupted, completed, rejected or failed"
    )
    type: str | None
    term: dict[str, Any] | None
    goal: str | None
    documents: list[dict[str, Any]]
    warnings: list[str]
    created_at: str | None
    completed_at: str | None


class Experiment(ExperimentSummary):
    review: dict[str, Any] | None = Field(
        description="The plan the reader decides on; null unless the experiment awaits review."
    )
    tool_runs: list[dict[str, Any]]
    synthesis: dict[str, Any] | None
    report_path: str | None
    charts: list[str] = Field(description="Served at /experiments/{id}/files/{name}.")


def _stopped(stop: actions.StoppedError) -> HTTPException:
    return HTTPException(status_code=stop.failure.status_code, detail=actions.stopped_detail(stop))


@router.get("/experiments", response_model=list[ExperimentSummary])
def list_experiments(web: Web) -> list[dict[str, Any]]:
    """Every experiment, newest first, without its plan, tool results and findings."""
    rows = [view.as_dict() for view in web.experiments.experiments()]
    return [{k: v for k, v in row.items() if k not in _DETAIL_ONLY} for row in rows]


@router.post("/experiments", response_model=Experiment, status_code=201, dependencies=Csrf)
def start_experiment(body: ExperimentIn, web: Web) -> dict[str, Any]:
    """Analyse an experiment and recommend a plan (which tools on which content), up to the
    reader's review."""
    term = actions.focus_term(
        body.term, body.definition, body.source, body.anchors, domain=body.domain
    )
    try:
        view = actions.start_experiment(web, body.type.value, term, body.contents, goal=body.goal)
    except actions.StoppedError as stop:
        raise _stopped(stop) from stop
    return view.as_dict()


@router.get("/experiments/{run_id}", response_model=Experiment)
def get_experiment(run_id: str, web: Web) -> dict[str, Any]:
    """One experiment with everything its stages produced so far."""
    return actions.get_experiment(web, run_id).as_dict()


@router.post("/experiments/{run_id}/review", response_model=Experiment, dependencies=Csrf)
def review_experiment(run_id: str, body: ReviewIn, web: Web) -> dict[str, Any]:
    """Approve the plan (run the tools and write the report), modify it (`strategy` is run
    instead; 422 naming every reason when it cannot run), or reject the experiment."""
    try:
        view = actions.review_experiment(web, run_id, body.action, body.strategy, body.notes)
    except actions.StoppedError as stop:
        raise _stopped(stop) from stop
    return view.as_dict()


@router.post("/experiments/{run_id}/resume", response_model=Experiment, dependencies=Csrf)
def resume_experiment(run_id: str, web: Web) -> dict[str, Any]:
    """Continue an experiment that stopped in the middle (409 unless it is interrupted)."""
    try:
        view = actions.resume_experiment(web, run_id)
    except actions.StoppedError as stop:
        raise _stopped(stop) from stop
    return view.as_dict()


@router.get("/experiments/{run_id}/provenance", response_class=Response)
def experiment_provenance(
    run_id: str,
    web: Web,
    fmt: Annotated[Literal["jsonld", "turtle", "provn"], Query(alias="format")] = "jsonld",
) -> Response:
    """The experiment's W3C PROV record (its LLM calls, the review, the tool runs, the report
    and the passages it read) as JSON-LD, Turtle or PROV-N, as `zettelgraph export prov
    --experiment ID` writes it."""
    with refusals({RunError: 404}):
        record = web.experiments.record(run_id)
    with provenance_refusals():
        text = export_provenance(web.services, experiment=record, fmt=fmt)
    chosen = FORMATS[fmt]
    return Response(
        text,
        media_type=chosen.media_type,
        headers={"Content-Disposition": f'inline; filename="{record.id}{chosen.suffix}"'},
    )
