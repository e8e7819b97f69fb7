"""The small things a new user meets in the first hour: effective settings, readable doctor
lines, plurals, one notice, --version, help in words, `vault sync --check`, a re-run `store
copy`, `ask` on an empty store, the first join of the offline model (real store, fake LLM)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.llm.local import LocalModel, ensure_model_file
from zettelgraph.services.ask import NOTHING_INGESTED

REPO = Path(__file__).resolve().parents[2]
WALDEN = REPO / "examples" / "walden.md"


def run(home: Path, *args: str, llm: str = "fake") -> Any:
    return CliRunner().invoke(
        app,
        ["--home", str(home), "--llm", llm, "--embeddings", "hash", *args],
        catch_exceptions=False,
    )


def test_config_shows_the_effective_model_dependent_values(tmp_path: Path) -> None:
    shown = json.loads(run(tmp_path, "config", "--json").stdout)
    assert shown["llm"] == "fake"
    assert shown["llm_fast"] == "fake"
    for name in (
        "extraction_batch_size",
        "self_critique",
        "cover_quotes",
        "compact_answers",
        "max_concurrency",
        "tesseract",
    ):
        assert shown[name] != "", name
    # The values the settings' own rules give for this model, not a copy of them.
    assert shown["extraction_batch_size"] == "40"
    assert shown["max_concurrency"] == "16"
    local = json.loads(run(tmp_path, "config", "--json", llm="local:0.5b").stdout)
    assert (local["extraction_batch_size"], local["max_concurrency"]) == ("1", "1")
    assert local["self_critique"] == "False"
    assert local["compact_answers"] == "True"


def test_doctor_prints_readable_lines(tmp_path: Path) -> None:
    checked = run(tmp_path, "doctor")
    assert checked.exit_code == 0, checked.output
    lines = checked.stdout.splitlines()
    assert any(line.startswith("ok") and "store" in line for line in lines)
    assert "{" not in checked.stdout  # no dict repr
    assert "ok=False" not in checked.stdout
    assert "empty" in checked.stdout  # a new store's counts


def test_plurals_and_one_notice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    done = run(tmp_path, "run", str(WALDEN))
    assert done.exit_code == 0, done.output
    # `run` opens the services twice (ingest, then extraction): the notice is said once.
    assert done.stderr.count("Using the fake LLM") == 1, done.stderr
    assert re.search(r"LLM: 1 call,|LLM: \d+ calls,", done.stdout)
    assert "1 calls" not in done.stdout
    assert re.search(r"^ *1 content *$", run(tmp_path, "contents").stdout, re.M)
    assert re.search(r"^ *1 run *$", run(tmp_path, "runs").stdout, re.M)


def test_version() -> None:
    shown = CliRunner().invoke(app, ["--version"])
    assert shown.exit_code == 0
    assert re.fullmatch(r"zettelgraph \d+\.\d+\.\d+\S*\n", shown.stdout)


def test_help_names_values_in_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    for command in (["review", "--help"], ["ingest", "--help"], ["cards", "approve", "--help"]):
        shown = CliRunner().invoke(app, command).stdout
        assert "<" not in shown, shown
    review = CliRunner().invoke(app, ["review", "--help"]).stdout
    assert re.search(r"--keep\s+TEXT\.\.\.", review)
    assert re.search(r"--approve\s+FLAG", review)
    assert "[RUN_ID]" in review


def test_vault_sync_check_does_not_say_written(tmp_path: Path) -> None:
    checked = run(tmp_path, "vault", "sync", "--check")
    assert checked.exit_code == 0, checked.output
    assert "written" in checked.stdout and "0 written" not in checked.stdout
    assert "nothing written (--check)" in checked.stdout
    synced = run(tmp_path, "vault", "sync")
    assert "0 written, 0 updated" in synced.stdout


def test_store_copy_prints_no_counts_before_an_error(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert run(home, "ingest", str(WALDEN)).exit_code == 0
    target = f"sqlite:///{tmp_path / 'copy.db'}"
    first = run(home, "store", "copy", "--to", target)
    assert first.exit_code == 0, first.output
    assert "verified: Content 1" in first.stdout
    assert "Content: 1" not in first.stderr  # no per-phase counts left behind
    again = run(home, "store", "copy", "--to", target)
    assert again.exit_code == 1
    assert again.stderr.startswith("error: the target"), again.stderr
    assert again.stdout == ""


def test_ask_on_an_empty_store_says_how_to_ingest(tmp_path: Path) -> None:
    asked = run(tmp_path, "ask", "¿Qué es vivir deliberadamente?")
    assert asked.exit_code == 0, asked.output
    flat = " ".join(asked.stdout.split())
    assert " ".join(NOTHING_INGESTED.split()) in flat
    assert "zettelgraph ingest PATH" in flat


def test_the_first_join_of_the_offline_model_is_said_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A tiny model of the same shape as the shipped ones: one real chunk package on sys.path.
    data = b"gguf bytes of a tiny model"
    package = tmp_path / "site" / "zgtiny_weights_part1" / "data"
    package.mkdir(parents=True)
    (package.parent / "__init__.py").write_text("", encoding="utf-8")
    (package / "part01.bin").write_bytes(data)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    tiny = LocalModel(
        key="tiny",
        file_name="tiny.gguf",
        package_prefix="zgtiny_weights_part",
        parts=1,
        sha256=hashlib.sha256(data).hexdigest(),
        size=1_117_320_768,  # said as the default model's size
        extra="local",
    )
    said: list[str] = []
    path = ensure_model_file(tiny, tmp_path / "models", on_join=said.append)
    assert path.read_bytes() == data
    assert len(said) == 1 and "\n" not in said[0]
    assert "local:tiny (1.1 GB)" in said[0]
    ensure_model_file(tiny, tmp_path / "models", on_join=said.append)
    assert len(said) == 1  # joined once: nothing more to say


def test_the_review_line_counts_one_doubtful_item_in_the_singular() -> None:
    from zettelgraph.cli.report_view import review_line

    one = review_line({"counts": {"undecided": 3, "doubtful": 1}, "writes": {"concepts": 2}})
    assert "(1 doubtful item, left out unless you keep them)" in one
    assert "writes 2 concepts, 0 relations" in one
    two = review_line({"counts": {"doubtful": 2}, "writes": {"concepts": 1, "relations": 1}})
    assert "2 doubtful items" in two and "writes 1 concept, 1 relation" in two


def test_config_shows_the_embedders_thresholds_and_the_ones_you_set(tmp_path: Path) -> None:
    """Unset, a cosine threshold is the configured embedder's, shown as a number."""
    shown = json.loads(run(tmp_path, "config", "--json").stdout)
    assert shown["duplicate_threshold"] == "0.6"  # hash: USE's numbers
    e5 = CliRunner().invoke(
        app,
        ["--home", str(tmp_path), "--llm", "fake", "--embeddings", "e5-small", "config", "--json"],
    )
    assert json.loads(e5.stdout)["duplicate_threshold"] == "0.932"
    pinned = CliRunner().invoke(
        app,
        ["--home", str(tmp_path), "--llm", "fake", "config", "--json"],
        env={"ZETTELGRAPH_GROUNDING_THRESHOLD": "0.5"},
    )
    assert json.loads(pinned.stdout)["grounding_threshold"] == "0.5"
