"""The graph page past its node budget: communities drawn and listed, each opened with its
link (the same without JavaScript), the breadcrumb back, the filter kept, a stale link a 404.
The graph is `community_graph`'s, the budget lowered to 5 nodes (`ZETTELGRAPH_GRAPH_BUDGET`).
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from community_graph import EVERY, VIRTUE, cid, write_communities

from .conftest import MakeWeb, Web
from .test_pages import graph_data


@pytest.fixture
def site(make_web: MakeWeb) -> Web:
    web = make_web(graph_budget=5)
    write_communities(web.services.store)
    return web


def _list_links(html: str) -> list[str]:
    """The links of the community list under the canvas (what works without JavaScript)."""
    found = re.search(r'<section class="community-list">(.*?)</section>', html, re.S)
    assert found, "no community list"
    return [link.replace("&amp;", "&") for link in re.findall(r'href="([^"]+)"', found.group(1))]


def test_the_whole_graph_past_the_budget_is_its_communities(site: Web) -> None:
    page = site.client.get("/graph")
    assert page.status_code == 200
    data = graph_data(page.text)
    assert data["communities"] and data["overview"]
    assert [(n["title"], n["size"]) for n in data["nodes"]] == [
        ("Fortaleza", 5),
        ("Instante", 4),
        ("Calle", 3),
        ("Unrelated nodes", 2),
    ]
    assert {n["kind"] for n in data["nodes"]} == {"community"}
    assert len(data["edges"]) == 2 and {e["weight"] for e in data["edges"]} == {1}
    assert "14 nodes in 4 communities" in " ".join(page.text.split())
    links = _list_links(page.text)
    assert links == [n["href"] for n in data["nodes"]]
    assert links[0] == f"/graph?community={quote(cid('Fortaleza'))}"


def test_opening_a_community_draws_its_nodes_with_a_way_back(site: Web) -> None:
    whole = graph_data(site.client.get("/graph").text)
    page = site.client.get(whole["nodes"][0]["href"])
    assert page.status_code == 200
    data = graph_data(page.text)
    assert not data["communities"]
    assert {n["id"] for n in data["nodes"]} == {cid(t) for t in VIRTUE}
    assert len(data["edges"]) == 10  # the clique's relations, each once
    html = " ".join(page.text.split())
    assert "Community of Fortaleza" in html
    assert '<a href="/graph">The whole graph</a>' in html
    # Without JavaScript, the nodes as a list of links.
    assert f'href="/concepts/{cid("Justicia")}"' in page.text
    assert site.client.get("/graph", params={"community": cid("Virtud")}).status_code == 404


def test_the_filter_is_kept_in_the_links_and_a_small_graph_is_drawn_whole(
    site: Web, make_web: MakeWeb
) -> None:
    data = graph_data(site.client.get("/graph", params={"type": "Concept"}).text)
    assert data["nodes"][0]["href"].endswith("&type=Concept")
    opened = site.client.get(data["nodes"][0]["href"])
    assert opened.status_code == 200 and '<a href="/graph?type=Concept">' in opened.text
    # Under the budget (the default, 300): every node, no communities.
    small = make_web()
    write_communities(small.services.store)
    drawn = graph_data(small.client.get("/graph").text)
    assert not drawn["communities"] and len(drawn["nodes"]) == len(EVERY)
