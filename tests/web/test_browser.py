"""The web app in a real headless Chromium: the review loop a person goes through.

Ingest an example and run extraction on the `fake` provider with the CLI, serve the app with
uvicorn on a free loopback port, then in the browser: open the Inbox, open the run, send
feedback and see the revised proposal, approve, open a new concept's page and its graph view,
and click a concept in the graph. Screenshots of every step go to test-artifacts/browser/.

Chromium is Debian's (installed by .ci/run), driven by Playwright through `executable_path`;
without it the test is skipped locally and fails under CI.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import uvicorn
from fastapi import FastAPI

from zettelgraph.settings import Settings
from zettelgraph.store.falkordb_server import free_port
from zettelgraph.web.app import create_app

from .conftest import FAKE, MEDITATIONS, cli

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "browser"
CHROMIUM = os.environ.get("ZG_TEST_CHROMIUM") or shutil.which("chromium")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@contextmanager
def serving(app: FastAPI) -> Iterator[str]:
    """`app` served by uvicorn on a free loopback port, for as long as the block runs."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the web app did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """A run of Meditations awaiting review, and the app serving its home."""
    home = tmp_path / "home"
    ingested = cli(home, "ingest", str(MEDITATIONS), "--json")
    assert ingested.exit_code == 0, ingested.output
    content_id = json.loads(ingested.stdout)["contents"][0]["id"]
    started = cli(home, "extract", content_id, "--json")
    assert started.exit_code == 0, started.output
    assert json.loads(started.stdout)["status"] == "awaiting_review"
    with serving(create_app(Settings(home=home, **FAKE))) as url:
        yield url


def test_review_loop_in_a_real_browser(served: str) -> None:
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run installs Debian's chromium package")
        pytest.skip("no chromium on this machine (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)

        page.goto(served + "/")
        page.screenshot(path=str(ARTIFACTS / "1-inbox.png"), full_page=True)
        page.get_by_role("link", name="Meditations").first.click()
        page.wait_for_url("**/runs/*")
        assert page.get_by_role("button", name="Approve what is kept").is_visible()
        page.screenshot(path=str(ARTIFACTS / "2-review.png"), full_page=True)

        # Item by item with the keys: d drops the first item, the page comes back at the next
        # one (or at the decisions, past the last).
        page.keyboard.press("d")
        page.wait_for_url("**#*")
        assert "1 dropped" in " ".join(page.locator(".review-summary").first.inner_text().split())
        page.locator("[data-item]").first.focus()  # back to the dropped one, and undo
        page.keyboard.press("u")
        page.wait_for_function(
            "document.querySelector('.review-summary').innerText.includes('0 dropped')"
        )
        assert "0 dropped" in " ".join(page.locator(".review-summary").first.inner_text().split())
        # On a phone: one column, nothing wider than the screen.
        page.set_viewport_size({"width": 390, "height": 844})
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the review page is {width} px wide at 390 px"
        page.screenshot(path=str(ARTIFACTS / "2-review-390px.png"), full_page=True)
        page.set_viewport_size({"width": 1280, "height": 900})

        feedback = "Escribe los conceptos en español, por favor"
        page.fill("textarea#feedback", feedback)
        page.get_by_role("button", name="Send feedback").click()
        page.wait_for_load_state("load")
        # The revised proposal is shown, with the feedback in its log and the buttons back.
        assert page.get_by_text(feedback).first.is_visible()
        assert page.get_by_role("button", name="Approve", exact=True).is_enabled()
        page.screenshot(path=str(ARTIFACTS / "3-revised.png"), full_page=True)

        page.get_by_role("button", name="Approve", exact=True).click()
        page.wait_for_load_state("load")
        assert "committed" in page.content()
        page.screenshot(path=str(ARTIFACTS / "4-committed.png"), full_page=True)

        page.locator("a[href^='/concepts/']").first.click()
        page.wait_for_url("**/concepts/*")
        concept_url = page.url
        assert page.get_by_role("link", name="Graph view").is_visible()
        page.screenshot(path=str(ARTIFACTS / "5-concept.png"), full_page=True)

        page.get_by_role("link", name="Graph view").click()
        page.wait_for_selector("#graph.ready")
        nodes = page.evaluate("window.zgGraph.nodes().map(n => n.id())")
        assert nodes, "the graph view drew no concept"
        page.screenshot(path=str(ARTIFACTS / "6-graph.png"), full_page=True)

        # Click a concept drawn on the canvas: it opens that concept's page.
        target = nodes[-1]
        box = page.locator("#graph").bounding_box()
        assert box is not None
        point = page.evaluate("id => window.zgGraph.getElementById(id).renderedPosition()", target)
        page.mouse.click(box["x"] + point["x"], box["y"] + point["y"])
        page.wait_for_url(f"**/concepts/{target}")
        assert page.url.endswith(f"/concepts/{target}")
        assert concept_url.startswith(served)
        browser.close()
    assert errors == []
