"""Experiments in the web app: started from the form, their plan reviewed as a grid of tools
(approved, modified or rejected), the completed page with its findings, charts and report,
an experiment that stops and is retried, and the JSON API, on the real SQLite store with the
fake LLM and the hash embedder."""

from __future__ import annotations

import re
from typing import Any

import pytest

from experiment_books import BOOKS, add_books
from web.conftest import MakeWeb, Web
from zettelgraph.llm.factory import LLMConfigError
from zettelgraph.models import ChangeSet, Content, content_id
from zettelgraph.workflows.experiment import nodes_execute, nodes_plan


@pytest.fixture
def lab(make_web: MakeWeb) -> tuple[Web, list[str]]:
    """The app over a home with the two books (Cervantes 1605, Galdós 1876)."""
    web = make_web()
    return web, add_books(web.services)


def _new(web: Web, ids: list[str], kind: str = "temporal", **fields: Any) -> str:
    data = web.form(type=kind, term="honra", content=ids, **fields)
    response = web.client.post("/experiments", data=data, follow_redirects=False)
    assert response.status_code == 303, response.text
    location: str = response.headers["location"]
    assert location.startswith("/experiments/exp-")
    return location.rsplit("/", 1)[1]


def _boxes(page: str) -> tuple[set[str], set[str]]:
    """(every plan checkbox's value, the ticked ones)."""
    every, ticked = set(), set()
    for tag in re.findall(r'<input type="checkbox" name="plan"[^>]*>', page):
        value = re.search(r'value="([^"]+)"', tag)
        assert value is not None
        every.add(value.group(1))
        if " checked" in tag:
            ticked.add(value.group(1))
    return every, ticked


