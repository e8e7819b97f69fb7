"""The graph view's data: concepts and pack entities with their typed relations, coloured by
type, filtered by entity type and pack.

What the web's graph page draws and `/api/graph` returns: around a concept or an entity (up to
`depth` hops), around a source (the concepts its passages support and the entities found in
them, and their neighbours), or, with no starting point, every node (of the types and packs
the filter keeps; the most related ones in a large graph). Concepts count as the entity type
`Concept` of the pack that defines it (zettelkasten).
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from zettelgraph.models import Concept, Entity, NodeLabel, Relation
from zettelgraph.packs.relations import (
    CONCEPT_TYPE,
    DEFAULT_VOCABULARY,
    FALLBACK_COLORS,
    QUOTED_IN,
    STRUCTURAL_TYPES,
    RelationVocabulary,
)
from zettelgraph.packs.schema import PackSchema
from zettelgraph.store.base import GraphStore, every_node

# How a concept is drawn when its pack gives the Concept type no colour.
CONCEPT_COLOR = "#94a3b8"
SUMMARY_CHARS = 160

Node = Concept | Entity


@dataclass(frozen=True)
class NodeFilter:
    """Which nodes to show: of these entity types (all when empty) and of these packs (all
    when empty). A concept is of type `Concept`."""

    types: frozenset[str] = frozenset()
    packs: frozenset[str] = frozenset()

    @property
    def active(self) -> bool:
        """Whether the filter leaves anything out (some type or pack is chosen)."""
        return bool(self.types or self.packs)

    def keeps(self, node_type: str, pack: str) -> bool:
        """Whether a node of this type and pack is shown.

        Args:
            node_type: the entity type, or `Concept` for a concept.
            pack: the pack that defines it ("" for none).

        Returns:
            True when the type and the pack are among those chosen (or none is chosen).
        """
        return (not self.types or node_type in self.types) and (
            not self.packs or pack in self.packs
        )


def type_of(node: Node) -> str:
    """A node's type as the graph view names it: the entity's type, or `Concept`.

    Args:
        node: a concept or an entity.

    Returns:
        The type's name.
    """
    return node.entity_type if isinstance(node, Entity) else CONCEPT_TYPE


def title_of(node: Node) -> str:
    """A node's name as the graph shows it: the concept's title, the entity's name.

    Args:
        node: a concept or a pack entity.

    Returns:
        Its title or name.
    """
    return node.title if isinstance(node, Concept) else node.name


def pack_of(node: Node, schema: PackSchema) -> str:
    """The pack a node comes from: the entity's own, else the pack that defines its type.

    Args:
        node: a concept or an entity.
        schema: the active packs' schema.

    Returns:
        The pack's name, or "" when no active pack defines the type.
    """
    if isinstance(node, Entity) and node.pack:
        return node.pack
    return schema.defined_by.get(type_of(node), "")


def type_color(node_type: str, schema: PackSchema) -> str:
    """The entity type's colour from its pack, or a stable fallback (never from the data).

    Args:
        node_type: the entity type, or `Concept`.
        schema: the active packs' schema.

    Returns:
        A CSS colour (`#rrggbb`): the pack's, the concept grey, or one of `FALLBACK_COLORS` chosen
        by the type's name.
    """
    spec = schema.entity_types.get(node_type)
    if spec is not None and spec.color:
        return spec.color
    if node_type == CONCEPT_TYPE:
        return CONCEPT_COLOR
    digest = hashlib.sha256(node_type.encode()).digest()
    return FALLBACK_COLORS[digest[0] % len(FALLBACK_COLORS)]


def relation_color(relation_type: str, schema: PackSchema, vocabulary: RelationVocabulary) -> str:
    """A relation type's colour: its pack's, else the concept vocabulary's.

    Args:
        relation_type: the relation's type (SIMILAR_TO, WORKED_AT).
        schema: the active packs' schema.
        vocabulary: the concept relation vocabulary, for the concept relation types.

    Returns:
        A CSS colour.
    """
    spec = schema.relationship_types.get(relation_type)
    if spec is not None and spec.color:
        return spec.color
    return vocabulary.color(relation_type)


def node_href(node: Node) -> str:
    """The web app's page of a node.

    Args:
        node: a concept or an entity.

    Returns:
        The path, `/concepts/ID` or `/entities/ID`, the id URL-quoted.
    """
    kind = "entities" if isinstance(node, Entity) else "concepts"
    return f"/{kind}/{quote(node.id, safe='')}"


def get_node(store: GraphStore, node_id: str) -> Node | None:
    """The Concept or Entity with this id, or None (a passage, a source, nothing).

    Args:
        store: the graph store to read.
        node_id: the node's full id.

    Returns:
        The concept or entity, or None when the id is neither.
    """
    concept = store.get_concept(node_id)
    if concept is not None:
        return concept
    found = store.get_entities([node_id])
    return found[0] if found else None


def _look_up(
    store: GraphStore, ids: list[str], looked: dict[str, Node | None], hops: dict[str, int]
) -> None:
    """Read the nodes of `ids` not read yet into `looked`: the entities in one call, the
    concepts in another (None for a passage or anything else)."""
    wanted = [i for i in dict.fromkeys(ids) if i not in looked and i not in hops]
    if not wanted:
        return
    nodes: dict[str, Node] = {e.id: e for e in store.get_entities(wanted)}
    nodes.update((c.id, c) for c in store.get_concepts([i for i in wanted if i not in nodes]))
    for node_id in wanted:
        looked[node_id] = nodes.get(node_id)


def _summary(node: Node) -> str:
    text = node.summary_short if isinstance(node, Concept) else node.description
    text = " ".join(text.split())
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1].rstrip() + "…"


def _view(node: Node, hops: int, schema: PackSchema) -> dict[str, Any]:
    node_type = type_of(node)
    return {
        "id": node.id,
        "title": title_of(node),
        "summary_short": _summary(node),
        "hops": hops,
        "kind": "entity" if isinstance(node, Entity) else "concept",
        "type": node_type,
        "pack": pack_of(node, schema),
        "color": type_color(node_type, schema),
        "href": node_href(node),
    }


def _source_seeds(store: GraphStore, content_id: str) -> list[str]:
    """The concepts a source's passages support and the entities found in them (by a
    relation from the passage or the entity's provenance)."""
    passages = [
        r.source_id for r in store.relations(content_id, relation_type=QUOTED_IN, direction="in")
    ]
    supported: dict[str, list[str]] = {passage: [] for passage in passages}
    for r in store.relations_of(passages, direction="out"):
        supported[r.source_id].append(r.target_id)
    seeds = [target for passage in passages for target in supported[passage]]
    found_in = set(passages)
    for entity in every_node(store, NodeLabel.ENTITY, Entity):
        listed = entity.provenance.get("passages")
        if isinstance(listed, list) and found_in.intersection(p for p in listed if type(p) is str):
            seeds.append(entity.id)
    return seeds


