"""The graph page past its node budget in a real headless Chromium: the communities drawn,
one clicked open on the canvas to its nodes, and the same path without JavaScript through
the list under the canvas. The graph is `community_graph`'s, the budget lowered to 5 nodes.
Screenshots go to test-artifacts/browser/graph-communities*.png.
"""

from __future__ import annotations

import os

import pytest

from community_graph import VIRTUE, cid, write_communities
from zettelgraph.web.app import create_app

from .conftest import MakeWeb
from .test_browser import ARTIFACTS, CHROMIUM, serving

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def test_communities_open_with_a_click_and_without_javascript(make_web: MakeWeb) -> None:
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run installs Debian's chromium package")
        pytest.skip("no chromium on this machine (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    web = make_web(graph_budget=5)
    write_communities(web.services.store)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    app = create_app(web.services.settings, services=web.services)
    with serving(app) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url + "/graph")
        page.wait_for_selector("#graph[data-painted-ms]")
        drawn = page.evaluate("window.zgGraph.nodes().map(n => [n.id(), n.data('size')])")
        assert drawn[0] == [cid("Fortaleza"), 5] and len(drawn) == 4
        page.screenshot(path=str(ARTIFACTS / "graph-communities.png"))
        # Click the largest community on the canvas: its five nodes.
        box = page.locator("#graph").bounding_box()
        assert box is not None
        point = page.evaluate(
            "id => window.zgGraph.getElementById(id).renderedPosition()", cid("Fortaleza")
        )
        page.mouse.click(box["x"] + point["x"], box["y"] + point["y"])
        page.wait_for_url("**/graph?community=*")
        page.wait_for_selector("#graph.ready")
        opened = set(page.evaluate("window.zgGraph.nodes().map(n => n.id())"))
        assert opened == {cid(t) for t in VIRTUE}
        page.screenshot(path=str(ARTIFACTS / "graph-communities-opened.png"))

        # Without JavaScript: the list under the canvas opens the community, whose nodes are
        # listed as links.
        plain = browser.new_context(java_script_enabled=False).new_page()
        plain.goto(url + "/graph")
        plain.locator(".community-list a").first.click()
        plain.wait_for_url("**/graph?community=*")
        names = plain.locator(".community-list a").all_inner_texts()
        assert sorted(names) == sorted(VIRTUE)
        plain.screenshot(path=str(ARTIFACTS / "graph-communities-no-js.png"), full_page=True)
        browser.close()
    assert errors == []
