"""The entity pages: every entity of the template packs with a filter by type and pack
(`/entities`), and one entity with its properties, relations and passages (`/entities/ID`).

They read through the same service functions as `/api/entities` (`services/entities.py`);
templates escape everything that comes from the graph or the request.
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse

from zettelgraph.services import entities
from zettelgraph.web.filters import PacksQuery, TypesQuery, filter_form, node_filter, pack_schema
from zettelgraph.web.pages.common import HTMLRoute, render
from zettelgraph.web.state import Web

router = APIRouter(route_class=HTMLRoute, include_in_schema=False)


@router.get("/entities", response_class=HTMLResponse)
def entities_page(
    request: Request,
    web: Web,
    types: TypesQuery = [],  # noqa: B006 (FastAPI copies the default)
    packs: PacksQuery = [],  # noqa: B006
    q: Annotated[str, Query(max_length=300)] = "",
) -> HTMLResponse:
    store = web.services.store
    schema = pack_schema(web)
    keep = node_filter(types, packs)
    rows = entities.entity_rows(store, schema, keep, q)
    types_shown = entities.entity_types(store, schema)
    form = filter_form(schema, types_shown, keep)
    # The graph of what the filter keeps: every entity type when it keeps all of them.
    graph_types = sorted(keep.types) or [row["type"] for row in types_shown]
    query = [("type", t) for t in graph_types] + [("pack", p) for p in sorted(keep.packs)]
    graph_link = f"/graph?{urlencode(query)}"
    return render(
        request, "entities.html", "entities", rows=rows, q=q, form=form, graph_link=graph_link
    )


@router.get("/entities/{entity_id}", response_class=HTMLResponse)
def entity_page(entity_id: str, request: Request, web: Web) -> HTMLResponse:
    store = web.services.store
    found = store.get_entities([entity_id])
    if not found:
        raise HTTPException(status_code=404, detail=f"no entity {entity_id!r}")
    detail = entities.entity_detail(store, pack_schema(web), found[0])
    return render(request, "entity.html", "entities", e=detail)
