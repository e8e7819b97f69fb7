"""The graph and its sources under /api: concepts, the graph around a node or of a filter,
contents, and a passage in its section (`services/browse.py`, `services/graph_view.py`, as
`zettelgraph concept`, `graph` and `contents` print them with `--json`).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException

from zettelgraph.services import browse, graph_view
from zettelgraph.web import actions
from zettelgraph.web.api.models import (
    ConceptDetail,
    ConceptRow,
    ContentDetail,
    ContentRow,
    Graph,
    PassageInContext,
)
from zettelgraph.web.filters import PacksQuery, TypesQuery, node_filter, pack_schema
from zettelgraph.web.state import Web

router = APIRouter()


@router.get("/concepts", response_model=list[ConceptRow])
def list_concepts(web: Web, q: str = "") -> list[dict[str, Any]]:
    """Every concept by title, or those whose title or summary contains `q`."""
    return browse.concept_rows(web.services.store, q)


@router.get("/concepts/{concept_id}", response_model=ConceptDetail)
def get_concept(concept_id: str, web: Web) -> dict[str, Any]:
    """A concept with its relations both ways, its supporting passages and its provenance."""
    store = web.services.store
    concept = store.get_concept(concept_id)
    if concept is None:
        raise actions.not_found("concept", concept_id)
    return browse.concept_detail(store, concept)


@router.get("/graph", response_model=Graph)
def graph(
    web: Web,
    concept: str | None = None,
    content: str | None = None,
    entity: str | None = None,
    depth: int = 2,
    limit: int = 300,
    types: TypesQuery = [],  # noqa: B006 (FastAPI copies the default)
    packs: PacksQuery = [],  # noqa: B006
) -> dict[str, Any]:
    """Concepts, entities and their relations around a concept or an entity, or around the
    concepts and entities of a content's passages; with none of them and a filter, every node
    the filter keeps.

    `?type=Person&type=Concept` and `?pack=narrative` keep only nodes of those entity types
    (a concept is of type Concept) and packs; the starting node is always shown. Nodes carry
    their `type`, `pack` and `color`; `colors` and `node_colors` give the colour of each
    relation and entity type shown. `depth` is clamped to 1..4 hops and `limit` to 1..5000
    nodes.
    """
    store = web.services.store
    keep = node_filter(types, packs)
    if concept is None and content is None and entity is None and not keep.active:
        raise HTTPException(
            status_code=422, detail="give ?concept=ID, ?entity=ID, ?content=ID or ?type=TYPE"
        )
    if concept is not None and store.get_concept(concept) is None:
        raise actions.not_found("concept", concept)
    if entity is not None and not store.get_entities([entity]):
        raise actions.not_found("entity", entity)
    if content is not None and store.get_content(content) is None:
        raise actions.not_found("content", content)
    return graph_view.graph_view(
        store,
        pack_schema(web),
        concept_id=concept,
        entity_id=None if concept else entity,
        content_id=content,
        keep=keep,
        depth=min(max(depth, 1), 4),
        limit=min(max(limit, 1), 5000),
    )


@router.get("/contents", response_model=list[ContentRow])
def list_contents(web: Web) -> list[dict[str, Any]]:
    """Every content with its author and number of passages."""
    return browse.content_rows(web.services.store)


@router.get("/contents/{content_id}", response_model=ContentDetail)
def get_content(content_id: str, web: Web) -> dict[str, Any]:
    """A content with its author, sections and passages in reading order."""
    detail = browse.content_detail(web.services.store, content_id)
    if detail is None:
        raise actions.not_found("content", content_id)
    return detail


@router.get("/passages/{passage_id}", response_model=PassageInContext)
def get_passage(passage_id: str, web: Web) -> dict[str, Any]:
    """A passage (what an answer's [n] cites) in its section, with its neighbours."""
    store = web.services.store
    found = store.get_quotes([passage_id])
    if not found:
        raise actions.not_found("passage", passage_id)
    quote = found[0]
    sections = store.get_sections([quote.parent_id]) if quote.parent_id is not None else []
    order = [q.id for q in store.quotes_of(quote.content_id)]
    place = order.index(quote.id) if quote.id in order else -1
    return {
        "passage": browse.passage_view(store, quote),
        "section": sections[0] if sections else None,
        "previous_id": order[place - 1] if place > 0 else None,
        "next_id": order[place + 1] if 0 <= place < len(order) - 1 else None,
    }
