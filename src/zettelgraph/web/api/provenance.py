"""W3C PROV downloads under /api: the whole graph, one concept, or what one run wrote, as
JSON-LD (default), Turtle or PROV-N (`?format=`), with the file name to save it as.

The routes call the service `zettelgraph export prov` calls (`services/provenance.py`). An
unknown concept or run is 404, an unknown format 422.
"""

from __future__ import annotations

import re
from contextlib import AbstractContextManager
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from zettelgraph.services.provenance import (
    FORMATS,
    ProvenanceError,
    ProvenanceNotFoundError,
    check_format,
    export_provenance,
)
from zettelgraph.web.actions import refusals
from zettelgraph.web.state import Web, WebState

router = APIRouter(tags=["provenance"])
FormatQuery = Annotated[
    str, Query(alias="format", description=f"One of: {', '.join(FORMATS)}.", max_length=20)
]
# What a file name keeps of an id (the id itself is only ever looked up in the store).
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def provenance_refusals() -> AbstractContextManager[None]:
    """An unknown concept, run or experiment is 404; an unknown format 422."""
    return refusals({ProvenanceNotFoundError: 404, ProvenanceError: 422})


def _download(
    web: WebState,
    name: str,
    fmt: str,
    *,
    concept: str | None = None,
    run: str | None = None,
    everything: bool = False,
) -> Response:
    with provenance_refusals():
        chosen = check_format(fmt)
        text = export_provenance(
            web.services, concept=concept, run=run, everything=everything, fmt=fmt
        )
    filename = _UNSAFE.sub("-", name)[:120] + chosen.suffix
    return Response(
        content=text,
        media_type=chosen.media_type,
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@router.get("/provenance", response_class=Response)
def graph_provenance(web: Web, fmt: FormatQuery = "jsonld") -> Response:
    """The provenance of everything in the graph."""
    return _download(web, "zettelgraph-provenance", fmt, everything=True)


@router.get("/concepts/{concept_id}/provenance", response_class=Response)
def concept_provenance(web: Web, concept_id: str, fmt: FormatQuery = "jsonld") -> Response:
    """One concept's provenance: its quotes and their books, the relations touching it, the
    run and LLM calls that proposed it, and the reader's approval."""
    return _download(web, f"concept-{concept_id}-provenance", fmt, concept=concept_id)


@router.get("/runs/{run_id}/provenance", response_class=Response)
def run_provenance(web: Web, run_id: str, fmt: FormatQuery = "jsonld") -> Response:
    """What one run wrote (a concept or graph extraction, or a card generation), with its
    calls and approval."""
    return _download(web, f"{run_id}-provenance", fmt, run=run_id)
