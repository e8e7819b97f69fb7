"""The HTML pages end to end: a real SQLite store and checkpoints, the fake LLM, runs started
through the CLI, pages fetched and forms posted through the app like a browser does."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from zettelgraph.cli.app import app as cli_app
from zettelgraph.context import open_services
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.models import ChangeSet, Concept, Relation
from zettelgraph.packs.relations import SUPPORTS
from zettelgraph.prompts import answer_question
from zettelgraph.services import graph_view
from zettelgraph.settings import Settings
from zettelgraph.web.app import create_app

REPO = Path(__file__).resolve().parents[2]
SCRIPT = "<script>alert(1)</script>"
EVIL_NOTES = f"""---
title: Hostile <b>Notes</b>
author: Mallory <i>Example</i>
---

# Quotes

## Part <em>one</em>

- The mind {SCRIPT} is a fortress that nothing can breach.

p. 3

- Every habit shapes the soul over many years of patient practice.

p. 5
"""
EVIL_CONCEPT_ID = "concept-hostile"


def settings_for(home: Path) -> Settings:
    return Settings(home=home, llm="fake", embeddings="hash", llm_backoff=0.0)


def cli(home: Path, *args: str) -> Any:
    result = CliRunner().invoke(
        cli_app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A home with three sources: Meditations and the hostile notes each with a run waiting
    for review, Walden approved (concepts and relations), plus a concept, a relation and an
    attribution whose text is HTML. Built once; each test gets a copy."""
    root = tmp_path_factory.mktemp("seed")
    home = root / "home"
    evil = root / "hostile.md"
    evil.write_text(EVIL_NOTES, encoding="utf-8")
    with pytest.MonkeyPatch.context() as env:
        for name in [n for n in os.environ if n.startswith("ZETTELGRAPH_")]:
            env.delenv(name)
        ingested = cli(
            home,
            "ingest",
            str(REPO / "examples" / "meditations.md"),
            str(REPO / "examples" / "walden.md"),
            str(REPO / "examples" / "don_quijote.md"),
            str(evil),
            "--json",
        )
        ids = {c["title"]: c["id"] for c in ingested["contents"]}
        meditations, walden = ids["Meditations"], ids["Walden; or, Life in the Woods"]
        hostile = ids["Hostile <b>Notes</b>"]
        quijote = next(i for t, i in ids.items() if "Quijote" in t)
        walden_run = cli(home, "extract", walden, "--json")["run_id"]
        committed = cli(home, "review", walden_run, "--approve", "--json")
        assert committed["status"] == "committed"
        run = cli(home, "extract", meditations, "--json")
        evil_run = cli(home, "extract", hostile, "--json")
        assert run["status"] == evil_run["status"] == "awaiting_review"

        services = open_services(settings_for(home))
        try:
            store = services.store
            [script_quote] = [q for q in store.quotes_of(hostile) if "<script>" in q.text]
            other = committed["committed"]["concepts"][0]
            store.apply(
                ChangeSet(
                    concepts=[
                        Concept(
                            id=EVIL_CONCEPT_ID,
                            title=f"Fortress {SCRIPT}",
                            concept=f"The <b>inner</b> citadel {SCRIPT}",
                            summary_short="A mind <img src=x onerror=alert(2)> at rest",
                        )
                    ],
                    relations=[
                        Relation(
                            source_id=EVIL_CONCEPT_ID,
                            target_id=other,
                            type="OPPOSES",
                            properties={"explanation": f"Because {SCRIPT} says so"},
                        ),
                        Relation(
                            source_id=script_quote.id, target_id=EVIL_CONCEPT_ID, type=SUPPORTS
                        ),
                    ],
                )
            )
        finally:
            services.close()
    return {
        "home": home,
        "run": run,
        "evil_run": evil_run["run_id"],
        "meditations": meditations,
        "walden": walden,
        "hostile": hostile,
        "quijote": quijote,
        "walden_run": walden_run,
        "walden_concepts": committed["committed"]["concepts"],
    }