def test_new_experiment_modified_plan_and_its_results(lab: tuple[Web, list[str]]) -> None:
    web, ids = lab
    listing = web.client.get("/experiments").text
    assert 'href="/experiments" class="active"' in listing
    assert "No experiments yet" in listing
    for cid, (title, *_) in zip(ids, BOOKS, strict=True):
        assert f'value="{cid}"' in listing and title in listing
    assert re.findall(r'<option value="([^"]+)"', listing) == [
        "temporal",
        "cross_domain",
        "document_analysis",
        "single_document",
    ]

    run_id = _new(
        web,
        ids,
        definition="Estima y respeto de la dignidad propia.",
        goal="¿Cómo usan honra Cervantes y Galdós?",
        anchors="dignidad, fama\nopinión",
    )
    experiment = web.state.experiments.show(run_id).as_dict()
    assert experiment["term"]["anchors"] == ["dignidad", "fama", "opinión"]
    page = web.client.get(f"/experiments/{run_id}").text
    assert "Proposed plan" in page and "¿Cómo usan honra Cervantes y Galdós?" in page
    every, ticked = _boxes(page)
    tools = [t["name"] for t in experiment["review"]["tools"]]
    assert every == {f"{cid}:{tool}" for cid in ids for tool in tools}
    recommended = experiment["recommended_strategy"]
    assert ticked == {f"{cid}:{tool}" for cid, names in recommended.items() for tool in names}
    for tool in experiment["review"]["tools"]:
        assert tool["description"][:40].replace("'", "&#39;") in page
    assert f'action="/experiments/{run_id}/review"' in page
    for action in ("approve", "modify", "reject"):
        assert f'name="action" value="{action}"' in page
    # The documents with their passages: 4 each, 3 of them with the term.
    assert page.count('<td class="num">4</td>') == 2 and page.count('<td class="num">3</td>') == 2

    # Tick the frequency, drift and concordance tools on both books, then untick the first
    # book's concordance.
    wanted = ("term_frequency", "semantic_drift", "concordance")
    dropped = f"{ids[0]}:concordance"
    chosen = (ticked | {f"{cid}:{tool}" for cid in ids for tool in wanted}) - {dropped}
    sent = web.client.post(
        f"/experiments/{run_id}/review",
        data=web.form(action="modify", plan=sorted(chosen), notes="sin una concordancia"),
        follow_redirects=False,
    )
    assert sent.status_code == 303 and sent.headers["location"] == f"/experiments/{run_id}"
    done = web.state.experiments.show(run_id).as_dict()
    assert done["status"] == "completed" and done["decision"] == "modify"
    plan = {cid: [t.split(":")[1] for t in chosen if t.startswith(cid)] for cid in ids}
    assert {cid: set(names) for cid, names in done["approved_strategy"].items()} == {
        cid: set(names) for cid, names in plan.items()
    }
    assert "concordance" not in done["approved_strategy"][ids[0]]
    assert "concordance" in done["approved_strategy"][ids[1]]

    page = web.client.get(f"/experiments/{run_id}").text
    assert "Findings" in page and "Tool results" in page and "sin una concordancia" in page
    assert "Proposed plan" not in page
    synthesis = done["synthesis"]
    assert synthesis["insights"] and synthesis["passages"]
    for insight in synthesis["insights"]:
        for n in insight["citations"]:
            assert f'href="#passage-{n}"' in page
    for passage in synthesis["passages"]:
        assert f'id="passage-{passage["n"]}"' in page
    assert "frequency.png" in done["charts"] and "drift.png" in done["charts"]
    assert f'<img src="/experiments/{run_id}/files/frequency.png"' in page
    assert f'href="/experiments/{run_id}/files/frequency.svg" download' in page
    assert "Term evolution" in page and "1605" in page and "1876" in page

    image = web.client.get(f"/experiments/{run_id}/files/frequency.png")
    assert image.status_code == 200 and image.headers["content-type"] == "image/png"
    assert image.content.startswith(b"\x89PNG")
    svg = web.client.get(f"/experiments/{run_id}/files/drift.svg")
    assert svg.headers["content-type"].startswith("image/svg+xml")
    assert "default-src 'none'" in svg.headers["content-security-policy"]
    # Only the charts it lists: not the other files of its folder, nor any other path.
    for name in ("results.json", "report.md", "nope.png", "..%2Freport.md", "%2E%2E"):
        assert web.client.get(f"/experiments/{run_id}/files/{name}").status_code == 404, name
    assert web.client.get(f"/experiments/{run_id}/files/../x").status_code == 404
    assert web.client.get("/experiments/exp-nope/files/frequency.png").status_code == 404

    report = web.client.get(f"/experiments/{run_id}/report.md")
    assert report.status_code == 200 and report.text.startswith("# honra:")
    assert "attachment" in report.headers["content-disposition"]
    assert report.headers["content-type"].startswith("text/markdown")

    listing = web.client.get("/experiments").text
    assert f'href="/experiments/{run_id}"' in listing and "completed" in listing
    again = web.client.post(f"/experiments/{run_id}/review", data=web.form(action="approve"))
    assert again.status_code == 409 and "not waiting for review" in again.text


def test_a_plan_that_cannot_run_is_shown_then_rejected(lab: tuple[Web, list[str]]) -> None:
    web, ids = lab
    run_id = _new(web, ids, kind="document_analysis")
    review = f"/experiments/{run_id}/review"
    nothing = web.client.post(review, data=web.form(action="modify", notes="mis notas"))
    assert nothing.status_code == 422
    assert "no tool is chosen for any document" in nothing.text
    assert "mis notas" in nothing.text and _boxes(nothing.text)[1] == set()
    stranger = web.client.post(
        review,
        data=web.form(action="modify", plan=[f"{ids[0]}:concordance", "nope:concordance"]),
    )
    assert (
        stranger.status_code == 422 and "document nope is not in this experiment" in stranger.text
    )
    assert _boxes(stranger.text)[1] == {f"{ids[0]}:concordance"}
    unknown = web.client.post(review, data=web.form(action="merge"))
    assert unknown.status_code == 422 and "not &#39;merge&#39;" in unknown.text
    assert web.state.experiments.show(run_id).status == "awaiting_review"

    refused = web.client.post(review, data={"action": "reject"})
    assert refused.status_code == 403 and "CSRF" in refused.text
    rejected = web.client.post(
        review, data=web.form(action="reject", notes="no era esto"), follow_redirects=False
    )
    assert rejected.status_code == 303
    page = web.client.get(f"/experiments/{run_id}").text
    assert "Rejected: no tool was run" in page and "no era esto" in page
    view = web.state.experiments.show(run_id)
    assert view.status == "rejected" and not view.values.get("tool_runs")
    assert web.client.get(f"/experiments/{run_id}/report.md").status_code == 404
    resumed = web.client.post(f"/experiments/{run_id}/resume", data=web.form())
    assert resumed.status_code == 409 and "only an interrupted run resumes" in resumed.text


