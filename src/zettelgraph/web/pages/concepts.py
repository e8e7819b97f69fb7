"""Concept pages: every concept by title (or those a text finds), and one concept with its
relations, passages and provenance (`services/browse.py`, as `zettelgraph concepts` and
`concept ID`).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from zettelgraph.services import browse
from zettelgraph.web import actions
from zettelgraph.web.pages.common import HTMLRoute, render, render_concept
from zettelgraph.web.state import Web

router = APIRouter(route_class=HTMLRoute, include_in_schema=False)


@router.get("/concepts", response_class=HTMLResponse)
def concepts_page(
    request: Request,
    web: Web,
    q: Annotated[str, Query(max_length=300)] = "",
) -> HTMLResponse:
    rows = browse.concept_rows(web.services.store, q)
    return render(request, "concepts.html", "concepts", rows=rows, q=q)


@router.get("/concepts/{concept_id}", response_class=HTMLResponse)
def concept_page(concept_id: str, request: Request, web: Web) -> HTMLResponse:
    concept = actions.concept_or_404(web, concept_id)
    return render_concept(request, web, concept)
