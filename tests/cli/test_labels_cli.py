"""The CLI review and concept views label a concept's parts in the concept language, as the
vault and the web do (one table: `zettelgraph.models.labels`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zettelgraph.cli.app import app

REPO = Path(__file__).resolve().parents[2]


def cli(home: Path, *args: str) -> Any:
    return CliRunner().invoke(
        app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args]
    )


@pytest.mark.parametrize(
    ("language", "shown", "hidden"),
    [("en", "Analysis:", "Análisis:"), ("es", "Análisis:", "Analysis:")],
)
def test_review_labels_follow_the_concept_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, language: str, shown: str, hidden: str
) -> None:
    monkeypatch.setenv("ZETTELGRAPH_CONCEPT_LANGUAGE", language)
    home = tmp_path / "home"
    started = cli(home, "run", str(REPO / "examples" / "meditations.md"), "--json")
    assert started.exit_code == 0, started.output
    [run] = json.loads(started.stdout)["runs"]
    assert any(c["analysis"] for c in run["report"]["concepts"])
    view = cli(home, "review", run["run_id"])
    assert view.exit_code == 0, view.output
    assert shown in view.stdout and hidden not in view.stdout
