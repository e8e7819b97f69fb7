"""The JSON API of the template packs' entities: `GET /api/entities` (filtered by type and
pack, or by a text in the name or description), `GET /api/entities/ID` (properties, relations
both ways, passages, provenance) and `GET /api/entity-types` (the active packs' types with
their colours and counts).

They call the service functions the entity pages call (`services/entities.py`), so the page
and the API say the same thing. An unknown id is 404; a type or pack name no pack could have
is 422.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from pydantic import Field

from zettelgraph.services import entities
from zettelgraph.web.api.models import Link, Open, Passage
from zettelgraph.web.filters import PacksQuery, TypesQuery, node_filter, pack_schema
from zettelgraph.web.state import Web

router = APIRouter(tags=["entities"])


class EntityRow(Open):
    id: str
    name: str
    entity_type: str
    pack: str
    description: str
    color: str = Field(description="The entity type's colour (#rrggbb) in the graph view.")
    relations: int
    passages: int = Field(description="Passages the entity was found in.")


class EntityType(Open):
    type: str
    pack: str
    color: str
    description: str
    active: bool = Field(description="Defined by an active pack (else only found in the store).")
    entities: int


class PropertyRow(Open):
    name: str
    value: Any
    type: str | None = Field(description="The property's type in the pack, if it defines it.")
    description: str


class EntityOut(Link):
    target_id: str
    target: str
    target_type: str
    href: str


class EntityIn(Link):
    source_id: str
    source: str
    source_type: str
    href: str


class EntityDetail(Open):
    id: str
    name: str
    entity_type: str
    pack: str
    description: str
    properties: dict[str, Any]
    provenance: dict[str, Any]
    color: str
    type_description: str
    property_rows: list[PropertyRow]
    relations: list[EntityOut]
    incoming: list[EntityIn]
    passages: list[Passage]


@router.get("/entities", response_model=list[EntityRow])
def list_entities(
    web: Web,
    types: TypesQuery = [],  # noqa: B006 (FastAPI copies the default)
    packs: PacksQuery = [],  # noqa: B006
    q: Annotated[str, Query(max_length=300)] = "",
) -> list[dict[str, Any]]:
    """Every entity by name; `?type=Person&type=Place` and `?pack=narrative` keep those
    types and packs, `?q=` those whose name or description contains it."""
    keep = node_filter(types, packs)
    return entities.entity_rows(web.services.store, pack_schema(web), keep, q)


@router.get("/entities/{entity_id}", response_model=EntityDetail)
def get_entity(entity_id: str, web: Web) -> dict[str, Any]:
    """An entity with its typed properties, its relations both ways, the passages it was found
    in and its provenance."""
    store = web.services.store
    found = store.get_entities([entity_id])
    if not found:
        raise HTTPException(status_code=404, detail=f"no entity with id {entity_id!r}")
    return entities.entity_detail(store, pack_schema(web), found[0])


@router.get("/entity-types", response_model=list[EntityType])
def entity_types(web: Web) -> list[dict[str, Any]]:
    """The entity types of the active packs (then any other the store holds), with their pack,
    colour and number of entities."""
    return entities.entity_types(web.services.store, pack_schema(web))
