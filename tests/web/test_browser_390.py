"""Every page of the web app on a phone, in a real headless Chromium: nothing wider than the
screen, and the menu reaching every section.

One home holds something for every page: Meditations extracted and approved (its concept
page with a symmetric relation), Don Quijote with a concept run and a graph run waiting and
entities approved, a completed experiment (charts and tables), an approved card, an answer.
The pages are enumerated from the app's routes, so a new page without an example here fails
the test until it is added. Each is opened at 390 px and must have
`scrollWidth <= innerWidth`; the graph's labels are readable in full on hover; the sources
table fills a 1366 px screen. Screenshots go to test-artifacts/browser/390px-*.png.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.routing import APIRoute
from starlette.responses import HTMLResponse

from experiment_books import add_books
from web.test_graph_runs_pages import DON_QUIJOTE, EXTRACTION
from zettelgraph.models import ChangeSet, Concept, ItemStatus, Relation
from zettelgraph.prompts import answer_question
from zettelgraph.web.app import create_app

from .conftest import MEDITATIONS, MakeWeb, Web
from .test_browser import ARTIFACTS, CHROMIUM, serving
from .test_cards_pages import card

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

# The elements that stick out of the screen (the outermost of each), to name in a failure.
WIDER = """(() => {
  const over = e => e.getBoundingClientRect().right > window.innerWidth + 1;
  return [...document.querySelectorAll('body *')]
    .filter(e => over(e) && !(e.parentElement && over(e.parentElement)))
    .slice(0, 10)
    .map(e => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().width)}px`);
})()"""
PHONE = {"width": 390, "height": 844}
LONG_TITLE = "Everything that happens is as usual and familiar as the rose in spring"
CITE_FIRST = {
    "language": "en",
    "answerable": True,
    "sentences": [{"text": "Our life is what our thoughts make it.", "sources": ["q1"]}],
}


def page_routes(routes: list[Any], prefix: str = "") -> Iterator[str]:
    """The path of every HTML page (GET) the app serves, through its included routers."""
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:
            yield from page_routes(included.routes, prefix + route.include_context.prefix)
        elif (
            isinstance(route, APIRoute)
            and "GET" in route.methods
            and route.response_class is HTMLResponse
        ):
            yield prefix + route.path


def _moved(response: Any) -> str:
    assert response.status_code == 303, response.text
    location: str = response.headers["location"]
    return location


def _everything(web: Web) -> dict[str, str]:
    """Something for every page; returns an example URL for each page route."""
    client, store = web.client, web.services.store
    meditations = web.content_id("Meditations")
    quijote = web.content_id("El ingenioso hidalgo don Quijote de la Mancha")
    committed = web.start_run(meditations)["run_id"]
    web.state.runs.answer(committed, "approve")
    [first] = store.list_concepts()
    other = Concept(id="concept-rose", title=LONG_TITLE, concept="Nothing happens that is new.")
    similar = Relation(source_id=first.id, target_id=other.id, type="SIMILAR_TO")
    store.apply(ChangeSet(concepts=[other], relations=[similar]))
    waiting = web.start_run(quijote)["run_id"]
    web.llm.replies["extract_graph"] = [EXTRACTION]
    started = client.post(
        f"/sources/{quijote}/graph-extract",
        data=web.form(pack="narrative"),
        follow_redirects=False,
    )
    graph_run = _moved(started).rsplit("/", 1)[1]
    client.post(f"/graph-runs/{graph_run}/approve", data=web.form())
    [entity, *_] = store.get_entities([e["id"] for e in client.get("/api/entities").json()])
    books = add_books(web.services)
    made = client.post(
        "/experiments",
        data=web.form(type="temporal", term="honra", content=books),
        follow_redirects=False,
    )
    experiment = _moved(made).rsplit("/", 1)[1]
    client.post(f"/experiments/{experiment}/review", data=web.form(action="approve"))
    assert web.state.experiments.show(experiment).status == "completed"
    quotes = [q.id for q in store.quotes_of(meditations)][:1]
    item = card([first.id], quotes, meditations, "What is change?", status=ItemStatus.APPROVED)
    store.apply(ChangeSet(learning_items=[item]))
    web.llm.replies[answer_question.NAME] = [CITE_FIRST]
    asked = client.post("/ask", data=web.form(question="What is change?"), follow_redirects=False)
    answer = _moved(asked)
    chat = answer.split("/")[2]
    unlink = {"source": first.id, "target": other.id, "type": "SIMILAR_TO"}
    return {
        "/": "/",
        "/runs/{run_id}": f"/runs/{waiting}",
        "/graph-runs/{run_id}": f"/graph-runs/{graph_run}",
        "/concepts": "/concepts",
        "/concepts/{concept_id}": f"/concepts/{first.id}",
        "/sources": "/sources",
        "/sources/{content_id}": f"/sources/{meditations}",
        "/graph": "/graph",
        "/ask": "/ask?q=change",
        "/ask/history": "/ask/history",
        "/ask/{chat_id}": f"/ask/{chat}",
        "/ask/{chat_id}/{turn}": answer,
        "/entities": "/entities",
        "/entities/{entity_id}": f"/entities/{entity.id}",
        "/cards": "/cards?status=approved",
        "/cards/generate": "/cards/generate",
        "/cards/{item_id}": f"/cards/{item.id}",
        "/study": "/study",
        "/study/{item_id}": f"/study/{item.id}",
        "/experiments": "/experiments",
        "/experiments/{run_id}": f"/experiments/{experiment}",
        "/concepts/{concept_id}/delete": f"/concepts/{first.id}/delete",
        "/concepts/{concept_id}/unlink": f"/concepts/{first.id}/unlink?"
        + "&".join(f"{k}={quote(v)}" for k, v in unlink.items()),
        "/sources/{content_id}/remove": f"/sources/{books[0]}/remove",
        "/removals": "/removals",
        # Not routes of their own, but pages a phone opens too.
        "committed run": f"/runs/{committed}",
        "graph of a source": f"/graph?content={meditations}",
    }


@pytest.fixture
def served(make_web: MakeWeb) -> Iterator[dict[str, Any]]:
    web = make_web(MEDITATIONS, DON_QUIJOTE)
    pages = _everything(web)
    app = create_app(web.services.settings, services=web.services)
    with serving(app) as url:
        yield {"url": url, "pages": pages, "routes": list(page_routes(app.routes))}


def _browser(playwright: Any) -> Any:
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run installs Debian's chromium package")
        pytest.skip("no chromium on this machine (apt-get install chromium)")
    return playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])


def test_every_page_fits_a_phone(served: dict[str, Any]) -> None:
    from playwright.sync_api import sync_playwright

    url, pages = served["url"], served["pages"]
    missing = sorted(set(served["routes"]) - set(pages))
    assert not missing, f"add an example URL for the new pages {missing} to _everything()"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    too_wide: dict[str, Any] = {}
    with sync_playwright() as playwright:
        browser = _browser(playwright)
        page = browser.new_page(viewport=PHONE)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        for name, path in pages.items():
            response = page.goto(url + path)
            assert response is not None and response.status == 200, (name, path)
            page.wait_for_load_state("load")
            if path.split("?")[0] == "/graph":
                page.wait_for_selector("#graph.ready")
            width = page.evaluate("document.documentElement.scrollWidth")
            inner = page.evaluate("window.innerWidth")
            if width > inner:
                too_wide[path] = (width, page.evaluate(WIDER))
            shot = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "home"
            page.screenshot(path=str(ARTIFACTS / f"390px-{shot}.png"), full_page=True)
        browser.close()
    assert too_wide == {}, f"wider than 390 px: {too_wide}"
    assert errors == []


def test_the_menu_reaches_every_section_on_a_phone(served: dict[str, Any]) -> None:
    from playwright.sync_api import sync_playwright

    url = served["url"]
    with sync_playwright() as playwright:
        browser = _browser(playwright)
        for javascript in (True, False):
            context = browser.new_context(viewport=PHONE, java_script_enabled=javascript)
            page = context.new_page()
            page.goto(url + "/concepts")
            links = page.locator("nav[aria-label=Main] a")
            assert links.count() == 9
            assert not links.nth(5).is_visible()  # folded away until asked for
            page.get_by_text("Menu", exact=True).click()
            for i in range(9):
                assert links.nth(i).is_visible(), links.nth(i).inner_text()
            box = links.nth(8).bounding_box()
            assert box is not None and box["x"] + box["width"] <= PHONE["width"]
            page.screenshot(path=str(ARTIFACTS / f"390px-menu-js-{javascript}.png"))
            links.nth(8).click()
            page.wait_for_url("**/study")
            context.close()
        # On a laptop the sections are all shown, no menu button.
        page = browser.new_page(viewport={"width": 1366, "height": 800})
        page.goto(url + "/concepts")
        assert not page.get_by_text("Menu", exact=True).is_visible()
        links = page.locator("nav[aria-label=Main] a")
        assert all(links.nth(i).is_visible() for i in range(9))
        browser.close()


def test_graph_shows_everything_with_full_labels_and_sources_fill_the_screen(
    served: dict[str, Any],
) -> None:
    from playwright.sync_api import sync_playwright

    url = served["url"]
    with sync_playwright() as playwright:
        browser = _browser(playwright)
        page = browser.new_page(viewport={"width": 1366, "height": 800})
        page.goto(url + "/graph")
        page.wait_for_selector("#graph.ready")
        drawn = set(page.evaluate("window.zgGraph.nodes().map(n => n.id())"))
        every = page.evaluate(
            "fetch('/api/concepts').then(r => r.json()).then(rows => rows.map(r => r.id))"
        )
        assert set(every) <= drawn, "plain /graph leaves out some concepts"
        # Hover the long-titled concept: its whole title, as a tooltip and on the canvas.
        box = page.locator("#graph").bounding_box()
        assert box is not None
        point = page.evaluate(
            "id => window.zgGraph.getElementById(id).renderedPosition()", "concept-rose"
        )
        page.mouse.move(box["x"] + point["x"], box["y"] + point["y"])
        page.wait_for_function(f"document.getElementById('graph').title === {LONG_TITLE!r}")
        style = page.evaluate("window.zgGraph.getElementById('concept-rose').style('text-wrap')")
        assert style == "wrap"
        page.screenshot(path=str(ARTIFACTS / "graph-hover-label.png"))

        page.goto(url + "/sources")
        table = page.locator("table").first.bounding_box()
        assert table is not None and table["width"] >= 1000, table
        browser.close()