def test_bad_requests_on_the_pages(lab: tuple[Web, list[str]]) -> None:
    web, ids = lab
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"type": "temporal", "term": "honra", "content": [ids[0], "missing"]}, 404, "missing"),
        ({"type": "astrology", "term": "honra", "content": ids}, 422, "unknown experiment type"),
        ({"type": "single_document", "term": "honra", "content": ids}, 422, "exactly one"),
        ({"type": "temporal", "term": "honra", "content": ids[:1]}, 422, "two or more"),
        ({"type": "temporal", "term": " ", "content": ids}, 422, "name the term"),
        ({"type": "temporal", "term": "honra"}, 422, "choose at least one content"),
        ({"type": "temporal", "term": "x" * 101, "content": ids}, 422, "at most 100"),
    ]
    for fields, status, message in cases:
        response = web.client.post("/experiments", data=web.form(goal="mi meta", **fields))
        assert response.status_code == status, fields
        assert message in response.text, fields
        assert "mi meta" in response.text  # the form keeps what was typed
    assert web.client.post("/experiments", data={"term": "honra"}).status_code == 403
    assert web.state.experiments.experiments() == []
    assert web.client.get("/experiments/exp-nope").status_code == 404
    assert web.client.get("/experiments/run-nope").status_code == 404
    assert web.client.post("/experiments/exp-nope/review", data=web.form()).status_code == 404


class StoreUnavailableError(Exception):
    """A store that is down for a moment: worth retrying (`error_kind`: server)."""


