"""Graph extraction runs in the web app: started from a source page with a pack, listed in the
inbox, reviewed on their own page (entities, relationships, drops) and answered there or
through the JSON API, on the fake LLM with a scripted extraction."""

from __future__ import annotations

import re
from typing import Any

import pytest

from web.conftest import REPO, MakeWeb, Web

DON_QUIJOTE = REPO / "examples" / "don_quijote.md"


def _entity(name: str, type_: str, description: str = "", **properties: Any) -> dict[str, Any]:
    args = {"name": name, "type": type_, "description": description, "properties": properties}
    return {"tool": "extract_entity", "args": args}


def _relationship(source: str, type_: str, target: str, description: str = "") -> dict[str, Any]:
    args = {
        "source_name": source,
        "relationship_type": type_,
        "target_name": target,
        "description": description,
    }
    return {"tool": "extract_relationship", "args": args}


# Two entities the passages name, one they do not (dropped), a relationship the narrative pack
# allows and one it does not (dropped).
EXTRACTION = {
    "calls": [
        _entity("Sancho", "Person", "<b>Escudero</b> de don Quijote.", occupation="escudero"),
        _entity("La Mancha", "Place", "Región de Castilla."),
        _entity("Dulcinea del Toboso", "Person"),
        _relationship("Sancho", "LIVED_IN", "La Mancha", "Vivía allí."),
        _relationship("Sancho", "WROTE", "La Mancha"),
    ]
}


@pytest.fixture
def web(make_web: MakeWeb) -> Web:
    """The app over a home where examples/don_quijote.md is ingested, the extraction scripted."""
    made = make_web(DON_QUIJOTE)
    made.llm.replies["extract_graph"] = [EXTRACTION]
    return made


