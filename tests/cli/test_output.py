"""Text shown as written: titles, quotes, paths, hints and errors holding square brackets (or
`:name:`) pass through every command that prints them unchanged, byte for byte, while the
CLI's own styling still applies (real files, a real store, the fake LLM)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.cli.output import count, styled

# Each one is read as markup (or an emoji) by a plain Rich console.
CORPUS = [
    "Brackets [and] Markup",
    "[sic]",
    "[bold]x[/bold]",
    "[link=https://x]y[/link]",
    "a [/] b",
    "\\[escaped]",
    ":thumbs_up:",
]
TITLE, AUTHOR = "Brackets [and] Markup", "Autor [sic]"
NOTES = f"""---
title: {TITLE}
author: {AUTHOR}
---

# Citas

Primera cita con [sic] en medio, tal como la escribió el autor.
12

Segunda cita: el texto [bold]x[/bold] no debe ponerse en negrita nunca.

Tercera cita con un enlace [link=https://x]y[/link] que no es un enlace.

Cuarta cita donde a [/] b sigue igual que en el libro original.

Quinta cita con \\[escaped] y también :thumbs_up: sin emoji alguno.

Simplify.
"""
QUOTES = [line for line in NOTES.splitlines() if line.endswith(("autor.", "nunca.", "enlace."))]
QUOTES += [line for line in NOTES.splitlines() if line.startswith(("Cuarta", "Quinta"))]


@pytest.fixture
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    # Wide enough that no table cell or line wraps inside a string the tests look for.
    monkeypatch.setenv("COLUMNS", "400")


def run(home: Path, *args: str) -> Any:
    result = CliRunner().invoke(
        app,
        ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args],
        catch_exceptions=False,
    )
    return result


def shows_all(output: str, texts: list[str]) -> None:
    missing = [text for text in texts if text not in output]
    assert missing == [], output


def test_bracket_text_reaches_every_command_as_written(tmp_path: Path, wide: None) -> None:
    home = tmp_path / "home"
    folder = tmp_path / "notas [borrador]"
    folder.mkdir()
    notes = folder / "brackets [x].md"
    notes.write_text(NOTES, encoding="utf-8")
    (folder / "plain [sic].md").write_text("# An article\n\nJust prose.\n", encoding="utf-8")

    ingested = run(home, "ingest", str(folder))
    assert ingested.exit_code == 0, ingested.output
    # The table's title and author, the warning naming the file, the skipped file's path.
    shows_all(ingested.output, [TITLE, AUTHOR, f"{notes}: line 19", str(folder / "plain [sic].md")])

    content_id = json.loads(run(home, "contents", "--json").stdout)[0]["id"]
    shows_all(run(home, "contents").stdout, [TITLE, AUTHOR])
    shows_all(run(home, "show", content_id[:8]).stdout, [TITLE, AUTHOR, *QUOTES])

    extracted = run(home, "extract", content_id[:8])
    assert extracted.exit_code == 0, extracted.output
    run_id = re.search(r"run (run-[0-9a-f]+)", extracted.stdout)
    assert run_id is not None, extracted.stdout
    shows_all(extracted.stdout, [TITLE])
    shown = run(home, "review", run_id.group(1)).stdout
    shows_all(shown, [TITLE, *QUOTES])
    shows_all(run(home, "runs").stdout, [TITLE])

    approved = run(home, "review", run_id.group(1), "--approve")
    assert approved.exit_code == 0, approved.output
    concept_id = json.loads(run(home, "concepts", "--json").stdout)[0]["id"]
    renamed = "[bold]x[/bold] y [sic] :thumbs_up:"
    edited = run(home, "concept", "edit", concept_id[:8], "--title", renamed)
    assert edited.exit_code == 0, edited.output
    shows_all(edited.stdout, [renamed])
    shows_all(run(home, "concepts").stdout, [renamed])
    shows_all(run(home, "concept", concept_id[:8]).stdout, [renamed])

    found = run(home, "search", "cita enlace escaped negrita libro autor").stdout
    shows_all(found, [TITLE, AUTHOR])
    assert any(quote in found for quote in QUOTES), found

    # Errors: what the reader typed comes back in the message as typed.
    for text in CORPUS:
        failed = run(home, "show", text)
        assert failed.exit_code == 1
        assert repr(text) in failed.stderr, failed.stderr


def test_an_install_hint_keeps_its_extra(tmp_path: Path, wide: None) -> None:
    checked = run(tmp_path, "--llm", "nosuch:model", "doctor")
    assert checked.exit_code == 1
    assert "pip install 'zettelgraph[local]'" in checked.stdout, checked.stdout


@pytest.mark.parametrize("text", CORPUS)
def test_styled_fills_markup_with_text_as_written(text: str) -> None:
    console = Console(markup=False, emoji=False, width=200, record=True)
    console.print(styled("[bold]{}[/] and [dim]{}[/]", text, text + "\\"))
    assert console.export_text() == f"{text} and {text}\\\n"


def test_count_says_one_and_many() -> None:
    assert count(1, "run") == "1 run"
    assert count(0, "content") == "0 contents"
    assert count(2, "entity", "entities") == "2 entities"
