"""Server-rendered pages: inbox and review (`pages_review`), graph extraction runs
(`pages_graph_runs`), concepts, sources, the graph view (`pages_explore`), search and ask
(`pages_ask`), pack entities (`pages_entities`), cards (`pages_cards`) and study
(`pages_study`); experiments, links and corrections (`pages_experiments`, `pages_links`,
`pages_corrections`) are mounted by `app.py`.

Every page reads through the same service functions as the CLI (`services/browse.py`,
`services/ask.py`, `ExtractionRuns`); templates escape everything that comes from the graph
or the request (Jinja autoescape; no `|safe` on data).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse

from zettelgraph.relations import SUPPORTS
from zettelgraph.services import browse
from zettelgraph.store.base import GraphStore
from zettelgraph.web import (
    actions,
    pages_ask,
    pages_cards,
    pages_entities,
    pages_explore,
    pages_graph_runs,
    pages_review,
    pages_study,
)
from zettelgraph.web.pages_common import HTMLRoute, Web, render, render_concept

router = APIRouter()
pages = APIRouter(route_class=HTMLRoute, include_in_schema=False)


@pages.get("/concepts", response_class=HTMLResponse)
def concepts_page(
    request: Request,
    web: Web,
    q: Annotated[str, Query(max_length=300)] = "",
) -> HTMLResponse:
    rows = browse.concept_rows(web.services.store, q)
    return render(request, "concepts.html", "concepts", rows=rows, q=q)


@pages.get("/concepts/{concept_id}", response_class=HTMLResponse)
def concept_page(concept_id: str, request: Request, web: Web) -> HTMLResponse:
    concept = actions.concept_or_404(web, concept_id)
    return render_concept(request, web, concept)


@pages.get("/sources", response_class=HTMLResponse)
def sources_page(request: Request, web: Web) -> HTMLResponse:
    waiting = {row["content_id"]: row["run_id"] for row in browse.inbox(web.runs)}
    rows = browse.content_rows(web.services.store)
    rows.sort(key=lambda row: (row["title"].casefold(), row["id"]))
    return render(request, "sources.html", "sources", rows=rows, waiting=waiting)


def _reading_groups(store: GraphStore, detail: dict[str, Any]) -> list[dict[str, Any]]:
    """Passages in reading order, grouped under their section, each with the concepts it
    supports."""
    titles = {s["id"]: s["title"] for s in detail["sections"]}
    # Every passage's SUPPORTS and the concepts they reach in two reads, not two per passage.
    supported: dict[str, list[str]] = {p["id"]: [] for p in detail["quotes"]}
    for r in store.relations_of(list(supported), direction="out"):
        if r.type == SUPPORTS:
            supported[r.source_id].append(r.target_id)
    wanted = [c for targets in supported.values() for c in targets]
    concept_titles = {c.id: c.title for c in store.get_concepts(wanted)}
    groups: list[dict[str, Any]] = []
    for passage in detail["quotes"]:
        key = passage["section_id"] or passage["section"] or ""
        if not groups or groups[-1]["key"] != key:
            title = titles.get(key, "") if passage["section_id"] else (passage["section"] or "")
            groups.append({"key": key, "title": title, "passages": []})
        supports = [
            {"id": c, "title": concept_titles[c]}
            for c in supported[passage["id"]]
            if c in concept_titles
        ]
        groups[-1]["passages"].append({**passage, "concepts": supports})
    return groups


@pages.get("/sources/{content_id}", response_class=HTMLResponse)
def source_page(content_id: str, request: Request, web: Web) -> HTMLResponse:
    store = web.services.store
    detail = browse.content_detail(store, content_id)
    if detail is None:
        raise HTTPException(status_code=404, detail=f"no source {content_id!r}")
    waiting = next(
        (row["run_id"] for row in browse.inbox(web.runs) if row["content_id"] == content_id),
        None,
    )
    graph_run = web.graph_runs.open_run_of(content_id)
    return render(
        request,
        "source.html",
        "sources",
        content=detail,
        groups=_reading_groups(store, detail),
        waiting=waiting,
        graph_waiting=graph_run.run_id if graph_run else None,
        graph_packs=actions.graph_packs(web),
    )


router.include_router(pages_review.router)
router.include_router(pages_graph_runs.router)
router.include_router(pages)
router.include_router(pages_explore.router)
router.include_router(pages_ask.router)
router.include_router(pages_entities.router)
router.include_router(pages_cards.router)
router.include_router(pages_study.router)
