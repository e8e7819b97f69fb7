"""`graph-extract` with the shipped `narrative` pack on the fake LLM, answered with `review`,
listed by `runs`, on a real SQLite store, real checkpoints and a real vault folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from zettelgraph.cli.app import app

REPO = Path(__file__).resolve().parents[2]


def cli(home: Path, *args: str) -> Any:
    return CliRunner().invoke(
        app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args]
    )


def ingest(home: Path, name: str) -> str:
    done = cli(home, "ingest", str(REPO / "examples" / name), "--json")
    assert done.exit_code == 0, done.output
    content_id: str = json.loads(done.stdout)["contents"][0]["id"]
    return content_id


def test_graph_extract_then_review_approve(tmp_path: Path) -> None:
    home = tmp_path / "home"
    content_id = ingest(home, "don_quijote.md")
    started = cli(home, "graph-extract", content_id[:8], "--pack", "narrative", "--json")
    assert started.exit_code == 0, started.output
    run = json.loads(started.stdout)
    assert run["run_id"].startswith("graph-") and run["status"] == "awaiting_review"
    assert run["report"]["packs"][0]["name"] == "narrative"

    listed = json.loads(cli(home, "runs", "--json").stdout)
    assert [(r["kind"], r["run_id"]) for r in listed] == [("graph", run["run_id"])]
    shown = cli(home, "review", run["run_id"])  # the terminal view of a graph run
    assert shown.exit_code == 0, shown.output
    assert "entities" in shown.stdout and f"zettelgraph review {run['run_id']}" in shown.stdout

    done = cli(home, "review", run["run_id"], "--approve", "--json")
    assert done.exit_code == 0, done.output
    committed = json.loads(done.stdout)
    assert committed["status"] == "committed"
    assert len(committed["committed"]["entities_new"]) == run["report"]["counts"]["entities_new"]
    notes = sorted((home / "vault" / "09 - narrative").glob("*.md"))
    assert len(notes) >= len(committed["committed"]["entities_new"]) > 0


def test_entity_notes_go_to_the_folder_the_setting_names(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("ZETTELGRAPH_ENTITY_FOLDERS", '{"narrative": "Personajes"}')
    home = tmp_path / "home"
    content_id = ingest(home, "don_quijote.md")
    run_id = json.loads(
        cli(home, "graph-extract", content_id, "--pack", "narrative", "--json").stdout
    )["run_id"]
    done = json.loads(cli(home, "review", run_id, "--approve", "--json").stdout)
    assert done["status"] == "committed" and done["committed"]["entities_new"]
    assert list((home / "vault" / "Personajes").glob("*.md"))
    assert not (home / "vault" / "09 - narrative").exists()


def test_graph_extract_feedback_abort_and_errors(tmp_path: Path) -> None:
    home = tmp_path / "home"
    content_id = ingest(home, "walden.md")
    unknown = cli(home, "graph-extract", content_id, "--pack", "novela")
    assert unknown.exit_code == 1
    assert "no pack named 'novela'" in unknown.output and "narrative" in unknown.output

    run_id = json.loads(
        cli(home, "graph-extract", content_id, "--pack", "narrative", "--json").stdout
    )["run_id"]
    again = cli(home, "graph-extract", content_id, "--pack", "narrative")
    assert again.exit_code == 1 and run_id in " ".join(again.output.split())
    revised = cli(home, "review", run_id, "--feedback", "Solo personas", "--json")
    assert revised.exit_code == 0, revised.output
    assert json.loads(revised.stdout)["report"]["feedback_rounds"] == 1
    aborted = cli(home, "review", run_id, "--abort", "--json")
    assert json.loads(aborted.stdout)["status"] == "aborted"
