"""The graph page's overview of a large graph, on every backend: communities of related nodes
past the node budget, each opened to its nodes (or to its own parts when it is still too
large), and the same result however the store is read. The graph is `community_graph`'s.
"""

from __future__ import annotations

import pytest

from community_graph import ALONE, EVERY, TIME, VIRTUE, cid, concept, related, write_communities
from zettelgraph.models import ChangeSet
from zettelgraph.packs.loader import shipped_schema
from zettelgraph.packs.schema import PackSchema
from zettelgraph.services.graph_overview import NoSuchCommunityError, Overview, overview
from zettelgraph.services.graph_view import NodeFilter
from zettelgraph.settings import DEFAULT_PACKS
from zettelgraph.store import GraphStore
from zettelgraph.store.base import Remembers


@pytest.fixture
def schema() -> PackSchema:
    return shipped_schema(tuple(DEFAULT_PACKS))


@pytest.fixture
def graph(store: GraphStore) -> GraphStore:
    write_communities(store)
    return store


def _titles(found: Overview) -> list[tuple[str, int]]:
    return [(c.sample[0], c.size) for c in found.communities]


def test_past_the_budget_the_overview_is_the_communities(
    graph: GraphStore, schema: PackSchema
) -> None:
    found = overview(graph, schema, budget=5)
    assert found.scope == 14 and found.nodes == ()
    # Largest first, each named by its most related node; the unrelated ones gathered last.
    # (Instante and Olvido are both related to 4: the title breaks the tie.)
    assert _titles(found) == [("Fortaleza", 5), ("Instante", 4), ("Calle", 3), ("Azar", 2)]
    assert [c.unrelated for c in found.communities] == [False, False, False, True]
    links = {frozenset((a, b)): w for a, b, w in found.links}
    assert links == {
        frozenset((cid("Fortaleza"), cid("Instante"))): 1,
        frozenset((cid("Instante"), cid("Calle"))): 1,
    }
    # Under the budget: every node, as the page always drew them.
    assert set(overview(graph, schema, budget=14).nodes) == {cid(t) for t in EVERY}


def test_opening_a_community_gives_its_nodes(graph: GraphStore, schema: PackSchema) -> None:
    opened = overview(graph, schema, budget=5, path=[cid("Fortaleza")])
    assert set(opened.nodes) == {cid(t) for t in VIRTUE} and not opened.truncated
    alone = overview(graph, schema, budget=5, path=[cid("Azar")])
    assert set(alone.nodes) == {cid(t) for t in ALONE}
    with pytest.raises(NoSuchCommunityError):
        overview(graph, schema, budget=5, path=[cid("Virtud")])  # not an anchor
    with pytest.raises(NoSuchCommunityError):
        overview(graph, schema, budget=20, path=[cid("Fortaleza")])  # no communities


def test_a_community_past_the_budget_opens_into_parts_around_its_hubs(
    graph: GraphStore, schema: PackSchema
) -> None:
    # Budget 3: the clique of 5 is one community, too large; it opens into two parts around
    # its two most related nodes, 3 and 2 nodes, each then small enough to draw.
    whole = overview(graph, schema, budget=3)
    assert _titles(whole)[0] == ("Fortaleza", 5)
    opened = overview(graph, schema, budget=3, path=[cid("Fortaleza")])
    assert [c.size for c in opened.communities] == [3, 2]
    assert opened.communities[0].anchor.id == cid("Fortaleza")
    parts = [
        set(overview(graph, schema, budget=3, path=[cid("Fortaleza"), c.anchor.id]).nodes)
        for c in opened.communities
    ]
    assert parts[0] | parts[1] == {cid(t) for t in VIRTUE} and len(parts[0]) == 3


def test_the_filter_and_a_write_change_the_overview(graph: GraphStore, schema: PackSchema) -> None:
    people = NodeFilter(types=frozenset({"Person"}))
    assert overview(graph, schema, keep=people, budget=5).scope == 0
    before = overview(graph, schema, budget=5)
    if isinstance(graph, Remembers):  # SQLite: read once while nothing is written
        assert (
            overview(graph, schema, budget=5).communities[0].anchor is before.communities[0].anchor
        )
    # A new concept related to the whole clique of 4 joins its community.
    graph.apply(
        ChangeSet(
            concepts=[concept("Reloj")], relations=[related("Reloj", title) for title in TIME]
        )
    )
    after = overview(graph, schema, budget=5)
    assert before.scope == 14 and after.scope == 15
    assert sorted(size for _, size in _titles(after)) == [2, 3, 5, 5]
