"""What the entity pages, the graph page and their JSON API share: the active packs' schema and
the filter by entity type and pack (`?type=Person&type=Place&pack=narrative`).

A type or pack name that could never exist (not the pattern packs give names) is a 422; a
well-formed name no pack defines simply matches nothing.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import HTTPException, Query

from zettelgraph.packs.schema import ENTITY_TYPE_NAME, PACK_NAME, PackSchema
from zettelgraph.services.graph_view import NodeFilter
from zettelgraph.web.state import WebState

# `?type=Person&type=Place`: the entity types to show (all when none).
TypesQuery = Annotated[list[str], Query(alias="type", max_length=100)]
# `?pack=narrative`: the packs whose types to show (all when none).
PacksQuery = Annotated[list[str], Query(alias="pack", max_length=20)]

_TYPE = re.compile(ENTITY_TYPE_NAME)
_PACK = re.compile(PACK_NAME)


def pack_schema(web: WebState) -> PackSchema:
    """The active packs merged (`Services.packs`): types, colours, what joins what."""
    schema: PackSchema = web.services.packs
    return schema


def node_filter(types: list[str], packs: list[str]) -> NodeFilter:
    """The filter the query asks for; empty values (a form's "all") are ignored."""
    chosen_types = {t.strip() for t in types if t.strip()}
    chosen_packs = {p.strip() for p in packs if p.strip()}
    bad = sorted(t for t in chosen_types if not _TYPE.fullmatch(t))
    bad += sorted(p for p in chosen_packs if not _PACK.fullmatch(p))
    if bad:
        raise HTTPException(
            status_code=422, detail=f"no entity type or pack can be named {bad[0]!r}"
        )
    return NodeFilter(types=frozenset(chosen_types), packs=frozenset(chosen_packs))


def filter_form(
    schema: PackSchema, types: list[dict[str, Any]], keep: NodeFilter
) -> dict[str, Any]:
    """What the filter form shows: each pack with its types (colour, count, checked), and
    the packs to choose from. `types` is `services.entities.entity_types`."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in types:
        groups.setdefault(row["pack"] or "other", []).append(
            {**row, "checked": row["type"] in keep.types}
        )
    packs = [pack.name for pack in schema.packs]
    packs += sorted({row["pack"] for row in types if row["pack"] and row["pack"] not in packs})
    return {
        "groups": groups,
        "packs": [{"name": name, "selected": name in keep.packs} for name in packs],
        "active": keep.active,
    }