def every_kept_node(store: GraphStore, schema: PackSchema, keep: NodeFilter) -> list[Node]:
    """Every concept and entity `keep` keeps: the concepts by title, then the entities by
    type and name.

    Args:
        store: the graph store to read.
        schema: the active packs, which say the pack each type comes from.
        keep: the page's type filter.

    Returns:
        The nodes kept, in that order.
    """
    concepts: list[Concept] = []
    if keep.keeps(CONCEPT_TYPE, schema.defined_by.get(CONCEPT_TYPE, "")):
        concepts = sorted(store.list_concepts(), key=lambda c: (c.title.casefold(), c.id))
    entities: list[Entity] = sorted(
        (
            e
            for e in every_node(store, NodeLabel.ENTITY, Entity)
            if keep.keeps(e.entity_type, e.pack)
        ),
        key=lambda e: (e.entity_type, e.name.casefold(), e.id),
    )
    return [*concepts, *entities]


def _everything(
    store: GraphStore,
    schema: PackSchema,
    keep: NodeFilter,
    limit: int,
    only: Collection[str] | None,
) -> list[Node]:
    """Every node `keep` keeps (of `only`, when given); past `limit`, the `limit` with the
    most relations (a large graph's hubs, rather than the first titles of the alphabet)."""
    if only is None:
        nodes = every_kept_node(store, schema, keep)
    else:  # an opened community: its nodes read by id, not every node scanned
        looked: dict[str, Node | None] = {}
        _look_up(store, list(only), looked, {})
        nodes = [
            node
            for node in looked.values()
            if node is not None and keep.keeps(type_of(node), pack_of(node, schema))
        ]
    if len(nodes) <= limit:
        return nodes
    ids = [node.id for node in nodes]
    out, into = store.relation_counts(ids), store.relation_counts(ids, direction="in")
    return sorted(nodes, key=lambda node: -(out[node.id] + into[node.id]))[:limit]


