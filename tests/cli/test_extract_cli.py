"""`run`, `extract`, `review`, `runs`, `concepts`, `concept` and `vault sync` end to end on the
fake LLM, a real SQLite store, real checkpoints and a real vault folder."""

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


def test_run_then_review_approve_writes_concepts_and_notes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    result = cli(home, "run", str(REPO / "examples" / "walden.md"), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    [run] = report["runs"]
    assert run["status"] == "awaiting_review"
    assert run["report"]["concepts"]

    listed = json.loads(cli(home, "runs", "--json").stdout)
    assert [(r["run_id"], r["status"]) for r in listed] == [(run["run_id"], "awaiting_review")]

    # Running again neither re-ingests nor opens a second run for the same content.
    again = json.loads(cli(home, "run", str(REPO / "examples" / "walden.md"), "--json").stdout)
    assert again["runs"] == []

    shown = cli(home, "review", "--json")  # the latest run waiting, without answering
    assert json.loads(shown.stdout)["status"] == "awaiting_review"

    done = cli(home, "review", run["run_id"], "--approve", "--json")
    assert done.exit_code == 0, done.output
    committed = json.loads(done.stdout)
    assert committed["status"] == "committed"
    assert len(committed["committed"]["notes_written"]) == len(run["report"]["concepts"])

    concepts = json.loads(cli(home, "concepts", "--json").stdout)
    assert len(concepts) == len(run["report"]["concepts"])
    assert all(c["quotes"] > 0 and not c["vault_sync_pending"] for c in concepts)
    one = json.loads(cli(home, "concept", concepts[0]["id"][:8], "--json").stdout)
    assert one["provenance"]["run"] == run["run_id"]
    assert one["quotes"] and one["quotes"][0]["content"] == "Walden; or, Life in the Woods"

    check = cli(home, "vault", "sync", "--check", "--json")
    assert check.exit_code == 0, check.output
    assert json.loads(check.stdout)["drift"] == []


def test_extract_feedback_and_abort(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ingested = json.loads(
        cli(home, "ingest", str(REPO / "examples" / "meditations.md"), "--json").stdout
    )
    content_id = ingested["contents"][0]["id"]
    started = cli(home, "extract", content_id[:8], "--suggest", "Una idea por cita", "--json")
    assert started.exit_code == 0, started.output
    run_id = json.loads(started.stdout)["run_id"]

    revised = cli(home, "review", run_id, "--feedback", "Une los dos primeros conceptos", "--json")
    assert revised.exit_code == 0, revised.output
    assert json.loads(revised.stdout)["report"]["feedback_rounds"] == 1

    both = cli(home, "review", run_id, "--approve", "--abort")
    assert both.exit_code == 2

    aborted = cli(home, "review", run_id, "--abort", "--json")
    assert json.loads(aborted.stdout)["status"] == "aborted"
    assert json.loads(cli(home, "concepts", "--json").stdout) == []
    late = cli(home, "review", run_id, "--approve")
    assert late.exit_code == 1 and "not waiting for review" in late.stderr


def test_review_without_waiting_runs_says_so(tmp_path: Path) -> None:
    result = cli(tmp_path / "home", "review")
    assert result.exit_code == 1
    assert "no run is waiting" in result.stderr


def test_extract_unknown_content(tmp_path: Path) -> None:
    result = cli(tmp_path / "home", "extract", "deadbeef")
    assert result.exit_code == 1
    assert "zettelgraph contents" in result.stderr


def test_concept_unknown_id(tmp_path: Path) -> None:
    result = cli(tmp_path / "home", "concept", "deadbeef")
    assert result.exit_code == 1
    assert "zettelgraph concepts" in result.stderr


def test_the_next_command_after_a_run_is_one_line_to_copy(tmp_path: Path) -> None:
    """The hint names the run id and the review's flags: Rich folded it at the console's width
    (80 here), and a command pasted as two lines runs as two."""
    home = tmp_path / "home"
    started = cli(home, "run", str(REPO / "examples" / "walden.md"), "--json")
    [run] = json.loads(started.stdout)["runs"]
    shown = cli(home, "review", run["run_id"])
    assert shown.exit_code == 0, shown.output
    [hint] = [line for line in shown.stdout.splitlines() if line.startswith("Next: ")]
    assert hint.startswith(f"Next: zettelgraph review {run['run_id']} -i (item by item)")
    assert hint.endswith("--feedback TEXT | --abort")
