"""A model that fails every call (a service down, answers that are not JSON, answers that cite
quotes it was never shown): the run is `failed` with the errors, `extract` exits non-zero,
nothing can be approved, the book stays unprocessed, and a later run with a working model is
not blocked by the failed one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reliability.conftest import Home, ingest, notes_file
from zettelgraph.cli.app import app

FAULTS = ["transient=1", "malformed=1", "invented_ids=1"]


def faulty(home: Home, fault: str, *args: str) -> Any:
    env = {**home.env, "ZETTELGRAPH_LLM": f"fake:{fault}", "ZETTELGRAPH_LLM_BACKOFF": "0"}
    return CliRunner().invoke(app, list(args), env=env)


@pytest.mark.parametrize("fault", FAULTS)
def test_a_run_whose_every_call_failed_is_failed(
    make_home: Any, tmp_path: Path, fault: str
) -> None:
    home: Home = make_home("home")
    cid = ingest(home, notes_file(tmp_path / "notes", 3))

    result = faulty(home, fault, "extract", cid, "--json")
    assert result.exit_code == 1, result.output
    view = json.loads(result.stdout)
    assert view["status"] == "failed", view
    assert any("every extraction call failed" in w for w in view["warnings"]), view["warnings"]

    # Nothing to approve, nothing stored, the book still to be read.
    approve = home.cli("review", view["run_id"], "--approve")
    assert approve.exit_code != 0
    assert "not waiting for review" in approve.stderr
    shape = home.shape()
    assert shape["counts"]["Concept"] == 0
    assert shape["processed"] == [("Libro de prueba", False)]

    # A failed run does not hold the book: a working model extracts it.
    again = home.json("extract", cid)
    assert again["status"] == "awaiting_review" and again["report"]["concepts"]
    assert home.json("review", again["run_id"], "--approve")["status"] == "committed"
    assert home.shape()["processed"] == [("Libro de prueba", True)]


def test_run_reports_a_failed_extraction_as_an_error(make_home: Any, tmp_path: Path) -> None:
    """`zettelgraph run` (ingest and extract) says so too, with a non-zero exit."""
    home: Home = make_home("home")
    notes = notes_file(tmp_path / "notes", 2)
    result = faulty(home, "transient=1", "run", str(notes), "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert [r["status"] for r in report["runs"]] == ["failed"]
