"""`concept edit`, `concept delete`, `unlink`, `contents remove` and `removals` as a reader
runs them: a real SQLite store and vault, the hash embedder, the fake LLM (for the run that
holds a content open), `$EDITOR` a real program."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from correction_graph import Library, make_library
from zettelgraph.cli.app import app
from zettelgraph.context import open_services
from zettelgraph.settings import Settings

REPO = Path(__file__).resolve().parents[2]


def run(home: Path, *args: str, **env: str) -> Any:
    return CliRunner().invoke(
        app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args], env=env
    )


def said(result: Any) -> str:
    """The output with Rich's line wrapping undone."""
    return " ".join(result.output.split())


@pytest.fixture
def library(tmp_path: Path) -> Library:
    services = open_services(Settings(home=tmp_path, llm="fake", embeddings="hash"))
    try:
        return make_library(services)
    finally:
        services.close()


def test_edit_with_flags_and_in_the_editor(tmp_path: Path, library: Library) -> None:
    concept = library.concepts["deliberate"]
    edited = run(tmp_path, "concept", "edit", concept.title, "--statement", "Elegir.", "--json")
    assert edited.exit_code == 0, edited.output
    data = json.loads(edited.stdout)
    assert data["changed"] == ["concept"] and data["revision"]["by"] == "model"
    assert data["notes_updated"] == [concept.id]

    # No flag: the editor opens the concept's text under its headings; this "reader" keeps
    # the title and statement and writes an analysis.
    script = tmp_path / "editor.py"
    script.write_text(
        "import sys, pathlib\n"
        "p = pathlib.Path(sys.argv[1])\n"
        "text = p.read_text(encoding='utf-8')\n"
        "assert '## Title\\nVivir deliberadamente\\n' in text and 'Elegir.' in text\n"
        "p.write_text(text.replace('## Analysis\\n', '## Analysis\\nMi lectura.\\n'), "
        "encoding='utf-8')\n",
        encoding="utf-8",
    )
    editor = f"{sys.executable} {script}"
    in_editor = run(tmp_path, "concept", "edit", concept.id[:8], EDITOR=editor, VISUAL="")
    assert in_editor.exit_code == 0, in_editor.output
    assert "edited 'Vivir deliberadamente'" in said(in_editor) and "analysis" in said(in_editor)
    shown = json.loads(run(tmp_path, "concept", concept.id[:8], "--json").stdout)
    assert shown["analysis"] == "Mi lectura."
    assert [r["by"] for r in shown["revisions"]] == ["model", "reader"]

    # The export says who edited it, when, and what it replaced.
    exported = run(tmp_path, "export", "prov", "--concept", concept.id, "--format", "turtle")
    assert exported.exit_code == 0, exported.output
    assert "prov:wasRevisionOf" in exported.stdout and "zg:Edit" in exported.stdout

    script.write_text("import sys, pathlib\npathlib.Path(sys.argv[1]).write_text('')\n")
    emptied = run(tmp_path, "concept", "edit", concept.id, EDITOR=editor, VISUAL="")
    assert emptied.exit_code == 2 and "nothing changed" in said(emptied)


def test_refused_edits_name_the_problem(tmp_path: Path, library: Library) -> None:
    concept = library.concepts["deliberate"]
    clash = run(tmp_path, "concept", "edit", concept.id, "--title", "simplicidad VOLUNTARIA")
    assert clash.exit_code == 1
    assert "another concept is titled 'Simplicidad voluntaria'" in said(clash)
    empty = run(tmp_path, "concept", "edit", concept.id, "--statement", "  ")
    assert empty.exit_code == 1 and "statement cannot be empty" in said(empty)
    unknown = run(tmp_path, "concept", "edit", "Nadie", "--title", "Otro")
    assert unknown.exit_code == 1 and "no concept" in said(unknown)


def test_delete_shows_what_goes_and_needs_yes_off_a_terminal(
    tmp_path: Path, library: Library
) -> None:
    concept = library.concepts["deliberate"]
    asked = run(tmp_path, "concept", "delete", concept.title)
    assert asked.exit_code == 2
    text = said(asked)
    assert "Vivir deliberadamente -[GENERALIZES]-> Simplicidad voluntaria" in text
    assert "2 cards that test it" in text and "add --yes" in text
    assert json.loads(run(tmp_path, "concepts", "--json").stdout)[0]["title"]  # all still there
    assert len(json.loads(run(tmp_path, "concepts", "--json").stdout)) == 4

    done = run(tmp_path, "concept", "delete", concept.id[:8], "--yes", "--json")
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert (data["title"], data["attributions"], len(data["relations"])) == (
        concept.title,
        1,
        4,
    )
    assert data["notes_removed"] == [concept.id]
    assert len(json.loads(run(tmp_path, "concepts", "--json").stdout)) == 3
    gone = run(tmp_path, "concept", concept.id)
    assert gone.exit_code == 1 and "no concept" in said(gone)