def test_an_experiment_that_stops_is_retried(
    lab: tuple[Web, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    web, ids = lab
    run_id = _new(web, ids)

    def down(*args: Any, **kwargs: Any) -> Any:
        raise StoreUnavailableError("the store is not answering")

    monkeypatch.setattr(nodes_execute, "load_documents", down)
    monkeypatch.setattr("langgraph.pregel._retry.time.sleep", lambda seconds: None)
    stopped = web.client.post(f"/experiments/{run_id}/review", data=web.form(action="approve"))
    assert stopped.status_code == 503
    assert "The experiment stopped" in stopped.text and "the store is not answering" in stopped.text
    assert f'action="/experiments/{run_id}/resume"' in stopped.text
    assert ">Retry</button>" in stopped.text
    assert web.state.experiments.show(run_id).status == "interrupted"
    page = web.client.get(f"/experiments/{run_id}").text
    assert ">Resume</button>" in page and "Stopped in the middle" in page

    again = web.client.post(f"/experiments/{run_id}/resume", data=web.form())
    assert again.status_code == 503 and ">Retry</button>" in again.text
    monkeypatch.undo()
    resumed = web.client.post(
        f"/experiments/{run_id}/resume", data=web.form(), follow_redirects=False
    )
    assert resumed.status_code == 303
    assert web.state.experiments.show(run_id).status == "completed"
    assert "Findings" in web.client.get(f"/experiments/{run_id}").text


def test_a_start_that_stops(lab: tuple[Web, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    web, ids = lab

    def unusable(*args: Any, **kwargs: Any) -> Any:
        raise LLMConfigError("no model named nope")

    monkeypatch.setattr(web.services, "structured", unusable)
    refused = web.client.post(
        "/experiments", data=web.form(type="temporal", term="honra", content=ids)
    )
    assert refused.status_code == 502
    assert "the configured LLM cannot be used: no model named nope" in refused.text
    assert "no experiment was kept" in refused.text
    assert web.state.experiments.experiments() == []
    monkeypatch.undo()

    def down(*args: Any, **kwargs: Any) -> Any:
        raise StoreUnavailableError("the store is not answering")

    monkeypatch.setattr(nodes_plan, "load_documents", down)
    monkeypatch.setattr("langgraph.pregel._retry.time.sleep", lambda seconds: None)
    stopped = web.client.post(
        "/experiments", data=web.form(type="temporal", term="honra", content=ids)
    )
    assert stopped.status_code == 503 and "stopped in the middle and is kept" in stopped.text
    [kept] = web.state.experiments.experiments()
    assert kept.status == "interrupted" and f'href="/experiments/{kept.id}"' in stopped.text
    monkeypatch.undo()
    resumed = web.client.post(f"/experiments/{kept.id}/resume", data=web.form())
    assert resumed.status_code == 200 and "Proposed plan" in resumed.text
    assert web.state.experiments.show(kept.id).status == "awaiting_review"


def test_api_round_trip(lab: tuple[Web, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    web, ids = lab
    body = {
        "type": "temporal",
        "term": "honra",
        "definition": "Estima y respeto de la dignidad propia.",
        "anchors": ["dignidad"],
        "contents": ids,
    }
    assert web.client.post("/api/experiments", json=body).status_code == 403
    csrf = web.csrf()
    started = web.client.post("/api/experiments", json=body, headers=csrf)
    assert started.status_code == 201, started.text
    experiment = started.json()
    run_id = experiment["id"]
    assert run_id.startswith("exp-") and experiment["status"] == "awaiting_review"
    assert experiment["review"]["kind"] == "experiment"
    assert set(experiment["recommended_strategy"]) == set(ids)
    [listed] = web.client.get("/api/experiments").json()
    assert listed["id"] == run_id and "review" not in listed and "synthesis" not in listed

    review = f"/api/experiments/{run_id}/review"
    assert web.client.post(review, json={"action": "approve"}).status_code == 403
    assert web.client.post(review, json={"action": "merge"}, headers=csrf).status_code == 422
    bad = web.client.post(
        review,
        json={"action": "modify", "strategy": {ids[0]: ["telepathy"], "nope": ["concordance"]}},
        headers=csrf,
    )
    assert bad.status_code == 422
    assert "telepathy is not a tool" in bad.json()["detail"]
    assert "document nope is not in this experiment" in bad.json()["detail"]

    def down(*args: Any, **kwargs: Any) -> Any:
        raise StoreUnavailableError("the store is not answering")

    monkeypatch.setattr(nodes_execute, "load_documents", down)
    monkeypatch.setattr("langgraph.pregel._retry.time.sleep", lambda seconds: None)
    stopped = web.client.post(review, json={"action": "approve", "notes": "bien"}, headers=csrf)
    assert stopped.status_code == 503
    assert f"retry: POST /api/experiments/{run_id}/resume" in stopped.json()["detail"]
    monkeypatch.undo()
    resumed = web.client.post(f"/api/experiments/{run_id}/resume", headers=csrf)
    assert resumed.status_code == 200, resumed.text
    done = web.client.get(f"/api/experiments/{run_id}").json()
    assert done["status"] == "completed" and done["decision"] == "approve"
    assert done["review_notes"] == "bien" and done["review"] is None
    assert done["tool_runs"] and done["synthesis"] is not None and done["charts"]
    assert web.client.post(review, json={"action": "reject"}, headers=csrf).status_code == 409
    provenance = f"/api/experiments/{run_id}/provenance"
    jsonld = web.client.get(provenance)
    assert jsonld.status_code == 200, jsonld.text
    assert jsonld.headers["content-type"].startswith("application/ld+json")
    assert run_id in jsonld.text
    turtle = web.client.get(provenance, params={"format": "turtle"})
    assert turtle.headers["content-type"].startswith("text/turtle") and "@prefix" in turtle.text
    provn = web.client.get(provenance, params={"format": "provn"})
    assert provn.status_code == 200 and provn.text.startswith("document")
    assert web.client.get(provenance, params={"format": "xml"}).status_code == 422
    assert web.client.get("/api/experiments/exp-nope/provenance").status_code == 404
    page = web.client.get(f"/experiments/{run_id}").text
    assert f'href="{provenance}?format=turtle"' in page
    again = web.client.post(f"/api/experiments/{run_id}/resume", headers=csrf)
    assert again.status_code == 409


def test_api_bad_requests(lab: tuple[Web, list[str]]) -> None:
    web, ids = lab
    csrf = web.csrf()
    base = {"type": "temporal", "term": "honra", "contents": ids}
    cases: list[tuple[dict[str, Any], int, str]] = [
        ({"contents": [ids[0], "missing"]}, 404, "no content with id missing"),
        ({"type": "astrology"}, 422, "temporal"),
        ({"type": "single_document"}, 422, "exactly one content"),
        ({"contents": ids[:1]}, 422, "two or more"),
        ({"contents": []}, 422, "at least 1"),
        ({"term": ""}, 422, "at least 1"),
        ({"term": "   "}, 422, "term"),
        ({"anchors": ["a"] * 13}, 422, "at most 12"),
    ]
    for change, status, message in cases:
        response = web.client.post("/api/experiments", json={**base, **change}, headers=csrf)
        assert response.status_code == status, change
        assert message in str(response.json()["detail"]), (change, response.json())
    assert web.client.get("/api/experiments").json() == []
    assert web.client.get("/api/experiments/exp-nope").status_code == 404
    assert web.client.post("/api/experiments/exp-nope/resume", headers=csrf).status_code == 404
    review = {"action": "approve"}
    missing = web.client.post("/api/experiments/exp-nope/review", json=review, headers=csrf)
    assert missing.status_code == 404


def test_the_term_domain_is_set_from_the_form_and_the_api_and_bounded(
    lab: tuple[Web, list[str]],
) -> None:
    """Issue 31: the field the term belongs to reaches the experiment (and so its prompts)
    from the form and the JSON API; a domain over 100 characters is refused naming it."""
    web, ids = lab
    run_id = _new(web, ids, domain="  derecho  ")
    assert web.state.experiments.show(run_id).as_dict()["term"]["domain"] == "derecho"
    refused = web.client.post(
        "/experiments", data=web.form(type="temporal", term="honra", content=ids, domain="d" * 101)
    )
    assert refused.status_code == 422 and "domain: String should have at most 100" in refused.text
    assert 'id="x-domain"' in refused.text and "d" * 101 in refused.text  # kept to correct

    body = {"type": "temporal", "term": "honra", "domain": "teología", "contents": ids}
    started = web.client.post("/api/experiments", json=body, headers=web.csrf())
    assert started.status_code == 201, started.text
    assert started.json()["term"]["domain"] == "teología"
    long = web.client.post(
        "/api/experiments", json={**body, "domain": "d" * 101}, headers=web.csrf()
    )
    assert long.status_code == 422 and long.json()["detail"][0]["loc"][-1] == "domain"


def test_a_source_page_shows_its_journal_doi_and_abstract(make_web: MakeWeb) -> None:
    """Issue 31: what ingestion found of the document's publication, on its page."""
    web = make_web()
    paper = Content(
        id=content_id("La honra en la novela", None),
        title="La honra en la novela",
        kind="document",
        metadata={
            "journal": "Revista de Filología",
            "doi": "10.3989/rfe.2019.004",
            "abstract": "Cómo cambia la honra <entre> 1605 y 1876.",
        },
    )
    web.services.store.apply(ChangeSet(contents=[paper]))
    page = web.client.get(f"/sources/{paper.id}").text
    assert "Revista de Filología" in page
    assert 'href="https://doi.org/10.3989/rfe.2019.004"' in page
    assert "Cómo cambia la honra &lt;entre&gt; 1605 y 1876." in page
