"""Folders of notes: a plain Markdown file a scan skips says how to include it, and `--type`
never turns stored book notes into a document without `--replace-kind` (real files, real
store, fake LLM)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from zettelgraph.cli.app import app

NOTES = """---
title: Niebla
author: Miguel de Unamuno
---

# Citas

Al aparecer Augusto a la puerta de su casa extendió el brazo derecho, con la mano palma abajo.
7

No es que Augusto fuese un paseante, sino que aguardaba a que pasara un perro.
"""


def run(home: Path, *args: str) -> Any:
    return CliRunner().invoke(
        app,
        ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args],
        catch_exceptions=False,
    )


def test_a_skipped_plain_markdown_file_says_how_to_include_it(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "niebla.md").write_text(NOTES, encoding="utf-8")
    plain = folder / "plain.md"
    plain.write_text("# An article\n\nPlain prose about fog and dogs.\n", encoding="utf-8")
    done = run(tmp_path / "home", "ingest", str(folder), "--json")
    assert done.exit_code == 0, done.output
    (skipped,) = json.loads(done.stdout)["skipped"]
    assert skipped["path"] == str(plain)
    assert f"zettelgraph ingest --type markdown {plain}" in skipped["reason"]
    assert "add one" not in skipped["reason"]
    # The hint works as written.
    included = run(tmp_path / "home", "ingest", "--type", "markdown", str(plain), "--json")
    assert included.exit_code == 0, included.output
    assert json.loads(included.stdout)["contents"][0]["kind"] == "markdown"


def test_type_never_turns_book_notes_into_a_document_silently(tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "niebla.md").write_text(NOTES, encoding="utf-8")
    assert run(home, "ingest", str(folder)).exit_code == 0
    (before,) = json.loads(run(home, "contents", "--json").stdout)
    quotes = json.loads(run(home, "show", before["id"], "--json").stdout)["quotes"]

    refused = run(home, "ingest", "--type", "markdown", str(folder), "--json")
    assert refused.exit_code == 1
    (error,) = json.loads(refused.stdout)["errors"]
    message = error["error"]
    assert "'Niebla' is stored as book notes" in message
    assert "--replace-kind" in message and "--type notes" in message
    assert str(folder / "niebla.md") in message
    # Nothing changed: still book notes with the same quotes.
    after = json.loads(run(home, "show", before["id"], "--json").stdout)
    assert after["kind"] == "book"
    assert after["quotes"] == quotes

    replaced = run(home, "ingest", "--type", "markdown", "--replace-kind", str(folder), "--json")
    assert replaced.exit_code == 0, replaced.output
    assert json.loads(replaced.stdout)["contents"][0]["kind"] == "markdown"