def test_unlink_with_and_without_a_type(tmp_path: Path, library: Library) -> None:
    c = library.concepts
    one = run(tmp_path, "unlink", c["simple"].title, c["exercise"].id[:8])
    assert one.exit_code == 0, one.output
    assert "removed Simplicidad voluntaria -[SIMILAR_TO]-> Ejercicio y cerebro" in said(one)
    assert "and Ejercicio y cerebro -[SIMILAR_TO]-> Simplicidad voluntaria" in said(one)

    typed = run(tmp_path, "unlink", c["deliberate"].id, "generalizes", c["simple"].id, "--json")
    assert typed.exit_code == 0, typed.output
    data = json.loads(typed.stdout)
    assert (data["type"], len(data["removed"]), len(data["cards"])) == ("GENERALIZES", 2, 1)
    shown = json.loads(run(tmp_path, "concept", c["simple"].id, "--json").stdout)
    assert shown["relations"] == []

    again = run(tmp_path, "unlink", c["deliberate"].id, c["simple"].id)
    assert again.exit_code == 1 and "are not related" in said(again)
    alone = run(tmp_path, "unlink", c["deliberate"].id)
    assert alone.exit_code == 2 and "A [TYPE] B" in said(alone)
    listed = json.loads(run(tmp_path, "removals", "--json").stdout)
    assert [r["kind"] for r in listed] == ["relation", "relation"]
    assert listed[0]["title"] == "Vivir deliberadamente -[GENERALIZES]-> Simplicidad voluntaria"


def test_a_content_with_an_open_run_is_kept_until_the_run_is_decided(tmp_path: Path) -> None:
    home = tmp_path / "home"
    started = run(home, "run", str(REPO / "examples" / "walden.md"), "--json")
    assert started.exit_code == 0, started.output
    [pending] = json.loads(started.stdout)["runs"]
    content_id = pending["content_id"]

    refused = run(home, "contents", "remove", content_id[:8], "--yes")
    assert refused.exit_code == 1
    assert f"open extraction run {pending['run_id']} (awaiting_review)" in said(refused)
    assert f"zettelgraph review {pending['run_id']} --abort" in said(refused)

    approved = run(home, "review", pending["run_id"], "--approve", "--json")
    assert approved.exit_code == 0, approved.output
    concepts = json.loads(run(home, "concepts", "--json").stdout)
    assert concepts

    listed = run(home, "contents")  # the list is still the default
    assert listed.exit_code == 0 and "Walden" in listed.output
    asked = run(home, "contents", "remove", content_id[:8])
    assert asked.exit_code == 2
    assert f"{len(concepts)} concept{'s' if len(concepts) > 1 else ''} only it" in said(asked)
    assert "its author Henry David Thoreau goes" in said(asked)
    removed = run(home, "contents", "remove", content_id, "--yes", "--json")
    assert removed.exit_code == 0, removed.output
    data = json.loads(removed.stdout)
    assert len(data["concepts"]) == len(concepts) and data["author_removed"]
    assert len(data["notes_removed"]) == len(concepts)
    assert json.loads(run(home, "contents", "--json").stdout) == []
    assert json.loads(run(home, "concepts", "--json").stdout) == []
    check = run(home, "vault", "sync", "--check", "--json")
    assert check.exit_code == 0 and json.loads(check.stdout)["drift"] == []
    table = run(home, "removals")
    assert "content" in said(table) and "Walden" in said(table)


def test_on_a_terminal_a_deletion_asks(
    tmp_path: Path, library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A person at the terminal answers the prompt (CliRunner's stdin is not a terminal).
    monkeypatch.setattr("zettelgraph.cli.corrections.on_a_terminal", lambda: True)
    concept = library.concepts["exercise"]
    kept = CliRunner().invoke(
        app,
        ["--home", str(tmp_path), "--embeddings", "hash", "concept", "delete", concept.id],
        input="n\n",
    )
    assert kept.exit_code == 1 and "Delete 'Ejercicio y cerebro'?" in kept.output
    assert "nothing removed" in said(kept)
    gone = CliRunner().invoke(
        app,
        ["--home", str(tmp_path), "--embeddings", "hash", "concept", "delete", concept.id],
        input="y\n",
    )
    assert gone.exit_code == 0, gone.output
    assert "deleted 'Ejercicio y cerebro'" in said(gone)


def test_removing_a_content_lists_what_stays_but_changes(tmp_path: Path, library: Library) -> None:
    asked = run(tmp_path, "contents", "remove", library.books["walden"].id[:8])
    assert asked.exit_code == 2
    text = said(asked)
    assert "2 concepts only it supports: Simplicidad voluntaria; Vivir deliberadamente" in text
    assert "stay, losing its quotes: Vivir con poco" in text
    assert "stay, losing their relations to those that go: Ejercicio y cerebro" in text
    assert "its author Henry David Thoreau stays" in text
