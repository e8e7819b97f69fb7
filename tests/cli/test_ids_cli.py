"""Ids as a reader types them, on the README's examples with the fake LLM and a real SQLite
store: the first characters of a run, experiment, content or concept id (with or without its
`run-`/`exp-`), refused when too short or unknown; `runs` at 80 columns keeps every id on one
line; `export prov --run` takes a prefix; listed quotes are cut with an ellipsis, whole with
`review --full`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zettelgraph.cli.app import app

REPO = Path(__file__).resolve().parents[2]
# A passage longer than the 160 characters a listing shows of it.
LONG = (
    "Don Quijote de la Mancha salió una mañana de julio por la puerta falsa de su corral, "
    "armado de todas sus armas, sobre su flaco Rocinante, con grandísimo contento y alborozo "
    "de ver con cuánta facilidad había dado principio a su buen deseo."
)


def cli(home: Path, *args: str, **env: str) -> Any:
    return CliRunner().invoke(
        app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args], env=env
    )


def ok(result: Any) -> Any:
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/ ingested and extracted: three runs waiting for review."""
    home = tmp_path_factory.mktemp("ids") / "home"
    with pytest.MonkeyPatch.context() as env:
        for name in [n for n in os.environ if n.startswith("ZETTELGRAPH_")]:
            env.delenv(name)
        ok(cli(home, "run", str(REPO / "examples"), "--json"))
    return home


def runs(home: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(ok(cli(home, "runs", "--json")).stdout)
    return rows


def test_a_run_is_named_by_its_first_characters_with_or_without_run(home: Path) -> None:
    run_id = runs(home)[0]["run_id"]
    body = run_id.removeprefix("run-")
    for given in (body[:4], f"run-{body[:4]}", run_id):
        shown = json.loads(ok(cli(home, "review", given, "--json")).stdout)
        assert shown["run_id"] == run_id

    short = cli(home, "review", body[:3])
    assert short.exit_code == 1 and "at least its first 4 characters" in short.output
    unknown = cli(home, "review", "ffff" if not body.startswith("ffff") else "eeee")
    assert unknown.exit_code == 1 and "no run with id" in unknown.output
    assert "`zettelgraph runs` lists them" in unknown.output
    other_kind = cli(home, "review", f"graph-{body[:6]}")
    assert other_kind.exit_code == 1 and "no run with id" in other_kind.output


def test_runs_at_80_columns_keeps_every_id_on_one_line(home: Path) -> None:
    table = ok(cli(home, "runs", COLUMNS="80")).stdout
    assert max(len(line) for line in table.splitlines()) <= 80
    for run in runs(home):
        assert run["run_id"] in table


def test_export_prov_of_a_run_by_its_prefix(home: Path) -> None:
    run_id = runs(home)[-1]["run_id"]
    ok(cli(home, "review", run_id, "--approve"))
    whole = ok(cli(home, "export", "prov", "--run", run_id)).stdout
    for given in (run_id[:8], run_id.removeprefix("run-")[:5]):
        assert ok(cli(home, "export", "prov", "--run", given)).stdout == whole
    assert "urn:zettelgraph:concept/" in whole


def test_contents_concepts_and_experiments_by_prefix(home: Path) -> None:
    contents = json.loads(ok(cli(home, "contents", "--json")).stdout)
    content_id = contents[0]["id"]
    shown = json.loads(ok(cli(home, "show", content_id[:4], "--json")).stdout)
    assert shown["id"] == content_id
    concepts = json.loads(ok(cli(home, "concepts", "--json")).stdout)
    if concepts:
        concept_id = concepts[0]["id"]
        assert json.loads(ok(cli(home, "concept", concept_id[:5], "--json")).stdout)["id"] == (
            concept_id
        )

    new = ("experiment", "new", "--term", "vida", "--contents", content_id[:6], "--match", "exact")
    # The term's domain (issue 31) is bounded like its other parts, and named when too long.
    long = cli(home, *new, "--domain", "d" * 101)
    assert long.exit_code == 1 and "--domain: String should have at most 100" in long.output
    started = ok(cli(home, *new, "--domain", " filosofía "))
    experiment_id = json.loads(ok(cli(home, "experiment", "list", "--json")).stdout)[0]["id"]
    assert experiment_id in started.stdout
    body = experiment_id.removeprefix("exp-")
    for given in (f"exp-{body[:4]}", body[:4]):
        shown = json.loads(ok(cli(home, "experiment", "show", given, "--json")).stdout)
        assert shown["id"] == experiment_id
        assert shown["term"]["match"] == "exact"  # the exact concordance, as asked
        assert shown["term"]["domain"] == "filosofía"
    missing = cli(home, "experiment", "show", "exp-zzzz")
    assert missing.exit_code == 1 and "no experiment with id 'exp-zzzz'" in missing.output


def test_listed_quotes_are_cut_with_an_ellipsis_or_shown_whole(tmp_path: Path) -> None:
    home = tmp_path / "home"
    notes = tmp_path / "salida.md"
    notes.write_text(
        f'---\ntitle: "Salida"\nauthor: Cervantes\n---\n\n# Citas\n\n> {LONG}\n\nPágina 1\n',
        encoding="utf-8",
    )
    content_id = json.loads(ok(cli(home, "ingest", str(notes), "--json")).stdout)["contents"][0][
        "id"
    ]
    run = json.loads(
        ok(cli(home, "graph-extract", content_id, "--pack", "narrative", "--json")).stdout
    )
    assert run["report"]["entities"], "the fake names at least one entity"

    def passages(shown: str) -> list[str]:
        return [line.strip() for line in shown.splitlines() if line.strip().startswith("> ")]

    cut = ok(cli(home, "review", run["run_id"], COLUMNS="400")).stdout
    assert passages(cut) and all(p.endswith("…") and len(p) <= 162 for p in passages(cut))
    assert f"zettelgraph review {run['run_id']} --full" in cut
    whole = ok(cli(home, "review", run["run_id"], "--full", COLUMNS="400")).stdout
    assert passages(whole) and all(p == f"> {LONG}" for p in passages(whole))
    assert "--full` shows" not in whole