def _ring_relations(store: GraphStore, ids: list[str], touching: dict[str, list[Relation]]) -> None:
    """The relations the view draws of every node of `ids` not read yet, in one read: the
    nodes waiting in the queue are the next ring (2,000 concepts: one read instead of 2,000)."""
    wanted: dict[str, list[Relation]] = {i: [] for i in ids if i not in touching}
    for r in store.relations_of(list(wanted)):
        if r.type in STRUCTURAL_TYPES or r.source_id == r.target_id:
            continue
        for end in (r.source_id, r.target_id):
            if end in wanted:
                wanted[end].append(r)
    touching.update(wanted)


def graph_view(
    store: GraphStore,
    schema: PackSchema,
    *,
    concept_id: str | None = None,
    content_id: str | None = None,
    entity_id: str | None = None,
    keep: NodeFilter | None = None,
    depth: int = 2,
    limit: int = 300,
    only: Collection[str] | None = None,
) -> dict[str, Any]:
    """Nodes and relations around a concept or an entity (up to `depth` hops) or a content,
    at most `limit` nodes; with none of the three, every node `keep` keeps (the most related
    `limit` of them) and the relations among them. Only nodes `keep` keeps are shown,
    except the starting concept or entity.

    Each relation is given once per pair: a reverse (the store's, or one the model stated
    as well) is left out, since the view draws the forward one.

    Args:
        store: the graph store.
        schema: the active packs' schema: their types, packs and colours.
        concept_id: the concept to start from.
        content_id: the content whose nodes are shown.
        entity_id: the entity to start from.
        keep: which nodes to show (entity types, packs); all by default.
        depth: hops from the starting concept or entity.
        limit: the most nodes shown.
        only: with no starting point, the nodes to choose from (an opened community's).

    Returns:
        `nodes`, `edges`, `colors` (relation type -> colour) and `node_colors` (entity
        type -> colour).
    """
    keep = keep or NodeFilter()
    vocabulary: RelationVocabulary = getattr(store, "vocabulary", DEFAULT_VOCABULARY)
    found: dict[str, Node] = {}
    hops: dict[str, int] = {}  # every node reached, read once: its hop count
    queue: deque[str] = deque()
    centre = concept_id or entity_id
    if centre is not None:
        node = get_node(store, centre)
        if node is not None:
            found[centre], hops[centre] = node, 0
            queue.append(centre)
    seeds: Iterable[Node | str] = ()
    if content_id is not None:
        seeds = _source_seeds(store, content_id)
    elif centre is None:
        seeds = _everything(store, schema, keep, limit, only)
        depth = 0  # every node is chosen; relations among them only
    for seed in seeds:
        if len(hops) >= limit:
            break
        node = get_node(store, seed) if isinstance(seed, str) else seed
        if (
            node is not None
            and node.id not in hops
            and keep.keeps(type_of(node), pack_of(node, schema))
        ):
            found[node.id], hops[node.id] = node, 0
            queue.append(node.id)
    edges: dict[tuple[str, str, str], dict[str, Any]] = {}
    looked: dict[str, Node | None] = {}  # every neighbour read, found or not, read once
    touching: dict[str, list[Relation]] = {}  # each node's relations, a ring read at once
    while queue:
        at = queue.popleft()
        if at not in touching:
            _ring_relations(store, [at, *queue], touching)
        relations = touching.pop(at)
        if hops[at] < depth:
            _look_up(
                store,
                [r.target_id if r.source_id == at else r.source_id for r in relations],
                looked,
                hops,
            )
        for r in relations:
            other = r.target_id if r.source_id == at else r.source_id
            if other not in hops:
                if hops[at] >= depth or len(hops) >= limit:
                    continue
                node = looked.get(other)
                if node is None or not keep.keeps(type_of(node), pack_of(node, schema)):
                    continue  # a passage's SUPPORTS edge, or a type filtered out
                found[other], hops[other] = node, hops[at] + 1
                queue.append(other)
            reverse = (r.target_id, vocabulary.reverses.get(r.type, ""), r.source_id)
            # A pair drawn once: the store's inferred reverses, and a reverse the model also
            # stated (A GENERALIZES B and B SPECIFIC_OF A say one thing).
            if "inferred_reverse_of" not in r.properties and reverse not in edges:
                edges[r.key] = {
                    "source": r.source_id,
                    "target": r.target_id,
                    "type": r.type,
                    "explanation": r.properties.get("explanation", ""),
                }
    kept = set(hops)
    shown = [e for e in edges.values() if e["source"] in kept and e["target"] in kept]
    nodes = [_view(found[node_id], hop, schema) for node_id, hop in hops.items()]
    return {
        "nodes": nodes,
        "edges": shown,
        "colors": {
            t: relation_color(t, schema, vocabulary) for t in sorted({e["type"] for e in shown})
        },
        "node_colors": {n["type"]: n["color"] for n in nodes},
    }
