"""The web app on a FalkorDB graph: every read goes through the store protocol, so the review
loop and the browsing pages must work on a server store exactly as on the embedded one."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from zettelgraph.cli.app import app as cli_app
from zettelgraph.settings import Settings
from zettelgraph.web.app import create_app

from .conftest import BASE_URL, FAKE, MEDITATIONS


def test_review_and_browse_on_falkordb(tmp_path: Path, falkordb_graph_url: str) -> None:
    home = tmp_path / "home"
    base = ["--home", str(home), "--store", falkordb_graph_url, "--llm", "fake"]
    base += ["--embeddings", "hash"]
    runner = CliRunner()
    ingested = runner.invoke(cli_app, [*base, "ingest", str(MEDITATIONS), "--json"])
    assert ingested.exit_code == 0, ingested.output
    content_id = json.loads(ingested.stdout)["contents"][0]["id"]
    started = runner.invoke(cli_app, [*base, "extract", content_id, "--json"])
    assert started.exit_code == 0, started.output
    run_id = json.loads(started.stdout)["run_id"]

    settings = Settings(home=home, store=falkordb_graph_url, **FAKE)
    with TestClient(create_app(settings), base_url=BASE_URL) as client:
        inbox = client.get("/")
        assert inbox.status_code == 200 and "Meditations" in inbox.text
        assert client.get(f"/runs/{run_id}").status_code == 200
        token = client.get("/api/csrf").json()["csrf_token"]
        decided = client.post(
            f"/api/runs/{run_id}/decision",
            json={"action": "approve"},
            headers={"X-CSRF-Token": token},
        )
        assert decided.status_code == 200 and decided.json()["status"] == "committed"
        again = client.post(
            f"/api/runs/{run_id}/decision",
            json={"action": "approve"},
            headers={"X-CSRF-Token": token},
        )
        assert again.status_code == 409
        concepts = client.get("/api/concepts").json()
        assert concepts
        concept_id = concepts[0]["id"]
        assert client.get(f"/concepts/{concept_id}").status_code == 200
        graph = client.get(f"/api/graph?content={content_id}").json()
        assert {n["id"] for n in graph["nodes"]} >= {c["id"] for c in concepts}
        assert client.get(f"/sources/{content_id}").status_code == 200
        found = client.get("/api/search", params={"q": "happy life"}).json()["results"]
        assert found and found[0]["content_title"] == "Meditations"


def test_item_decisions_commit_exactly_what_is_kept_on_falkordb(
    tmp_path: Path, falkordb_graph_url: str
) -> None:
    home = tmp_path / "home"
    base = ["--home", str(home), "--store", falkordb_graph_url, "--llm", "fake"]
    base += ["--embeddings", "hash"]
    runner = CliRunner()
    ingested = runner.invoke(cli_app, [*base, "ingest", str(MEDITATIONS), "--json"])
    content_id = json.loads(ingested.stdout)["contents"][0]["id"]
    started = json.loads(runner.invoke(cli_app, [*base, "extract", content_id, "--json"]).stdout)
    keys = [c["key"] for c in started["report"]["concepts"]]
    assert keys

    settings = Settings(home=home, store=falkordb_graph_url, **FAKE)
    with TestClient(create_app(settings), base_url=BASE_URL) as client:
        headers = {"X-CSRF-Token": client.get("/api/csrf").json()["csrf_token"]}
        decided = client.post(
            f"/api/runs/{started['run_id']}/items",
            json={"decisions": [{"item": key, "action": "drop"} for key in keys]},
            headers=headers,
        )
        assert decided.status_code == 200, decided.text
        assert decided.json()["report"]["review"]["writes"]["concepts"] == 0
        approved = client.post(
            f"/api/runs/{started['run_id']}/decision", json={"action": "approve"}, headers=headers
        )
        assert approved.status_code == 200 and approved.json()["status"] == "committed"
        assert client.get("/api/concepts").json() == []
        left = {gone["item"] for gone in approved.json()["committed"]["left_out"]}
        assert set(keys) <= left
