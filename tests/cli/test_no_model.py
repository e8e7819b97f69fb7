"""Looking needs no model: with no LLM configured and no local model installed, listing,
viewing runs, ingesting book notes and the web's read pages work; what needs a model says so
once (real SQLite store and files; the fake model makes the run that is then viewed)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.llm import local
from zettelgraph.settings import Settings
from zettelgraph.web.app import create_app

REPO = Path(__file__).resolve().parents[2]
WALDEN = REPO / "examples" / "walden.md"
NO_MODEL = "no LLM is configured and no local model is installed"


def cli(home: Path, *args: str, llm: str | None = None) -> Any:
    given = ["--llm", llm] if llm else []
    return CliRunner().invoke(
        app, ["--home", str(home), "--embeddings", "hash", *given, *args], catch_exceptions=False
    )


@pytest.fixture
def no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine where `pip install zettelgraph` left out the local model and nothing is set."""
    monkeypatch.delenv("ZETTELGRAPH_LLM", raising=False)
    monkeypatch.delenv("ZETTELGRAPH_LLM_FAST", raising=False)
    monkeypatch.setattr(local, "is_installed", lambda model: False)


def test_ingest_and_looking_work_without_a_model(tmp_path: Path, no_model: None) -> None:
    ingested = cli(tmp_path, "ingest", str(WALDEN), "--json")
    assert ingested.exit_code == 0, ingested.output
    report = json.loads(ingested.stdout)
    assert report["errors"] == []
    (content,) = report["contents"]
    assert content["quotes"] > 0
    # The summary waits for a model, and the reader is told so.
    assert any("no summary" in w for w in content["warnings"])

    for command in (["contents"], ["runs"], ["concepts"], ["show", content["id"][:8]]):
        done = cli(tmp_path, *command)
        assert done.exit_code == 0, (command, done.output)
        assert NO_MODEL not in " ".join(done.output.split())
    found = cli(tmp_path, "search", "drummer", "--json")
    assert found.exit_code == 0, found.output


def test_a_run_is_viewed_without_a_model_and_extracting_says_why_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = cli(tmp_path, "run", str(WALDEN), llm="fake")
    assert made.exit_code == 0, made.output
    run_id = re.findall(r"run-[0-9a-f]{12}", made.output)[0]

    monkeypatch.delenv("ZETTELGRAPH_LLM", raising=False)
    monkeypatch.setattr(local, "is_installed", lambda model: False)
    listed = cli(tmp_path, "runs", "--json")
    assert listed.exit_code == 0, listed.output
    assert [r["run_id"] for r in json.loads(listed.stdout)] == [run_id]
    viewed = cli(tmp_path, "review", run_id, "--json")
    assert viewed.exit_code == 0, viewed.output
    assert json.loads(viewed.stdout)["report"]["concepts"]

    # A second book: ingested, then extraction stops with the one error, said once.
    other = tmp_path / "other.md"
    other.write_text(
        "---\ntitle: Otra\nauthor: Alguien\n---\n\n# Citas\n\n"
        "La costumbre es una segunda naturaleza que gobierna a los hombres.\n3\n",
        encoding="utf-8",
    )
    again = cli(tmp_path, "run", str(other))
    assert again.exit_code == 1
    assert " ".join(again.output.split()).count(NO_MODEL) == 1, again.output
    assert "Otra" in cli(tmp_path, "contents").output  # its ingest was kept


def test_the_web_read_pages_open_without_a_model(tmp_path: Path, no_model: None) -> None:
    assert cli(tmp_path, "ingest", str(WALDEN)).exit_code == 0
    settings = Settings(home=tmp_path, embeddings="hash")
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as client:
        for page in ("/", "/concepts", "/graph", "/ask"):
            response = client.get(page)
            assert response.status_code == 200, (page, response.text[:300])
