"""Experiments in the browser: the list and the "new experiment" form, one experiment's page
(its plan to approve, modify or reject; its findings, charts and report once completed), and
its chart files.

Everything goes through `experiment_actions` with `web.experiments`, the same path as the
JSON API (`api/experiments.py`) and the same service as `zettelgraph experiment ...`. Starting
and approving run the workflow within the request, as the graph-run pages do, then redirect
to the experiment's page; a request the service refuses is answered with the page again and
the reason, keeping what the reader chose.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, Response

from zettelgraph.experiments.registry import document_info
from zettelgraph.services.experiments import TYPE_TITLES, TYPES, ExperimentView
from zettelgraph.web import experiment_actions as actions
from zettelgraph.web.pages.common import (
    HTMLRoute,
    passage_href,
    render,
    see_other,
    template_globals,
)
from zettelgraph.web.security import Csrf
from zettelgraph.web.state import Web, WebState

router = APIRouter(route_class=HTMLRoute, include_in_schema=False)

TYPE_HELP = {
    "temporal": "How the term's use changes with the contents' years (two contents or more).",
    "cross_domain": "How its use differs between fields, genres or authors (two or more).",
    "document_analysis": "What several documents say about it, read in context.",
    "single_document": "One document read in depth (exactly one content).",
}
STATUS_NOTES = {
    "running": "Still running: another request or process is driving it. Reload to see it.",
    "interrupted": "Stopped in the middle (a crash, a killed process or a provider outage). "
    "Resuming continues from the last finished step.",
    "rejected": "Rejected: no tool was run and no report was written.",
    "failed": "Nothing to read: none of the documents has passages. Ingest them first.",
}
# What a chart file is served as: only these kinds are ever written next to the report.
CHART_TYPES = {".png": "image/png", ".svg": "image/svg+xml"}
# A chart is served as a picture, never as a page that runs anything (an SVG could).
FILE_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    "X-Content-Type-Options": "nosniff",
}


def experiment_href(run_id: str) -> str:
    return f"/experiments/{quote(run_id, safe='')}"


template_globals(experiment_href=experiment_href)


def _contents(web: WebState) -> list[dict[str, Any]]:
    """Every content a reader can choose, with what the experiment will know of it."""
    store = web.services.store
    rows = []
    for content in store.list_contents():
        info = document_info(store, content, len(store.quotes_of(content.id)))
        rows.append(info.model_dump(mode="json"))
    return rows


def _list_page(
    request: Request,
    web: WebState,
    *,
    status_code: int = 200,
    error: str | None = None,
    form: dict[str, Any] | None = None,
) -> HTMLResponse:
    return render(
        request,
        "experiments.html",
        "experiments",
        status_code=status_code,
        experiments=[view.as_dict() for view in web.experiments.experiments()],
        contents=_contents(web),
        types=[(t, TYPE_TITLES.get(t, t), TYPE_HELP.get(t, "")) for t in TYPES],
        error=error,
        form=form or {"type": "document_analysis", "content": []},
    )


def _tool_titles() -> dict[str, str]:
    from zettelgraph.experiments.tools import TOOLS

    return {name: tool.title for name, tool in TOOLS.items()}


def _plan(experiment: dict[str, Any], checked: dict[str, list[str]] | None) -> dict[str, Any]:
    """The plan waiting for review as a grid: one row per document, one column per tool,
    each box ticked as proposed (or as the reader last sent it)."""
    review = experiment.get("review") or {}
    tools = review.get("tools", [])
    strategy = checked if checked is not None else experiment.get("recommended_strategy") or {}
    rows = [
        {
            "document": d,
            "cells": [
                {"tool": t["name"], "checked": t["name"] in strategy.get(d["id"], [])}
                for t in tools
            ],
        }
        for d in experiment.get("documents", [])
    ]
    return {"tools": tools, "rows": rows}


def _experiment_page(
    request: Request,
    view: ExperimentView,
    *,
    status_code: int = 200,
    error: str | None = None,
    checked: dict[str, list[str]] | None = None,
    notes: str = "",
    failure: actions.Failure | None = None,
) -> HTMLResponse:
    experiment = view.as_dict()
    synthesis = experiment.get("synthesis") or {}
    charts = list(experiment.get("charts") or [])
    report = experiment.get("report_path")
    return render(
        request,
        "experiment.html",
        "experiments",
        status_code=status_code,
        e=experiment,
        href=experiment_href(view.id),
        type_title=TYPE_TITLES.get(experiment.get("type") or "", experiment.get("type")),
        titles={d["id"]: d["title"] for d in experiment.get("documents", [])},
        plan=_plan(experiment, checked) if view.status == "awaiting_review" else None,
        tool_titles=_tool_titles() if experiment.get("tool_runs") else {},
        synthesis=synthesis,
        evolution=experiment["evolution"],
        passages=[
            {**p, "href": passage_href(p.get("content_id"), p.get("passage_id"))}
            for p in synthesis.get("passages", [])
        ],
        pictures=[name for name in charts if name.endswith(".png")],
        drawings=[name for name in charts if name.endswith(".svg")],
        has_report=isinstance(report, str) and Path(report).is_file(),
        status_note=STATUS_NOTES.get(view.status, ""),
        error=error,
        notes=notes,
        failure=failure,
    )


def _stopped_page(request: Request, web: WebState, stop: actions.StoppedError) -> HTMLResponse:
    """The experiment as it stands with why it stopped, or the list when none was kept."""
    status = stop.failure.status_code
    if stop.view is None:
        return _list_page(request, web, status_code=status, error=actions.stopped_detail(stop))
    return _experiment_page(request, stop.view, status_code=status, failure=stop.failure)


@router.get("/experiments", response_class=HTMLResponse)
def experiments_page(request: Request, web: Web) -> HTMLResponse:
    return _list_page(request, web)


@router.post("/experiments", dependencies=Csrf)
def new_experiment(
    request: Request,
    web: Web,
    kind: Annotated[str, Form(alias="type", max_length=40)] = "",
    term: Annotated[str, Form(max_length=200)] = "",
    definition: Annotated[str, Form(max_length=2000)] = "",
    source: Annotated[str, Form(max_length=600)] = "",
    domain: Annotated[str, Form(max_length=200)] = "",
    goal: Annotated[str, Form(max_length=2000)] = "",
    anchors: Annotated[str, Form(max_length=2000)] = "",
    content: Annotated[list[str] | None, Form(max_length=100)] = None,
) -> Response:
    """Analyse a new experiment and recommend its plan, then show it for review."""
    chosen = [c for c in content or [] if c]
    form = {
        "type": kind,
        "term": term,
        "definition": definition,
        "source": source,
        "domain": domain,
        "goal": goal,
        "anchors": anchors,
        "content": chosen,
    }
    words = [w for line in anchors.splitlines() for w in line.split(",")]
    try:
        if not term.strip():
            raise HTTPException(status_code=422, detail="name the term the experiment follows")
        if not chosen:
            raise HTTPException(status_code=422, detail="choose at least one content")
        focus = actions.focus_term(term, definition, source, words, domain=domain)
        view = actions.start_experiment(web, kind, focus, chosen, goal=goal.strip() or None)
    except HTTPException as exc:
        return _list_page(
            request, web, status_code=exc.status_code, error=str(exc.detail), form=form
        )
    except actions.StoppedError as stop:
        return _stopped_page(request, web, stop)
    return see_other(experiment_href(view.id))


@router.get("/experiments/{run_id}", response_class=HTMLResponse)
def experiment_page(run_id: str, request: Request, web: Web) -> HTMLResponse:
    return _experiment_page(request, actions.get_experiment(web, run_id))


def _strategy(plan: list[str]) -> dict[str, list[str]]:
    """The ticked boxes ("CONTENT_ID:TOOL") as content id -> tool names."""
    strategy: dict[str, list[str]] = {}
    for box in plan:
        content_id, _, tool = box.rpartition(":")
        if content_id and tool:
            strategy.setdefault(content_id, []).append(tool)
    return strategy


@router.post("/experiments/{run_id}/review", dependencies=Csrf)
def review_experiment(
    run_id: str,
    request: Request,
    web: Web,
    action: Annotated[str, Form(max_length=20)] = "",
    notes: Annotated[str, Form(max_length=10_000)] = "",
    plan: Annotated[list[str] | None, Form(max_length=2000)] = None,
) -> Response:
    """Approve the plan as proposed, run the ticked boxes instead (modify), or reject."""
    strategy = _strategy(plan or [])
    try:
        view = actions.review_experiment(web, run_id, action, strategy, notes)
    except actions.StoppedError as stop:
        return _stopped_page(request, web, stop)
    except HTTPException as exc:
        if exc.status_code != 422:
            raise
        # The plan cannot run (or the action is unknown): the page again, as it was sent.
        return _experiment_page(
            request,
            actions.get_experiment(web, run_id),
            status_code=422,
            error=str(exc.detail),
            checked=strategy if action == "modify" else None,
            notes=notes,
        )
    return see_other(experiment_href(view.id))


@router.post("/experiments/{run_id}/resume", dependencies=Csrf)
def resume_experiment(run_id: str, request: Request, web: Web) -> Response:
    """Continue (or retry) an experiment that stopped in the middle."""
    try:
        view = actions.resume_experiment(web, run_id)
    except actions.StoppedError as stop:
        return _stopped_page(request, web, stop)
    return see_other(experiment_href(view.id))


def _folder(view: ExperimentView) -> Path:
    report = view.values.get("report_path")
    if not report:
        raise HTTPException(status_code=404, detail=f"experiment {view.id} has no report yet")
    return Path(report).parent


@router.get("/experiments/{run_id}/files/{name}")
def experiment_file(run_id: str, name: str, web: Web) -> Response:
    """A chart of the experiment. Only a name the experiment lists among its charts is
    served, looked up in its report's folder: never a path the request makes up."""
    view = actions.get_experiment(web, run_id)
    charts = view.values.get("charts") or []
    media = CHART_TYPES.get(Path(name).suffix)
    if name not in charts or Path(name).name != name or media is None:
        raise HTTPException(status_code=404, detail=f"experiment {run_id} has no file {name!r}")
    path = _folder(view) / name
    if not path.is_file():
        raise HTTPException(status_code=404, detail=f"{name} is no longer on disk")
    return FileResponse(path, media_type=media, headers=FILE_HEADERS)


@router.get("/experiments/{run_id}/report.md")
def experiment_report(run_id: str, web: Web) -> Response:
    """The report as Markdown, downloaded (its charts are the files beside it)."""
    view = actions.get_experiment(web, run_id)
    path = _folder(view) / "report.md"
    if not path.is_file():
        raise HTTPException(status_code=404, detail=f"the report of {run_id} is not on disk")
    return FileResponse(
        path,
        media_type="text/markdown; charset=utf-8",
        filename=f"{view.id}.md",
        headers=FILE_HEADERS,
    )