def _start(web: Web, content_id: str, pack: str = "narrative") -> str:
    response = web.client.post(
        f"/sources/{content_id}/graph-extract",
        data=web.form(pack=pack),
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert location.startswith("/graph-runs/graph-")
    return location.rsplit("/", 1)[1]


def test_start_from_the_source_page_review_and_approve(web: Web) -> None:
    content_id = web.content_id("El ingenioso hidalgo don Quijote de la Mancha")
    source = web.client.get(f"/sources/{content_id}").text
    assert "Extract entities and relationships" in source
    # The zettelkasten pack alone has no entities to extract: it is not offered.
    assert re.findall(r'<option value="([^"]+)"', source) == ["narrative", "research"]

    run_id = _start(web, content_id)
    concept_run = web.start_run(content_id)  # a concept run of the same source may wait too
    inbox = web.client.get("/").text
    assert f'href="/graph-runs/{run_id}"' in inbox and "entities and relationships" in inbox
    assert f'href="/runs/{concept_run["run_id"]}"' in inbox
    assert "(narrative)" in inbox and "2</strong> dropped" in inbox

    page = web.client.get(f"/graph-runs/{run_id}")
    assert page.status_code == 200
    text = page.text
    for shown in ("Sancho", "La Mancha", "Person", "Place", "occupation", "escudero"):
        assert shown in text
    assert "&lt;b&gt;Escudero&lt;/b&gt;" in text and "<b>Escudero" not in text
    assert "LIVED_IN" in text and "Vivía allí." in text
    assert "Dulcinea del Toboso" in text and "not in passages" in text
    assert "wrong endpoint types" in text and "WROTE joins Person to Work" in text
    assert f'action="/graph-runs/{run_id}/approve"' in text

    source = web.client.get(f"/sources/{content_id}").text
    assert f'href="/graph-runs/{run_id}"' in source  # the open run, not a second one
    assert _start(web, content_id) == run_id  # a double submit reopens it

    approved = web.client.post(
        f"/graph-runs/{run_id}/approve", data=web.form(), follow_redirects=False
    )
    assert approved.status_code == 303 and approved.headers["location"] == f"/graph-runs/{run_id}"
    done = web.client.get(f"/graph-runs/{run_id}").text
    assert "committed" in done and 'href="/entities"' in done
    assert len(web.state.graph_runs.view(run_id).committed["entities_new"]) == 2
    assert re.search(r'href="/entities/[^"]+">Sancho</a>', done)
    entities = web.client.get("/entities").text
    assert "Sancho" in entities and "La Mancha" in entities and "Dulcinea" not in entities
    assert f"/graph-runs/{run_id}" not in web.client.get("/").text
    again = web.client.post(f"/graph-runs/{run_id}/approve", data=web.form())
    assert again.status_code == 409 and "not waiting for review" in again.text


def test_feedback_then_abort(web: Web) -> None:
    content_id = web.content_id("El ingenioso hidalgo don Quijote de la Mancha")
    run_id = _start(web, content_id)
    empty = web.client.post(f"/graph-runs/{run_id}/feedback", data=web.form(feedback=" "))
    assert empty.status_code == 422
    sent = web.client.post(
        f"/graph-runs/{run_id}/feedback",
        data=web.form(feedback="Solo personas"),
        follow_redirects=False,
    )
    assert sent.status_code == 303
    assert sent.headers["location"] == f"/graph-runs/{run_id}#feedback-log"
    page = web.client.get(f"/graph-runs/{run_id}").text
    assert "Round 1:" in page and "Solo personas" in page

    aborted = web.client.post(f"/graph-runs/{run_id}/abort", data=web.form())
    assert aborted.status_code == 200 and "Aborted: nothing was written." in aborted.text
    assert web.state.graph_runs.view(run_id).status == "aborted"
    assert web.client.get("/entities").text.count("Sancho") == 0
    # Aborted, the source may be extracted again.
    assert _start(web, content_id) != run_id


def test_csrf_unknown_runs_and_bad_packs(web: Web) -> None:
    content_id = web.content_id("El ingenioso hidalgo don Quijote de la Mancha")
    web.client.get("/")
    refused = web.client.post(f"/sources/{content_id}/graph-extract", data={"pack": "narrative"})
    assert refused.status_code == 403 and "CSRF" in refused.text
    assert web.state.graph_runs.list() == []

    run_id = _start(web, content_id)
    for action in ("approve", "abort", "feedback"):
        response = web.client.post(f"/graph-runs/{run_id}/{action}", data={"feedback": "x"})
        assert response.status_code == 403
    assert web.state.graph_runs.view(run_id).status == "awaiting_review"

    assert web.client.get("/graph-runs/graph-nope").status_code == 404
    concept_run = web.start_run(content_id)["run_id"]
    assert web.client.get(f"/graph-runs/{concept_run}").status_code == 404
    assert web.client.post("/graph-runs/graph-nope/approve", data=web.form()).status_code == 404

    unknown = web.client.post(f"/sources/{content_id}/graph-extract", data=web.form(pack="novela"))
    assert unknown.status_code == 422 and "no pack named" in unknown.text
    concepts_only = web.client.post(
        f"/sources/{content_id}/graph-extract", data=web.form(pack="zettelkasten")
    )
    assert concepts_only.status_code == 422 and "no entity types" in concepts_only.text
    missing = web.client.post("/sources/nope/graph-extract", data=web.form(pack="narrative"))
    assert missing.status_code == 404


def test_api_round_trip(web: Web) -> None:
    content_id = web.content_id("El ingenioso hidalgo don Quijote de la Mancha")
    body = {"content_id": content_id, "packs": ["narrative"]}
    assert web.client.post("/api/graph-runs", json=body).status_code == 403
    csrf = web.csrf()
    bad = web.client.post("/api/graph-runs", json={**body, "packs": ["novela"]}, headers=csrf)
    assert bad.status_code == 422 and "no pack named" in bad.json()["detail"]
    missing = web.client.post("/api/graph-runs", json={**body, "content_id": "x"}, headers=csrf)
    assert missing.status_code == 404

    started = web.client.post("/api/graph-runs", json=body, headers=csrf)
    assert started.status_code == 200, started.text
    run = started.json()
    run_id = run["run_id"]
    assert run_id.startswith("graph-") and run["status"] == "awaiting_review"
    report = run["report"]
    assert report["kind"] == "graph" and report["packs"][0]["name"] == "narrative"
    assert {e["name"] for e in report["entities"]} == {"Sancho", "La Mancha"}
    assert [(r["source"], r["type"], r["target"]) for r in report["relationships"]] == [
        ("Sancho", "LIVED_IN", "La Mancha")
    ]
    assert report["dropped_by_reason"] == {"not_in_passages": 1, "wrong_endpoint_types": 1}
    twice = web.client.post("/api/graph-runs", json=body, headers=csrf)
    assert twice.status_code == 409 and run_id in twice.json()["detail"]

    assert web.client.get(f"/api/graph-runs/{run_id}").json()["report"] == report
    assert web.client.get("/api/graph-runs/graph-nope").status_code == 404
    [listed] = web.client.get("/api/graph-runs").json()
    assert listed["run_id"] == run_id and "report" not in listed

    answer = f"/api/graph-runs/{run_id}/answer"
    assert web.client.post(answer, json={"action": "approve"}).status_code == 403
    assert web.client.post(answer, json={"action": "merge"}, headers=csrf).status_code == 422
    revised = web.client.post(
        answer, json={"action": "feedback", "feedback": "Solo personas"}, headers=csrf
    ).json()
    assert revised["status"] == "awaiting_review" and revised["report"]["feedback_rounds"] == 1
    done = web.client.post(answer, json={"action": "approve"}, headers=csrf).json()
    assert done["status"] == "committed" and len(done["committed"]["entities_new"]) == 2
    names = {row["name"] for row in web.client.get("/api/entities").json()}
    assert {"Sancho", "La Mancha"} <= names
    assert web.client.post(answer, json={"action": "abort"}, headers=csrf).status_code == 409


def test_item_forms_and_api_decide_single_entities(web: Web) -> None:
    content_id = web.content_id("El ingenioso hidalgo don Quijote de la Mancha")
    run_id = _start(web, content_id)
    page = web.client.get(f"/graph-runs/{run_id}").text
    assert f'action="/graph-runs/{run_id}/items"' in page and 'id="item-n1"' in page
    dropped = web.client.post(
        f"/graph-runs/{run_id}/items",
        data=web.form(item="n2", action="drop"),
        follow_redirects=False,
    )
    assert dropped.status_code == 303 and dropped.headers["location"].endswith("#item-n2")
    bad = web.client.post(f"/graph-runs/{run_id}/items", data=web.form(item="n9", action="drop"))
    assert bad.status_code == 422 and "no item &#39;n9&#39;" in bad.text
    api = web.client.post(
        f"/api/graph-runs/{run_id}/items",
        json={"decisions": [{"item": "n1", "action": "keep"}]},
        headers=web.csrf(),
    )
    assert api.status_code == 200, api.text
    summary = api.json()["report"]["review"]
    assert summary["counts"]["dropped"] == 1 and summary["counts"]["kept"] == 1
    # The dropped place takes the relationship to it along.
    assert summary["writes"] == {"entities": 1, "relationships": 0}


def test_an_unsure_relationship_is_flagged_on_the_review_page(web: Web) -> None:
    unsure = _relationship("Sancho", "LIVED_IN", "La Mancha", "Parece que vivía allí.")
    unsure["args"]["confidence"] = 0.3
    web.llm.replies["extract_graph"] = [{"calls": [*EXTRACTION["calls"][:2], unsure]}]
    run_id = _start(web, web.content_id("El ingenioso hidalgo don Quijote de la Mancha"))
    page = web.client.get(f"/graph-runs/{run_id}").text
    item = page.split('id="item-r1"')[1].split("</li>")[0]
    assert "is-doubtful" in page.split('id="item-r1"')[0].rsplit("<li", 1)[1]
    assert "doubtful: the model was not sure of it" in item
    assert "undecided · left out" in item and "the model's confidence 0.30" in item
    assert "1 doubtful, left out unless you keep them" in page
