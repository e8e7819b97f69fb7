"""The graph view and search / ask pages.

The graph page embeds its data (what `/api/graph` returns, from `browse.graph_around`) as
JSON in a `<script type="application/json">` tag that `static/graph.js` draws with the
vendored cytoscape; ask renders the answer's [n] markers as links to the cited passages.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse

from zettelgraph.services import ask as ask_flow
from zettelgraph.services import browse
from zettelgraph.services.errors import MODEL_ERRORS, model_error_message
from zettelgraph.web.pages_common import (
    HTMLRoute,
    Web,
    linked_answer,
    passage_href,
    rel_color,
    render,
)
from zettelgraph.web.security import require_csrf

router = APIRouter(route_class=HTMLRoute, include_in_schema=False)

# The graph page draws at most this many concepts (cytoscape stays responsive with a fast
# layout; see static/graph.js).
GRAPH_LIMIT = 2000
QUESTION_MAX = 2000


@router.get("/graph", response_class=HTMLResponse)
def graph_page(
    request: Request,
    web: Web,
    concept: Annotated[str | None, Query(max_length=200)] = None,
    content: Annotated[str | None, Query(max_length=200)] = None,
    depth: Annotated[int, Query(ge=1, le=3)] = 2,
) -> HTMLResponse:
    store = web.services.store
    center = None
    source = None
    if content:
        source = store.get_content(content)
        if source is None:
            raise HTTPException(status_code=404, detail=f"no source {content!r}")
    else:
        if not concept:
            rows = browse.concept_rows(store)
            if rows:
                concept = max(rows, key=lambda row: row["relations"])["id"]
        if concept:
            center = store.get_concept(concept)
            if center is None:
                raise HTTPException(status_code=404, detail=f"no concept {concept!r}")
    graph: dict[str, Any] = {"nodes": [], "edges": []}
    if center is not None or source is not None:
        graph = browse.graph_around(
            store,
            concept_id=center.id if center else None,
            content_id=source.id if source else None,
            depth=depth,
            limit=GRAPH_LIMIT,
        )
    vocabulary = web.services.store_vocabulary
    types = sorted({e["type"] for e in graph["edges"]})
    legend = [
        {
            "type": t,
            "color": rel_color(t),
            "symmetric": vocabulary.is_symmetric(t),
            "description": vocabulary.descriptions.get(t, ""),
        }
        for t in types
    ]
    data = {
        **graph,
        "center": center.id if center else None,
        "colors": {t: rel_color(t) for t in types},
        "symmetric": [t for t in types if vocabulary.is_symmetric(t)],
    }
    return render(
        request,
        "graph.html",
        "graph",
        data=data,
        center=center,
        source=source,
        depth=depth,
        legend=legend,
        truncated=len(graph["nodes"]) >= GRAPH_LIMIT,
    )


def _search_rows(results: list[Any]) -> list[dict[str, Any]]:
    return [
        {**r.model_dump(mode="json"), "href": passage_href(r.content_id, r.passage_id)}
        for r in results
    ]


@router.get("/ask", response_class=HTMLResponse)
def search_page(
    request: Request, web: Web, q: Annotated[str, Query(max_length=QUESTION_MAX)] = ""
) -> HTMLResponse:
    results = ask_flow.search(web.services, q) if q.strip() else []
    return render(
        request, "ask.html", "ask", q=q, results=_search_rows(results), searched=bool(q.strip())
    )


@router.post("/ask", response_class=HTMLResponse, dependencies=[Depends(require_csrf)])
def ask_page(
    request: Request,
    web: Web,
    question: Annotated[str, Form(max_length=QUESTION_MAX)] = "",
) -> HTMLResponse:
    if not question.strip():
        raise HTTPException(status_code=422, detail="write a question first")
    try:
        result = ask_flow.ask(web.services, question.strip())
    except MODEL_ERRORS as exc:
        return render(
            request,
            "ask.html",
            "ask",
            status_code=502,
            q=question,
            error=model_error_message(exc),
            results=[],
        )
    answer = result.answer
    rows = _search_rows(result.results)
    cited = {c["n"] for c in answer.citations if c.get("cited")}
    targets = {row["n"]: row["href"] for row in rows if row["n"] in cited}
    return render(
        request,
        "ask.html",
        "ask",
        q=question,
        answer=answer,
        answer_html=linked_answer(answer.answer, targets) if answer.answerable else None,
        cited=[row for row in rows if row["n"] in cited],
        results=[row for row in rows if row["n"] not in cited],
        warnings=result.warnings,
        searched=True,
    )