@pytest.fixture
def home(seeded: dict[str, Any], tmp_path: Path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(seeded["home"], copy)
    return copy


@pytest.fixture
def client(home: Path) -> Iterator[TestClient]:
    with TestClient(create_app(settings_for(home)), base_url="http://127.0.0.1") as test_client:
        yield test_client


def csrf(client: TestClient, path: str = "/") -> str:
    page = client.get(path).text
    match = re.search(r'name="csrf-token" content="([^"]+)"', page)
    assert match, "no csrf meta tag"
    return match.group(1)


def form_token(page: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert match, "no csrf_token field in the page's forms"
    return match.group(1)


def run_status(client: TestClient, run_id: str) -> str:
    status: str = client.app.state.web.runs.view(run_id).status  # type: ignore[attr-defined]
    return status


def concept_count(client: TestClient) -> int:
    return len(client.app.state.web.services.store.list_concepts())  # type: ignore[attr-defined]


# --- every page -------------------------------------------------------------------------


def test_inbox_lists_the_runs_waiting_with_counts(
    client: TestClient, seeded: dict[str, Any]
) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert "text/html" in page.headers["content-type"]
    html = page.text
    run = seeded["run"]
    assert f'href="/runs/{run["run_id"]}"' in html
    assert f'href="/runs/{seeded["evil_run"]}"' in html
    assert f'href="/runs/{seeded["walden_run"]}"' not in html  # committed: not waiting
    assert "Meditations" in html
    assert f"<strong>{len(run['report']['concepts'])}</strong> concept" in html
    assert re.search(r"waiting (just now|\d+ (min|h|d) ago)", html)
    assert 'class="active" aria-current="page">Inbox' in html


def test_inbox_empty_state_says_how_to_start(tmp_path: Path) -> None:
    with TestClient(create_app(settings_for(tmp_path / "empty")), base_url="http://127.0.0.1") as c:
        html = c.get("/").text
        assert "Nothing to review" in html and "zettelgraph run PATH" in html
        assert "No concepts yet" in c.get("/concepts").text
        assert "No concepts yet" in c.get("/graph").text
        assert "No sources yet" in c.get("/sources").text


def test_review_page_shows_the_whole_report(client: TestClient, seeded: dict[str, Any]) -> None:
    run = seeded["run"]
    report = run["report"]
    html = client.get(f"/runs/{run['run_id']}").text
    for concept in report["concepts"]:
        assert f'id="item-{concept["key"]}"' in html
        for quote in concept["quotes"]:
            assert f"#p-{quote['id']}" in html  # each quote links to its passage
    assert "p. 37" in html or "p. 11" in html or "p. 98" in html
    for section in ("relations", "feedback-log", "decide"):
        assert f'id="{section}"' in html
    if report["relations"]:
        assert 'class="rel"' in html
    if report["critique_log"]:
        assert "Critique 1:" in html
    for action in ("approve", "feedback", "abort"):
        assert f'action="/runs/{run["run_id"]}/{action}"' in html
    # Per-item forms (keep, drop, edit, merge ...) and the run's decisions, top and bottom.
    assert html.count(f'action="/runs/{run["run_id"]}/items"') >= 3 * len(report["concepts"])
    assert html.count(f'action="/runs/{run["run_id"]}/approve"') == 2
    assert "data-working" in html


def test_concepts_list_filter_and_concept_page(client: TestClient, seeded: dict[str, Any]) -> None:
    store = client.app.state.web.services.store  # type: ignore[attr-defined]
    concept = store.get_concept(seeded["walden_concepts"][0])
    listing = client.get("/concepts").text
    assert f'href="/concepts/{concept.id}"' in listing
    assert f'href="/concepts/{EVIL_CONCEPT_ID}"' in listing
    filtered = client.get("/concepts", params={"q": "fortress"}).text
    assert f'href="/concepts/{EVIL_CONCEPT_ID}"' in filtered
    assert f'href="/concepts/{concept.id}"' not in filtered
    assert "No concept matches" in client.get("/concepts", params={"q": "zzzz-nothing"}).text

    page = client.get(f"/concepts/{concept.id}")
    assert page.status_code == 200
    html = page.text
    assert f'href="/runs/{seeded["walden_run"]}"' in html  # provenance: the run
    assert "Walden; or, Life in the Woods" in html  # a quote's book
    assert f'href="/sources/{seeded["walden"]}#p-' in html  # quote -> passage in context
    assert f'href="/graph?concept={concept.id}"' in html
    # OPPOSES from the hostile concept is symmetric: listed once, as this concept's own.
    assert html.count(f'href="/concepts/{EVIL_CONCEPT_ID}"') == 1
    assert "Pointing here" not in html
    assert "fake" in html  # the model


def test_sources_list_and_reading_view(client: TestClient, seeded: dict[str, Any]) -> None:
    html = client.get("/sources").text
    for key in ("meditations", "walden", "hostile"):
        assert f'href="/sources/{seeded[key]}"' in html
    # Waiting runs are linked, not restarted; the processed source shows its date.
    assert f'href="/runs/{seeded["run"]["run_id"]}"' in html
    assert "processed 20" in html

    page = client.get(f"/sources/{seeded['meditations']}")
    assert page.status_code == 200
    store = client.app.state.web.services.store  # type: ignore[attr-defined]
    quotes = store.quotes_of(seeded["meditations"])
    positions = [page.text.index(f'id="p-{q.id}"') for q in quotes]
    assert positions == sorted(positions)  # reading order
    assert "Book IV" in page.text and "p. 37" in page.text
    walden = client.get(f"/sources/{seeded['walden']}").text
    assert f'href="/graph?content={seeded["walden"]}"' in walden
    assert 'class="concept-chip"' in walden  # passages link the concepts they support


def test_unknown_ids_are_404_pages(client: TestClient) -> None:
    for path in (
        "/runs/run-nope",
        "/concepts/nope",
        "/sources/nope",
        "/graph?concept=nope",
        "/graph?content=nope",
    ):
        page = client.get(path)
        assert page.status_code == 404, path
        assert "text/html" in page.headers["content-type"]
        assert "Not found" in page.text
    token = csrf(client)
    for action in ("approve", "abort"):
        missing = client.post(f"/runs/run-nope/{action}", data={"csrf_token": token})
        assert missing.status_code == 404
    assert client.post("/sources/nope/extract", data={"csrf_token": token}).status_code == 404
    assert client.get("/graph?depth=9").status_code == 422


# --- escaping ---------------------------------------------------------------------------


def test_html_from_the_graph_is_shown_as_text(client: TestClient, seeded: dict[str, Any]) -> None:
    pages = {
        "sources": client.get("/sources").text,
        "source": client.get(f"/sources/{seeded['hostile']}").text,
        "review": client.get(f"/runs/{seeded['evil_run']}").text,
        "concept": client.get(f"/concepts/{EVIL_CONCEPT_ID}").text,
        "concepts": client.get("/concepts").text,
        "graph": client.get(f"/graph?concept={EVIL_CONCEPT_ID}").text,
        "search": client.get("/ask", params={"q": f"fortress {SCRIPT}"}).text,
    }
    for name, html in pages.items():
        assert "<script>alert" not in html, name
        assert "<img src=x" not in html, name
        assert "<b>" not in html, name
    assert "Hostile &lt;b&gt;Notes&lt;/b&gt;" in pages["sources"]
    for name in ("source", "review", "concept"):
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages[name], name
    other = client.get(f"/concepts/{seeded['walden_concepts'][0]}").text  # the incoming side
    assert "Because &lt;script&gt;" in other and "&lt;script&gt;alert(1)" in other
    assert "Because &lt;script&gt;" in pages["concept"]  # the relation's explanation
    # Inside the graph's JSON, tojson writes < as \u003c: no tag can close the script.
    assert "\\u003cscript\\u003e" in pages["graph"]


# --- review decisions -------------------------------------------------------------------


def test_a_decision_without_csrf_token_is_refused(
    client: TestClient, seeded: dict[str, Any]
) -> None:
    run_id = seeded["run"]["run_id"]
    client.get("/")  # the browser has its CSRF cookie, but the form lacks the field
    for action in ("approve", "abort"):
        refused = client.post(f"/runs/{run_id}/{action}", data={})
        assert refused.status_code == 403
        assert "text/html" in refused.headers["content-type"] and "CSRF" in refused.text
    wrong = client.post(f"/runs/{run_id}/approve", data={"csrf_token": "x" * 43})
    assert wrong.status_code == 403
    assert run_status(client, run_id) == "awaiting_review"
    assert client.post("/ask", data={"question": "What is change?"}).status_code == 403


def test_feedback_then_approve_then_a_second_approve(
    client: TestClient, seeded: dict[str, Any]
) -> None:
    run_id = seeded["run"]["run_id"]
    token = form_token(client.get(f"/runs/{run_id}").text)

    empty = client.post(f"/runs/{run_id}/feedback", data={"csrf_token": token, "feedback": " "})
    assert empty.status_code == 422 and "feedback needs some text" in empty.text

    sent = client.post(
        f"/runs/{run_id}/feedback",
        data={"csrf_token": token, "feedback": "Merge the first two <concepts>"},
        follow_redirects=False,
    )
    assert sent.status_code == 303
    assert sent.headers["location"].startswith(f"/runs/{run_id}")
    revised = client.get(sent.headers["location"]).text
    assert "Round 1:" in revised
    assert "Merge the first two &lt;concepts&gt;" in revised
    assert "1 feedback round" in revised
    assert run_status(client, run_id) == "awaiting_review"

    approved = client.post(
        f"/runs/{run_id}/approve", data={"csrf_token": token}, follow_redirects=False
    )
    assert approved.status_code == 303 and approved.headers["location"] == f"/runs/{run_id}"
    outcome = client.get(f"/runs/{run_id}").text
    assert "status-committed" in outcome
    new_ids = client.app.state.web.runs.view(run_id).committed["concepts"]  # type: ignore[attr-defined]
    assert new_ids
    for concept_id in new_ids:
        assert f'href="/concepts/{concept_id}"' in outcome
        assert client.get(f"/concepts/{concept_id}").status_code == 200
    assert 'action="/runs/' not in outcome  # no buttons on a decided run
    before = concept_count(client)

    again = client.post(f"/runs/{run_id}/approve", data={"csrf_token": token})
    assert again.status_code == 409
    assert "text/html" in again.headers["content-type"]
    assert "not waiting for review" in again.text and f'href="/runs/{run_id}"' in again.text
    assert concept_count(client) == before
    assert run_status(client, run_id) == "committed"


def test_abort_writes_nothing(client: TestClient, seeded: dict[str, Any]) -> None:
    run_id = seeded["evil_run"]
    before = concept_count(client)
    token = csrf(client)
    done = client.post(f"/runs/{run_id}/abort", data={"csrf_token": token})
    assert done.status_code == 200  # after the redirect
    assert "status-aborted" in done.text and "nothing was written" in done.text
    assert concept_count(client) == before
    assert f'href="/runs/{run_id}"' not in client.get("/").text
    assert (
        client.post(
            f"/runs/{run_id}/feedback", data={"csrf_token": token, "feedback": "x"}
        ).status_code
        == 409
    )


def test_extract_button_starts_one_run(client: TestClient, seeded: dict[str, Any]) -> None:
    content_id = seeded["quijote"]
    sources = client.get("/sources").text
    assert f'action="/sources/{content_id}/extract"' in sources
    token = form_token(sources)
    started = client.post(
        f"/sources/{content_id}/extract", data={"csrf_token": token}, follow_redirects=False
    )
    assert started.status_code == 303
    run_path = started.headers["location"]
    assert run_path.startswith("/runs/run-")
    assert "status-awaiting_review" in client.get(run_path).text
    # A second click reopens the waiting run instead of starting another.
    again = client.post(
        f"/sources/{content_id}/extract", data={"csrf_token": token}, follow_redirects=False
    )
    assert again.headers["location"] == run_path
    assert client.post(f"/sources/{content_id}/extract", data={}).status_code == 403


# --- graph ------------------------------------------------------------------------------


def graph_data(html: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', html, re.S)
    assert match, "no embedded graph data"
    data: dict[str, Any] = json.loads(match.group(1))
    return data


def test_graph_page_embeds_the_concepts_and_relations(
    client: TestClient, seeded: dict[str, Any]
) -> None:
    page = client.get("/graph", params={"concept": EVIL_CONCEPT_ID, "depth": 1})
    assert page.status_code == 200
    data = graph_data(page.text)
    ids = {n["id"] for n in data["nodes"]}
    assert EVIL_CONCEPT_ID in ids and seeded["walden_concepts"][0] in ids
    assert data["center"] == EVIL_CONCEPT_ID
    [edge] = [e for e in data["edges"] if e["source"] == EVIL_CONCEPT_ID]
    assert edge["type"] == "OPPOSES" and edge["explanation"] == f"Because {SCRIPT} says so"
    assert "OPPOSES" in data["symmetric"] and data["colors"]["OPPOSES"].startswith("#")
    assert "vendor/cytoscape/cytoscape.min.js" in page.text
    assert '<option value="1" selected>' in page.text
    assert "↔ symmetric" in page.text  # the legend

    by_source = graph_data(client.get("/graph", params={"content": seeded["walden"]}).text)
    assert set(seeded["walden_concepts"]) <= {n["id"] for n in by_source["nodes"]}
    assert by_source["center"] is None

    # No starting point: the whole graph, every concept, related or not (it was one
    # neighbourhood, so a concept of no relation never showed).
    web = client.app.state.web  # type: ignore[attr-defined]
    store = web.services.store
    lonely = Concept(id="concept-lonely", title="A lonely idea", concept="Related to nothing.")
    store.apply(ChangeSet(concepts=[lonely]))
    whole = graph_data(client.get("/graph").text)
    assert whole["center"] is None and whole["overview"]
    every = {row["id"] for row in client.get("/api/concepts").json()}
    assert len(every) == 3 and every <= {n["id"] for n in whole["nodes"]}
    # Past the limit, the most related nodes stay (not the first titles of the alphabet).
    kept = graph_view.graph_view(store, web.services.packs, limit=2)
    assert {n["id"] for n in kept["nodes"]} == every - {lonely.id}


def test_static_files_are_served(client: TestClient) -> None:
    for path in (
        "/static/app.css",
        "/static/app.js",
        "/static/graph.js",
        "/static/vendor/cytoscape/cytoscape.min.js",
    ):
        assert client.get(path).status_code == 200, path


# --- ask --------------------------------------------------------------------------------


def test_search_shows_citations(client: TestClient, seeded: dict[str, Any]) -> None:
    page = client.get("/ask", params={"q": "the universe is change"})
    assert page.status_code == 200
    html = page.text
    assert "Meditations" in html and "Marcus Aurelius" in html
    assert "p. 37" in html
    assert f'href="/sources/{seeded["meditations"]}#p-' in html
    assert re.search(r'class="methods"[^>]*>[a-z, ]*(fulltext|vector)', html)
    assert 'value="the universe is change"' in html  # kept in the box


@pytest.fixture
def scripted_client(home: Path) -> Iterator[TestClient]:
    """The app with a fake LLM whose answers are scripted: one answer citing passages q1
    and q2 (with HTML in its text), then one that cannot answer."""

    def cite(prompt: str) -> dict[str, Any]:
        return {
            "language": "en",
            "answerable": True,
            "sentences": [
                {"text": "The universe is <b>change</b>.", "sources": ["q1"]},
                {"text": "Happiness needs very little.", "sources": ["q1", "q2"]},
            ],
        }

    refuse = {"language": "en", "answerable": False, "sentences": []}
    settings = settings_for(home)
    fake = FakeChatModel(replies={answer_question.NAME: [cite, refuse]})
    services = open_services(settings, llms=ChatModels(settings, preset={"fake": fake}))
    try:
        app = create_app(settings, services=services)
        with TestClient(app, base_url="http://127.0.0.1") as test_client:
            yield test_client
    finally:
        services.close()


def test_ask_links_each_marker_to_its_passage(scripted_client: TestClient) -> None:
    client = scripted_client
    token = form_token(client.get("/ask").text)
    page = client.post("/ask", data={"csrf_token": token, "question": "What is change?"})
    assert page.status_code == 200
    html = page.text
    answer = re.search(r'<p class="answer-text">(.*?)</p>', html, re.S)
    assert answer
    links = re.findall(
        r'<a class="cite" href="/sources/([^"#]+)#p-([^"]+)"[^>]*>\[(\d)\]</a>', answer.group(1)
    )
    assert {n for _, _, n in links} == {"1", "2"}
    assert "&lt;b&gt;change&lt;/b&gt;" in answer.group(1)
    store = client.app.state.web.services.store  # type: ignore[attr-defined]
    for content_id, passage_id, _ in links:
        [quote] = store.get_quotes([passage_id])
        assert quote.content_id == content_id
        # The anchor exists on the source page.
        assert f'id="p-{passage_id}"' in client.get(f"/sources/{content_id}").text
    assert "Cited passages" in html

    unanswered = client.post("/ask", data={"csrf_token": token, "question": "Who won in 1999?"})
    assert "not answerable" in unanswered.text
    assert 'class="cite"' not in unanswered.text
    assert client.post("/ask", data={"csrf_token": token, "question": "  "}).status_code == 422
