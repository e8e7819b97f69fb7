"""Communities of a graph, for the graph page's overview (`graph_overview.py`): label
propagation over the relations, visited in a fixed order so the same graph always gives the
same communities, the communities grouped again while there are more than the page draws,
and one community split around its hubs when propagation keeps it whole. Pure: node ids and
weights in, groups of node ids out."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

# Rounds of label propagation: on the 10,000-concept benchmark graph it settles in 6-8.
ROUNDS = 20
# Times communities are grouped again while there are more than the budget.
REGROUPS = 6


def propagate(order: Sequence[K], weights: Mapping[K, Mapping[K, int]]) -> list[list[K]]:
    """Label propagation: the groups of `order`'s items, each in `order`'s order, the groups by
    their first item. Every item starts with a label of its own and takes, in `order`, the
    label its neighbours carry most (by weight; a tie keeps its own, else the earliest).

    Args:
        order: the items, in the order they take their labels.
        weights: each item's neighbours and how strongly each is tied to it.

    Returns:
        The groups, each in `order`'s order.
    """
    label = {item: i for i, item in enumerate(order)}
    for _ in range(ROUNDS):
        changed = False
        for item in order:
            tally: dict[int, int] = {}
            for other, weight in weights.get(item, {}).items():
                tally[label[other]] = tally.get(label[other], 0) + weight
            if not tally:
                continue
            best = max(tally.values())
            if tally.get(label[item]) == best:
                continue
            label[item] = min(lab for lab, weight in tally.items() if weight == best)
            changed = True
        if not changed:
            break
    groups: dict[int, list[K]] = {}
    for item in order:
        groups.setdefault(label[item], []).append(item)
    return sorted(groups.values(), key=lambda group: label[group[0]])


def _regroup(
    groups: list[list[str]], weights: Mapping[str, Mapping[str, int]], rank: Mapping[str, int]
) -> list[list[str]]:
    """The groups grouped by label propagation over the relations between them."""
    where = {node: i for i, group in enumerate(groups) for node in group}
    between: dict[int, dict[int, int]] = {i: {} for i in range(len(groups))}
    for node, around in weights.items():
        for other, weight in around.items():
            a, b = where[node], where[other]
            if a != b:
                between[a][b] = between[a].get(b, 0) + weight
    order = sorted(range(len(groups)), key=lambda i: (-len(groups[i]), i))
    merged = [[node for i in found for node in groups[i]] for found in propagate(order, between)]
    return [sorted(group, key=rank.__getitem__) for group in merged]


def nearest_hub(
    order: Sequence[str], weights: Mapping[str, Mapping[str, int]], rank: Mapping[str, int]
) -> list[list[str]]:
    """One group split around its hubs: the square root of its size of its most related
    nodes, each node joining a hub fewest relations away, the one with the smallest part so
    far when several are as near (a clique splits evenly). Label propagation keeps a
    community whole when it is run on it alone, so a community past the budget opens into
    these parts instead.

    Args:
        order: the group's node ids, most related first.
        weights: each node's neighbours and how many relations join them.
        rank: each node's place in the whole graph's order, to sort each part by.

    Returns:
        The parts, one per hub, each sorted by `rank`.
    """
    hubs = order[: max(2, math.isqrt(len(order)))]
    hub_of = {hub: hub for hub in hubs}
    sizes = dict.fromkeys(hubs, 1)
    ring = list(hubs)
    while ring:
        reached: dict[str, list[str]] = {}
        for node in ring:
            for other in weights.get(node, {}):
                if other not in hub_of:
                    reached.setdefault(other, []).append(hub_of[node])
        for other in sorted(reached, key=rank.__getitem__):
            hub = min(reached[other], key=lambda h: (sizes[h], rank[h]))
            hub_of[other] = hub
            sizes[hub] += 1
        ring = list(reached)
    parts: dict[str, list[str]] = {hub: [] for hub in hubs}
    for node in order:  # one not reached (a group need not be connected) is a part alone
        parts.setdefault(hub_of.get(node, node), []).append(node)
    return [sorted(part, key=rank.__getitem__) for part in parts.values() if part]


def _strengthened(weights: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    """Each pair's weight times one plus the neighbours the two share: a relation inside a
    tight group counts more than a bridge between groups, which plain label propagation,
    breaking its first ties by order, would otherwise follow across (two cliques joined by
    one relation came out as one community)."""
    around = {node: set(others) for node, others in weights.items()}
    return {
        node: {
            other: weight * (1 + len(around[node] & around[other]))
            for other, weight in others.items()
        }
        for node, others in weights.items()
    }


def communities(
    order: Sequence[str], weights: Mapping[str, Mapping[str, int]], budget: int
) -> list[list[str]]:
    """The communities of the nodes of `order` (most related first), largest first, each
    most related first; at most `budget` of them when regrouping gets there; the nodes with
    no relation last, in one group.

    Args:
        order: the node ids, most related first.
        weights: each node's neighbours and how many relations join them.
        budget: how many communities (and nodes in one) the page draws at most.

    Returns:
        The communities, each a list of node ids.
    """
    rank = {node: i for i, node in enumerate(order)}
    related = [node for node in order if weights.get(node)]
    groups = propagate(related, _strengthened(weights))
    for _ in range(REGROUPS):
        if len(groups) <= budget:
            break
        fewer = _regroup(groups, weights, rank)
        if len(fewer) == len(groups):
            break
        groups = fewer
    if len(groups) == 1:
        groups = nearest_hub(groups[0], weights, rank)
    groups.sort(key=lambda group: (-len(group), rank[group[0]]))
    alone = [node for node in order if not weights.get(node)]
    return [*groups, alone] if alone else groups
