"""Reading the entities of the template packs: what the web's entity pages and `/api/entities`
show. Plain functions of a store and the active packs' schema, returning JSON-safe dicts.

An entity's passages are the ones its provenance lists (`provenance["passages"]`, as the
graph extraction records them) and any passage with a relation to it, as in its vault note.
"""

from __future__ import annotations

from typing import Any

from zettelgraph.models import Entity, NodeLabel
from zettelgraph.packs.relations import CONCEPT_TYPE, DEFAULT_VOCABULARY, RelationVocabulary
from zettelgraph.packs.schema import PackSchema
from zettelgraph.services.browse import passage_views, pointing_here
from zettelgraph.services.graph_view import NodeFilter, node_href, type_color
from zettelgraph.store.base import GraphStore, every_node
from zettelgraph.text.normalize import normalize_name
from zettelgraph.vault.entities import passage_ids


def entity_types(
    store: GraphStore, schema: PackSchema, *, concepts: bool = False
) -> list[dict[str, Any]]:
    """Every entity type of the active packs (in pack order), then any other type the store
    holds, with its pack, colour, description and number of entities. The `Concept` type
    (concepts are not entities) is listed, with the number of concepts, only if `concepts`.

    Args:
        store: the graph store to read.
        schema: the active packs' schema (their types, colours and descriptions).
        concepts: also list the `Concept` type; False by default.

    Returns:
        One dict per type: `type`, `pack`, `color`, `description`, `active` (whether an active pack
        defines it) and `entities` (how many the store holds).
    """
    counts: dict[tuple[str, str], int] = {}
    for entity in every_node(store, NodeLabel.ENTITY, Entity):
        key = (entity.entity_type, entity.pack)
        counts[key] = counts.get(key, 0) + 1
    if concepts and CONCEPT_TYPE in schema.entity_types:
        counts[(CONCEPT_TYPE, schema.defined_by[CONCEPT_TYPE])] = len(store.list_concepts())
    rows = [
        {
            "type": name,
            "pack": schema.defined_by.get(name, ""),
            "color": type_color(name, schema),
            "description": spec.description,
            "active": True,
            "entities": sum(n for (kind, _), n in counts.items() if kind == name),
        }
        for name, spec in schema.entity_types.items()
        if concepts or name != CONCEPT_TYPE
    ]
    for kind, pack in sorted(set(counts)):
        if kind not in schema.entity_types:
            rows.append(
                {
                    "type": kind,
                    "pack": pack,
                    "color": type_color(kind, schema),
                    "description": "",
                    "active": False,
                    "entities": counts[(kind, pack)],
                }
            )
    return rows


def entity_rows(
    store: GraphStore, schema: PackSchema, keep: NodeFilter | None = None, query: str = ""
) -> list[dict[str, Any]]:
    """Every entity (or those `keep` keeps, whose name or description contains `query`), by
    name.

    Args:
        store: the graph store to read.
        schema: the active packs' schema (for the types' colours).
        keep: which types and packs to list; None (the default) keeps every entity.
        query: text to look for in names and descriptions, up to case and accents; empty (the
            default) takes all.

    Returns:
        One dict per entity, by name: `id`, `name`, `entity_type`, `pack`, `description`, `color`
        and the numbers of its `relations` and `passages`.
    """
    keep = keep or NodeFilter()
    wanted = normalize_name(query)
    rows: list[dict[str, Any]] = []
    for entity in every_node(store, NodeLabel.ENTITY, Entity):
        if not keep.keeps(entity.entity_type, entity.pack):
            continue
        if wanted and wanted not in normalize_name(f"{entity.name} {entity.description}"):
            continue
        incoming = store.relations(entity.id, direction="in")
        passages = set(passage_ids(entity))
        passages.update(r.source_id for r in incoming)
        rows.append(
            {
                "id": entity.id,
                "name": entity.name,
                "entity_type": entity.entity_type,
                "pack": entity.pack,
                "description": entity.description,
                "color": type_color(entity.entity_type, schema),
                "relations": len(store.relations(entity.id)),
                "passages": len(store.get_quotes(sorted(passages))),
            }
        )
    rows.sort(key=lambda row: (normalize_name(row["name"]), row["entity_type"], row["id"]))
    return rows


