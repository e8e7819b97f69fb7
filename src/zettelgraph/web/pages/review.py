"""Review pages: the inbox of runs waiting for review (graph extraction runs included; their
own review page is `graph_runs.py`'s), one concept run's report and the decisions on
it (approve, feedback, abort), and starting a run from the Sources page.

Decisions go through `actions.decide`, the same path as the JSON API: one decision per run
at a time, 409 when the run is not waiting for review.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import ValidationError

from zettelgraph.services import browse
from zettelgraph.services.proposal_runs import ProposalRuns
from zettelgraph.services.review import ItemDecision
from zettelgraph.services.run_view import RunView
from zettelgraph.web import actions
from zettelgraph.web.pages.common import HTMLRoute, render, run_href, see_other
from zettelgraph.web.security import Csrf
from zettelgraph.web.state import Web, WebState

router = APIRouter(route_class=HTMLRoute, include_in_schema=False)

# What a run's page says of it once it no longer waits for review, the same for concept and
# graph runs; each adds what approving wrote.
RUN_NOTES = {
    "aborted": "Aborted: nothing was written.",
    "interrupted": "Stopped in the middle (a crash or a killed process). Continue it with "
    "`zettelgraph resume {run_id}`.",
    "running": "Still running.",
}
STATUS_NOTES = {
    **RUN_NOTES,
    "committed": "Approved and written to the graph.",
    "skipped": "Skipped: this source was already processed. `zettelgraph extract ID --force` "
    "starts a new run anyway.",
    "no_quotes": "Nothing to extract: this source has no passages.",
}


def status_note(notes: dict[str, str], view: RunView) -> str:
    """What `notes` say of the run's status, naming the run where they do ("" for none)."""
    return notes.get(view.status, "").format(run_id=view.run_id)


def _report_passages(web: WebState, report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every passage the report shows, with its location label and source, by id."""
    ids: list[str] = []
    for concept in report.get("concepts", []):
        ids.extend(q["id"] for q in concept.get("quotes", []))
    ids.extend(a["quote"]["id"] for a in report.get("attributions", []))
    ids.extend(q["id"] for q in report.get("unattributed_quotes", []))
    store = web.services.store
    views = browse.passage_views(store, store.get_quotes(list(dict.fromkeys(ids))))
    return {view["id"]: view for view in views}


def _committed_links(web: WebState, committed: dict[str, Any]) -> dict[str, list[dict[str, str]]]:
    """The concepts a committed run created or touched, as (id, title) for links."""
    store = web.services.store
    out: dict[str, list[dict[str, str]]] = {}
    for key in ("concepts", "touched_existing"):
        ids = list(committed.get(key, []))
        titles = {c.id: c.title for c in store.get_concepts(ids)}
        out[key] = [{"id": i, "title": titles.get(i, i)} for i in ids]
    return out


@router.get("/", response_class=HTMLResponse)
def inbox_page(request: Request, web: Web) -> HTMLResponse:
    """Concept runs and graph extraction runs waiting for review, the newest first."""
    rows = browse.inbox(web.runs) + browse.inbox(web.graph_runs)
    rows.sort(key=lambda row: row["updated_at"] or "", reverse=True)
    return render(request, "inbox.html", "inbox", runs=rows)


def _review(
    request: Request,
    web: WebState,
    view: RunView,
    *,
    error: dict[str, str] | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    report = view.report or {}
    return render(
        request,
        "review.html",
        "inbox",
        status_code=status_code,
        error=error,
        vocabulary=web.services.concept_vocabulary.names,
        run=view,
        report=report,
        passages=_report_passages(web, report) if report else {},
        committed=_committed_links(web, view.committed) if view.committed else {},
        status_note=status_note(STATUS_NOTES, view),
    )


@router.get("/runs/{run_id}", response_class=HTMLResponse)
def review_page(run_id: str, request: Request, web: Web) -> HTMLResponse:
    return _review(request, web, actions.get_run(web, run_id))


# The form fields an item decision may carry (ItemDecision's, beside item and action).
DECISION_FIELDS = ("title", "concept", "analysis", "into", "type", "quote", "to", "target")


def item_order(report: dict[str, Any]) -> list[str]:
    """The items' keys in the order the page shows them."""
    return [
        item["key"]
        for kind in ("concepts", "relations", "related")
        for item in report.get(kind, [])
        if item.get("key")
    ]


@router.post("/runs/{run_id}/items", dependencies=Csrf)
async def decide_item(run_id: str, request: Request, web: Web) -> Response:
    """One decision on one item (the page's per-item forms; no JavaScript needed); back to
    the page at the next item, or the page again with the error at the item (422)."""
    form = await request.form()
    fields = {
        name: str(form[name])
        for name in ("item", "action", "explanation", *DECISION_FIELDS)
        if isinstance(form.get(name), str) and str(form[name]).strip() != ""
    }
    key = fields.get("item", "")
    view = actions.get_run(web, run_id)
    try:
        decision = ItemDecision.model_validate(fields)
    except ValidationError as exc:
        problem = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:3]
        )
        return _review(request, web, view, error={"item": key, "message": problem}, status_code=422)
    try:
        view = actions.decide_items(web, run_id, [decision])
    except HTTPException as exc:
        if exc.status_code != 422:
            raise
        return _review(
            request, web, view, error={"item": key, "message": str(exc.detail)}, status_code=422
        )
    order = item_order(view.report or {})
    moves_on = decision.action in ("keep", "drop", "merge", "retype")
    at = (
        order.index(key) + 1
        if moves_on and key in order
        else order.index(key)
        if key in order
        else 0
    )
    anchor = f"#item-{order[at]}" if at < len(order) else "#decide"
    return see_other(run_href(run_id) + anchor)


def decision_routes(
    router: APIRouter,
    prefix: str,
    runs: Callable[[WebState], ProposalRuns],
    href: Callable[[str], str],
) -> None:
    """The routes of the Decide forms (`decide_forms` in macros/common.html) of the runs
    under `prefix`: approve, send feedback or abort through `actions.decide` on `runs`, then
    back to the run's page (`href`), at the feedback log after feedback."""

    @router.post(prefix + "/{run_id}/approve", dependencies=Csrf)
    def approve(run_id: str, web: Web) -> Response:
        actions.decide(web, run_id, "approve", runs=runs(web))
        return see_other(href(run_id))

    @router.post(prefix + "/{run_id}/feedback", dependencies=Csrf)
    def feedback(
        run_id: str, web: Web, feedback: Annotated[str, Form(max_length=10_000)] = ""
    ) -> Response:
        actions.decide(web, run_id, "feedback", feedback, runs=runs(web))
        return see_other(href(run_id) + "#feedback-log")

    @router.post(prefix + "/{run_id}/abort", dependencies=Csrf)
    def abort(run_id: str, web: Web) -> Response:
        actions.decide(web, run_id, "abort", runs=runs(web))
        return see_other(href(run_id))


decision_routes(router, "/runs", lambda web: web.runs, run_href)


@router.post("/sources/{content_id}/extract", dependencies=Csrf)
def extract(content_id: str, web: Web) -> Response:
    """Start a concept-extraction run on a source; a run already waiting for review on it is
    reopened instead of starting a second one (a double click, a second tab)."""
    if web.services.store.get_content(content_id) is None:
        raise HTTPException(status_code=404, detail=f"no source {content_id!r}")
    view, _ = actions.start(web, content_id)
    return see_other(run_href(view.run_id))
