"""The README's main job, unchanged, with ZETTELGRAPH_STORE pointing at a FalkorDB graph:
`run examples/` ingests every example and stops each book at review; approving writes the
server's graph and the vault, and the graph reads back through every command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.store import open_store

REPO = Path(__file__).resolve().parents[2]


def cli(home: Path, *args: str) -> Any:
    return CliRunner().invoke(
        app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args]
    )


def test_run_examples_and_approve_on_falkordb(
    tmp_path: Path, falkordb_graph_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZETTELGRAPH_STORE", falkordb_graph_url)
    home = tmp_path / "home"

    result = cli(home, "run", str(REPO / "examples"), "--json")

    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert len(report["contents"]) == 3
    assert [r["status"] for r in report["runs"]] == ["awaiting_review"] * 3
    assert (home / "zettelgraph.db").exists() is False  # nothing went to the embedded store

    written = 0
    for run in report["runs"]:
        done = cli(home, "review", run["run_id"], "--approve", "--json")
        assert done.exit_code == 0, done.output
        assert json.loads(done.stdout)["status"] == "committed"
        written += len(json.loads(done.stdout)["committed"]["notes_written"])

    store = open_store(falkordb_graph_url)
    try:
        counts = store.counts()
        concepts = store.list_concepts()
        assert counts["Content"] == 3 and counts["Quote"] == 15
        assert counts["Concept"] == len(concepts) == written > 0
        assert all(c.processed_date for c in store.list_contents())
    finally:
        store.close()
    notes = sorted((home / "vault" / "08 - Ideas").glob("*.md"))
    assert len(notes) == written
    listed = json.loads(cli(home, "concepts", "--json").stdout)
    assert {c["id"] for c in listed} == {c.id for c in concepts}
    one = json.loads(cli(home, "concept", listed[0]["id"], "--json").stdout)
    assert one["quotes"], "every concept cites its quotes"
    assert cli(home, "vault", "sync", "--check").exit_code == 0

    # Running the job again changes nothing.
    again = json.loads(cli(home, "run", str(REPO / "examples"), "--json").stdout)
    assert again["runs"] == []
    assert {c["status"] for c in again["contents"]} == {"unchanged"}