def property_rows(entity: Entity, schema: PackSchema) -> list[dict[str, Any]]:
    """The entity's properties in its type's order (then any other it has), each with the
    type and description the pack gives it; missing values are left out.

    Args:
        entity: the entity, as stored.
        schema: the active packs' schema (the property types and descriptions).

    Returns:
        One `{name, value, type, description}` per property with a value; `type` None for a property
        its pack does not define.
    """
    spec = schema.entity_types.get(entity.entity_type)
    specs = {p.name: p for p in spec.properties} if spec else {}
    names = [*specs, *sorted(set(entity.properties) - set(specs))]
    rows = []
    for name in names:
        value = entity.properties.get(name)
        if value is None or value == "" or value == []:
            continue
        prop = specs.get(name)
        rows.append(
            {
                "name": name,
                "value": value,
                "type": prop.type if prop else None,
                "description": prop.description if prop else "",
            }
        )
    return rows


def entity_detail(store: GraphStore, schema: PackSchema, entity: Entity) -> dict[str, Any]:
    """An entity with its typed properties, its relations (as links to the other entity or
    concept; `incoming` holds those pointing here that `relations` does not already show,
    such as one-way types), the passages it was found in, and its provenance.

    Args:
        store: the graph store to read.
        schema: the active packs' schema.
        entity: the entity, as stored.

    Returns:
        The entity's fields (JSON) with `color`, `type_description`, `property_rows`, `relations`
        and `incoming` (links with the other end's name, type and page, `explanation`, `inferred`)
        and `passages` (`passage_view` dicts).
    """
    outgoing = store.relations(entity.id, direction="out")
    incoming = store.relations(entity.id, direction="in")
    ends = {r.target_id for r in outgoing} | {r.source_id for r in incoming}
    others: dict[str, dict[str, str]] = {
        e.id: {"name": e.name, "type": e.entity_type, "href": node_href(e)}
        for e in store.get_entities(sorted(ends))
    }
    for node_id in sorted(ends - set(others)):
        concept = store.get_concept(node_id)
        if concept is not None:
            others[node_id] = {"name": concept.title, "type": "Concept", "href": node_href(concept)}

    def link(r: Any, other_id: str, key: str) -> dict[str, Any]:
        other = others[other_id]
        return {
            "type": r.type,
            f"{key}_id": other_id,
            key: other["name"],
            f"{key}_type": other["type"],
            "href": other["href"],
            "explanation": r.properties.get("explanation", ""),
            "inferred": "inferred_reverse_of" in r.properties,
        }

    relations = [link(r, r.target_id, "target") for r in outgoing if r.target_id in others]
    vocabulary: RelationVocabulary = getattr(store, "vocabulary", DEFAULT_VOCABULARY)
    back = [
        link(r, r.source_id, "source")
        for r in pointing_here(outgoing, incoming, vocabulary)
        if r.source_id in others
    ]
    relations.sort(key=lambda x: (x["type"], normalize_name(x["target"]), x["target_id"]))
    back.sort(key=lambda x: (x["type"], normalize_name(x["source"]), x["source_id"]))
    passages = [*passage_ids(entity), *(r.source_id for r in incoming if r.source_id not in others)]
    quotes = store.get_quotes(list(dict.fromkeys(passages)))
    quotes.sort(key=lambda q: (q.content_id, q.position, q.id))
    spec = schema.entity_types.get(entity.entity_type)
    return {
        **entity.model_dump(mode="json"),
        "color": type_color(entity.entity_type, schema),
        "type_description": spec.description if spec else "",
        "property_rows": property_rows(entity, schema),
        "relations": relations,
        "incoming": back,
        "passages": passage_views(store, quotes),
    }
