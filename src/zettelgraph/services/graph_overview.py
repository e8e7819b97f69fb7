"""The graph page's overview of a graph too large to draw: communities, opened one at a time.

Above a node budget (`Settings.graph_budget`) a browser cannot draw the whole graph quickly
(10,000 concepts drawn as their 2,000 most related: 6.4 s until drawn in headless Chromium),
and a hairball of thousands of nodes shows nothing anyway. So the server groups the nodes into
communities, nodes related more among themselves than to the rest, and the page draws one
circle per community, sized by its number of nodes and linked by the relations between them.
Opening a community (`path`, the anchors of the communities opened so far) shows its nodes
when they fit the budget, or its own communities when they do not.

Communities come from label propagation over the relations (each node takes the label most of
its neighbours carry, until none changes; O(relations) a round, no dependency), visited in a
fixed order so the same graph always gives the same communities. When that leaves more
communities than the budget (a tree of small stars), the communities themselves are grouped
the same way, a few times over. Nodes with no relation in scope form one group of their own.
A community is named by its anchor, its most related node, whose id is what the page's links
carry. On SQLite the result is kept until the store changes (`Remembers`); other stores
compute it on every request (10,000 nodes: about 0.3 s, most of it the reads).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from zettelgraph.packs.relations import STRUCTURAL_TYPES
from zettelgraph.packs.schema import PackSchema
from zettelgraph.services.communities import communities
from zettelgraph.services.graph_view import (
    Node,
    NodeFilter,
    every_kept_node,
    pack_of,
    title_of,
    type_color,
    type_of,
)
from zettelgraph.store.base import GraphStore, Remembers

T = TypeVar("T")

# The most links drawn from one community (its strongest), so the overview stays legible.
LINKS = 3
# The name of the community of nodes with no relation in scope.
UNRELATED = "Unrelated nodes"
# How many of its most related nodes a community lists beside its name.
SAMPLE = 3


class NoSuchCommunityError(LookupError):
    """An anchor in the path names no community of the graph (it changed, or a bad link)."""


@dataclass(frozen=True)
class Community:
    """Nodes related among themselves: `anchor` (the most related of them) names it."""

    anchor: Node
    size: int
    sample: tuple[str, ...]  # the titles of its most related nodes, the anchor's first
    unrelated: bool = False  # the nodes of no relation in scope, gathered


@dataclass(frozen=True)
class Overview:
    """What the graph page draws of a scope (the whole graph or an opened community):
    `nodes` (ids) when they fit the budget, else `communities` and the `links` between them
    (anchor id, anchor id, relations)."""

    scope: int  # nodes in scope
    nodes: tuple[str, ...] = ()
    communities: tuple[Community, ...] = ()
    links: tuple[tuple[str, str, int], ...] = ()
    hidden: int = 0  # communities left out past the budget (the smallest)
    truncated: bool = False  # `nodes` are the most related of a scope that does not split


def _weights(store: GraphStore, nodes: Mapping[str, Node]) -> dict[str, dict[str, int]]:
    """Relations between the nodes, both ways, as a count per pair (a relation and its
    stored reverse count once; structural ones and loops not at all)."""
    weights: dict[str, dict[str, int]] = {node_id: {} for node_id in nodes}
    for r in store.relations_of(list(nodes)):
        a, b = r.source_id, r.target_id
        if (
            r.type in STRUCTURAL_TYPES
            or a == b
            or a not in nodes
            or b not in nodes
            or "inferred_reverse_of" in r.properties
        ):
            continue
        weights[a][b] = weights[a].get(b, 0) + 1
        weights[b][a] = weights[b].get(a, 0) + 1
    return weights


@dataclass(frozen=True)
class _Scope:
    """Nodes in scope, most related first, and the relations among them (per pair)."""

    order: tuple[str, ...]
    weights: Mapping[str, Mapping[str, int]]
    groups: tuple[tuple[str, ...], ...]  # its communities, when it does not fit the budget


def _scope(
    nodes: Mapping[str, Node],
    weights: Mapping[str, Mapping[str, int]],
    members: Sequence[str],
    budget: int,
) -> list[_Scope]:
    """`members` as a scope (a list of one, as `Remembers` keeps results)."""
    kept = set(members)
    inside = {node: {o: w for o, w in weights[node].items() if o in kept} for node in members}
    order = sorted(
        inside, key=lambda n: (-sum(inside[n].values()), title_of(nodes[n]).casefold(), n)
    )
    groups = communities(order, inside, budget) if len(order) > budget else []
    return [_Scope(tuple(order), inside, tuple(tuple(group) for group in groups))]


def _draw(nodes: Mapping[str, Node], scope: _Scope, budget: int) -> Overview:
    """The overview of a scope: its nodes when they fit, else its largest communities."""
    if not scope.groups:
        return Overview(scope=len(scope.order), nodes=scope.order)
    if len(scope.groups) == 1:  # nothing related: the first of them
        return Overview(scope=len(scope.order), nodes=scope.order[:budget], truncated=True)
    shown = scope.groups[:budget]
    anchor_of = {node: group[0] for group in shown for node in group}
    between: dict[tuple[str, str], int] = {}
    for node, around in scope.weights.items():
        for other, weight in around.items():
            a, b = anchor_of.get(node), anchor_of.get(other)
            if a is not None and b is not None and a < b:
                between[a, b] = between.get((a, b), 0) + weight
    # Each community's strongest links only: 65 communities of the 10,000-concept benchmark
    # graph have 873 pairs related at all, a web that hides the strong ties and slows the
    # first paint.
    strongest: dict[str, list[tuple[int, str, str]]] = {}
    for (a, b), weight in between.items():
        strongest.setdefault(a, []).append((-weight, b, a))
        strongest.setdefault(b, []).append((-weight, a, b))
    kept = {
        (min(node, other), max(node, other))
        for ties in strongest.values()
        for _, other, node in sorted(ties)[:LINKS]
    }
    links = {pair: between[pair] for pair in kept}
    return Overview(
        scope=len(scope.order),
        communities=tuple(
            Community(
                anchor=nodes[group[0]],
                size=len(group),
                sample=tuple(title_of(nodes[n]) for n in group[:SAMPLE]),
                unrelated=not scope.weights[group[0]],
            )
            for group in shown
        ),
        links=tuple((a, b, w) for (a, b), w in sorted(links.items())),
        hidden=len(scope.groups) - len(shown),
    )


def _remembered(store: GraphStore, key: tuple[object, ...], read: Callable[[], list[T]]) -> T:
    if isinstance(store, Remembers):
        return store.remembered(key, read)[0]
    return read()[0]


def overview(
    store: GraphStore,
    schema: PackSchema,
    *,
    keep: NodeFilter | None = None,
    path: Sequence[str] = (),
    budget: int = 300,
) -> Overview:
    """What the graph page draws of the nodes `keep` keeps, or of the community opened by
    `path`: every node when they fit `budget`, else at most `budget` communities.

    Args:
        store: the graph store.
        schema: the active packs' schema (which pack defines which type).
        keep: which nodes to show (entity types, packs); all by default.
        path: the anchors of the communities opened, outermost first.
        budget: the most nodes or communities drawn.

    Returns:
        The overview; on SQLite each step (the nodes and their relations, each scope's
        communities) is reused until the store changes.

    Raises:
        NoSuchCommunityError: an anchor of `path` names no community there.
    """
    keep = keep or NodeFilter()
    key = (keep.types, keep.packs)

    def read_graph() -> list[tuple[dict[str, Node], dict[str, dict[str, int]]]]:
        nodes = {node.id: node for node in every_kept_node(store, schema, keep)}
        return [(nodes, _weights(store, nodes))]

    nodes, weights = _remembered(store, ("graph_nodes", *key), read_graph)
    scope = _remembered(
        store,
        ("graph_scope", *key, (), budget),
        partial(_scope, nodes, weights, list(nodes), budget),
    )
    for depth, anchor in enumerate(path, start=1):
        found = [group for group in scope.groups[:budget] if group[0] == anchor]
        if not found or len(scope.groups) == 1:
            raise NoSuchCommunityError(anchor)
        scope = _remembered(
            store,
            ("graph_scope", *key, tuple(path[:depth]), budget),
            partial(_scope, nodes, weights, found[0], budget),
        )
    return _draw(nodes, scope, budget)


def community_graph(
    view: Overview, schema: PackSchema, href: Callable[[str], str]
) -> dict[str, Any]:
    """The communities as `graph_view.graph_view` gives nodes and relations: one node per
    community (kind `community`, with its `size`), one edge per pair of related communities
    (with its `weight`, the relations between them).

    Args:
        view: an overview with communities.
        schema: the active packs' schema, for the anchors' colours.
        href: the page that opens a community, from its anchor's id.

    Returns:
        `nodes`, `edges`, `colors` (none: the links have no type) and `node_colors`.
    """
    nodes = []
    for community in view.communities:
        anchor = community.anchor
        node_type = type_of(anchor)
        nodes.append(
            {
                "id": anchor.id,
                "title": UNRELATED if community.unrelated else title_of(anchor),
                "summary_short": f"{community.size} nodes: {', '.join(community.sample)}"
                + ("…" if community.size > len(community.sample) else ""),
                "hops": 0,
                "kind": "community",
                "type": node_type,
                "pack": pack_of(anchor, schema),
                "color": type_color(node_type, schema),
                "href": href(anchor.id),
                "size": community.size,
            }
        )
    edges = [
        {
            "source": a,
            "target": b,
            "type": f"{weight} relation{'' if weight == 1 else 's'}",
            "explanation": "",
            "weight": weight,
        }
        for a, b, weight in view.links
    ]
    return {
        "nodes": nodes,
        "edges": edges,
        "colors": {},
        "node_colors": {n["type"]: n["color"] for n in nodes},
    }
