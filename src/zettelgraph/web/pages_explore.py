"""The graph view and search / ask pages.

The graph page embeds its data (what `/api/graph` returns, from `graph_view.graph_view`) as
JSON in a `<script type="application/json">` tag that `static/graph.js` draws with the
vendored cytoscape: concepts and pack entities, nodes coloured by entity type and relations
by relation type, filtered by type and pack with a plain GET form. Ask renders the answer's
[n] markers as links to the cited passages.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse

from zettelgraph.models import Concept, Entity
from zettelgraph.services import ask as ask_flow
from zettelgraph.services import browse, entities, graph_view
from zettelgraph.services.errors import MODEL_ERRORS, model_error_message
from zettelgraph.web.filters import PacksQuery, TypesQuery, filter_form, node_filter, pack_schema
from zettelgraph.web.pages_common import (
    HTMLRoute,
    Web,
    graph_href,
    linked_answer,
    passage_href,
    render,
)
from zettelgraph.web.security import require_csrf
from zettelgraph.web.state import WebState

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
    entity: Annotated[str | None, Query(max_length=200)] = None,
    depth: Annotated[int, Query(ge=1, le=3)] = 2,
    types: TypesQuery = [],  # noqa: B006 (FastAPI copies the default)
    packs: PacksQuery = [],  # noqa: B006
) -> HTMLResponse:
    store = web.services.store
    schema = pack_schema(web)
    keep = node_filter(types, packs)
    center: Concept | Entity | None = None
    source = None
    if content:
        source = store.get_content(content)
        if source is None:
            raise HTTPException(status_code=404, detail=f"no source {content!r}")
    elif entity:
        found = store.get_entities([entity])
        if not found:
            raise HTTPException(status_code=404, detail=f"no entity {entity!r}")
        center = found[0]
    else:
        if not concept and not keep.active:
            concept = _most_related(web)
        if concept:
            # The most related node may be an entity, when there is no concept yet.
            center = graph_view.get_node(store, concept)
            if center is None:
                raise HTTPException(status_code=404, detail=f"no concept {concept!r}")
    graph: dict[str, Any] = {"nodes": [], "edges": [], "colors": {}, "node_colors": {}}
    if center is not None or source is not None or keep.active:
        graph = graph_view.graph_view(
            store,
            schema,
            concept_id=center.id if isinstance(center, Concept) else None,
            entity_id=center.id if isinstance(center, Entity) else None,
            content_id=source.id if source else None,
            keep=keep,
            depth=depth,
            limit=GRAPH_LIMIT,
        )
    vocabulary = web.services.store_vocabulary
    legend = [
        {
            "type": t,
            "color": color,
            "symmetric": vocabulary.is_symmetric(t),
            "description": vocabulary.descriptions.get(t, ""),
        }
        for t, color in graph["colors"].items()
    ]
    node_legend = [
        {"type": t, "color": c, "pack": schema.defined_by.get(t, "")}
        for t, c in sorted(graph["node_colors"].items())
    ]
    data = {
        **graph,
        "center": center.id if center else None,
        "overview": center is None and source is None,
        "symmetric": [t for t in graph["colors"] if vocabulary.is_symmetric(t)],
    }
    form = filter_form(schema, entities.entity_types(store, schema, concepts=True), keep)
    hidden = {
        "concept": center.id if isinstance(center, Concept) else None,
        "entity": center.id if isinstance(center, Entity) else None,
        "content": source.id if source else None,
    }
    return render(
        request,
        "graph.html",
        "graph",
        data=data,
        center=center,
        center_title=center.title if isinstance(center, Concept) else center.name if center else "",
        center_href=graph_view.node_href(center) if center else "",
        source=source,
        depth=depth,
        legend=legend,
        node_legend=node_legend,
        form=form,
        hidden=hidden,
        clear=graph_href(**{k: v for k, v in hidden.items() if v}),
        overview=center is None and source is None and keep.active,
        truncated=len(graph["nodes"]) >= GRAPH_LIMIT,
    )


def _most_related(web: WebState) -> str | None:
    """The concept with the most relations, or, with no concept yet, the entity."""
    store = web.services.store
    rows = browse.concept_rows(store)
    if not rows:
        rows = entities.entity_rows(store, pack_schema(web))
    return max(rows, key=lambda row: row["relations"])["id"] if rows else None


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
