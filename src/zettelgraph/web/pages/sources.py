"""Source pages: every content read, with its run waiting for review, and one content's
passages in reading order under their sections, each with the concepts it supports.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from zettelgraph.packs.relations import SUPPORTS
from zettelgraph.services import browse
from zettelgraph.store.base import GraphStore
from zettelgraph.web import actions
from zettelgraph.web.pages.common import HTMLRoute, render
from zettelgraph.web.state import Web

router = APIRouter(route_class=HTMLRoute, include_in_schema=False)


@router.get("/sources", response_class=HTMLResponse)
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


@router.get("/sources/{content_id}", response_class=HTMLResponse)
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
