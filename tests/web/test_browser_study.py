"""Cards and Study in a real headless Chromium: review cards in bulk, then study them.

Ingest Meditations, extract and approve it with the CLI on the `fake` provider, write three
proposed cards on its concept through the store (as generation writes them), serve the app
with uvicorn on a free loopback port, then in the browser: open Cards, select every card and
approve them, open Study, show the answer, rate it Good and see the next card. Screenshots of
every step go to test-artifacts/browser/ (study-*.png). Same Chromium and Playwright setup
as test_browser.py.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from zettelgraph.context import open_services
from zettelgraph.models import ChangeSet, Difficulty, ItemStatus, ItemType
from zettelgraph.services import browse
from zettelgraph.services.study import review_logs
from zettelgraph.settings import Settings
from zettelgraph.web.app import create_app

from .conftest import FAKE, MEDITATIONS, cli
from .test_browser import ARTIFACTS, CHROMIUM, serving
from .test_cards_pages import card

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def _cards_home(home: Path) -> list[str]:
    """Meditations committed, and three proposed cards on its concept; their ids."""
    ingested = cli(home, "ingest", str(MEDITATIONS), "--json")
    assert ingested.exit_code == 0, ingested.output
    content_id = json.loads(ingested.stdout)["contents"][0]["id"]
    started = cli(home, "extract", content_id, "--json")
    assert started.exit_code == 0, started.output
    run_id = json.loads(started.stdout)["run_id"]
    approved = cli(home, "review", run_id, "--approve", "--json")
    assert approved.exit_code == 0, approved.output
    services = open_services(Settings(home=home, **FAKE))
    try:
        store = services.store
        [concept] = store.list_concepts()
        quotes = [q["id"] for q in browse.concept_detail(store, concept)["quotes"]][:1]
        items = [
            card(
                [concept.id],
                quotes,
                content_id,
                f"What does Marcus Aurelius mean by «{concept.title}»?",
                back=concept.summary_short or concept.concept[:200] or "An answer",
                explanation="Recall the idea in your own words.",
            ),
            card(
                [concept.id],
                quotes,
                content_id,
                "Which idea does this passage support?",
                item_type=ItemType.MCQ,
                back=concept.title,
                options=["Fame", concept.title, "Wealth"],
                correct=1,
                explanation="Fame and wealth are what the passage sets aside.",
                difficulty=Difficulty.MEDIUM,
            ),
            card(
                [concept.id],
                quotes,
                content_id,
                "How does this idea shape a day?",
                back="By attending to what is in our power",
                difficulty=Difficulty.HARD,
            ),
        ]
        store.apply(ChangeSet(learning_items=items))
        return [item.id for item in items]
    finally:
        services.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[dict[str, Any]]:
    home = tmp_path / "home"
    ids = _cards_home(home)
    settings = Settings(home=home, **FAKE)
    with serving(create_app(settings)) as url:
        yield {"url": url, "ids": ids, "settings": settings}


def test_review_cards_and_study_in_a_real_browser(served: dict[str, Any]) -> None:
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run installs Debian's chromium package")
        pytest.skip("no chromium on this machine (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    url, ids = served["url"], served["ids"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)

        # Cards: three proposed; select them all and approve them in one go.
        page.goto(url + "/")
        page.get_by_role("link", name="Cards", exact=True).click()
        page.wait_for_url("**/cards")
        for item_id in ids:
            assert page.locator(f"#card-{item_id}").is_visible()
        assert "right answer" in page.locator("li.correct").inner_text()  # the MCQ's option
        page.screenshot(path=str(ARTIFACTS / "study-1-cards.png"), full_page=True)
        page.get_by_label("Select all shown").check()
        assert page.locator("input[name=ids]:checked").count() == len(ids)
        page.get_by_role("button", name="Approve selected").click()
        page.wait_for_load_state("load")
        assert "3 cards approved." in page.locator(".notice").inner_text()
        assert page.get_by_text("No cards waiting for review").is_visible()
        page.screenshot(path=str(ARTIFACTS / "study-2-approved.png"), full_page=True)

        # Study: the front, then the answer, then Good: the next card comes up.
        page.get_by_role("link", name="Study", exact=True).click()
        page.wait_for_url("**/study")
        first = page.locator("form.ratings").get_attribute("action")
        assert first is not None and first.removeprefix("/study/") == ids[0]  # easy first
        assert page.locator(".study-front").is_visible()
        good = page.get_by_role("button", name="Good")
        assert not good.is_visible()  # hidden until the answer is shown
        page.screenshot(path=str(ARTIFACTS / "study-3-front.png"), full_page=True)
        page.get_by_text("Show answer").click()
        assert good.is_visible()
        assert page.locator(".study-answer").get_by_text("Recall the idea").is_visible()
        page.screenshot(path=str(ARTIFACTS / "study-4-answer.png"), full_page=True)
        time.sleep(0.2)  # a measurable time on the card
        good.click()
        page.wait_for_url("**/study")
        page.wait_for_selector("form.ratings", state="attached")
        assert page.locator("form.ratings").get_attribute("action") == f"/study/{ids[1]}"
        assert "Reviewed today 1" in " ".join(page.locator("#study-summary").inner_text().split())
        page.screenshot(path=str(ARTIFACTS / "study-5-next.png"), full_page=True)

        # The keyboard: space shows the answer, 3 rates it Good.
        page.keyboard.press("Space")
        assert page.get_by_role("button", name="Good").is_visible()
        page.keyboard.press("3")
        page.wait_for_selector(f"form.ratings[action='/study/{ids[2]}']", state="attached")
        page.screenshot(path=str(ARTIFACTS / "study-6-keys.png"), full_page=True)
        browser.close()
    assert errors == []

    services = open_services(served["settings"])
    try:
        logs = list(review_logs(services.store))
        assert sorted(log.item_id for log in logs) == sorted(ids[:2])
        assert {log.rating for log in logs} == {3}
        durations = {log.item_id: log.duration_ms for log in logs}
        assert None not in durations.values()
        assert (durations[ids[0]] or 0) >= 200  # from the page shown to the rating
        items = services.store.get_learning_items(ids)
        assert {i.status for i in items} == {ItemStatus.APPROVED}
        assert [i.due is not None for i in items] == [True, True, False]
    finally:
        services.close()
