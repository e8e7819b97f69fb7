"""`zettelgraph review` item by item: flags for scripts, a decisions file, $EDITOR edits,
and the interactive triage `-i` under a real pseudo-terminal (pexpect), Ctrl-C and resume
included. A real SQLite store and checkpoints; the run comes from scripted fake replies."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pexpect
import pytest
from rdflib import Graph
from typer.testing import CliRunner

from review_run import TITLES, review_run
from zettelgraph.cli.app import app

ZETTELGRAPH = str(Path(sys.executable).parent / "zettelgraph")


def cli(home: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(
        app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args], env=env
    )


def shown(home: Path, run_id: str) -> dict[str, Any]:
    result = cli(home, "review", run_id, "--json")
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)["report"]
    return report


def states(report: dict[str, Any]) -> dict[str, tuple[str, bool]]:
    items = [*report["concepts"], *report["relations"]]
    return {i["key"]: (i["decision"]["verdict"], i["decision"]["decided"]) for i in items}


def test_flags_decide_then_approve_writes_what_was_kept(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run_id = review_run(home)
    listed = cli(home, "review", run_id[:8])  # a prefix names the run
    assert listed.exit_code == 0, listed.output
    assert "c1." in listed.stdout and "r1." in listed.stdout
    assert "0 kept, 0 dropped, 0 edited, 5 undecided" in " ".join(listed.stdout.split())

    done = cli(
        home, "review", run_id, "--keep", "c1", "--drop", "c2,r2", "--retype", "r1=RELATES_TO"
    )
    assert done.exit_code == 0, done.output
    report = shown(home, run_id)
    assert states(report)["c2"] == ("drop", True)
    assert report["review"]["writes"]["concepts"] == 2

    approved = cli(home, "review", run_id, "--approve", "--json")
    assert approved.exit_code == 0, approved.output
    committed = json.loads(approved.stdout)["committed"]
    assert len(committed["concepts"]) == 2 and committed["open_quotes"] == 1
    concepts = json.loads(cli(home, "concepts", "--json").stdout)
    assert sorted(c["title"] for c in concepts) == sorted([TITLES[0], TITLES[2]])


def test_decisions_file_and_its_errors(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run_id = review_run(home)
    good = tmp_path / "decisions.yaml"
    good.write_text(
        "drop: [c3]\nedit:\n  c1: {title: La libertad, concept: Ser libre vale más que el oro.}\n"
        "merge: {c2: c1}\n",
        encoding="utf-8",
    )
    result = cli(home, "review", run_id, "--decisions", str(good), "--approve", "--json")
    assert result.exit_code == 0, result.output
    [concept] = json.loads(cli(home, "concepts", "--json").stdout)
    assert concept["title"] == "La libertad" and concept["quotes"] == 2

    other = review_run(tmp_path / "other")
    broken = tmp_path / "broken.yaml"
    broken.write_text("keep: [c1\ndrop: c2\n", encoding="utf-8")
    bad = cli(tmp_path / "other", "review", other, "--decisions", str(broken))
    assert bad.exit_code == 2 and "broken.yaml, line" in bad.output
    wrong = tmp_path / "wrong.json"
    wrong.write_text('[{"item": "c1", "action": "shout"}]', encoding="utf-8")
    bad = cli(tmp_path / "other", "review", other, "--decisions", str(wrong))
    assert bad.exit_code == 2 and "decision 1" in bad.output and "action" in bad.output
    missing = cli(tmp_path / "other", "review", other, "--keep", "c7")
    assert (
        missing.exit_code == 1 and "no concept 'c7'" in missing.output
    ) or "c7" in missing.output
    assert shown(tmp_path / "other", other)["review"]["decisions"] == 0


def test_edit_in_editor_keeps_the_models_text_as_a_revision(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run_id = review_run(home)
    editor = tmp_path / "editor.sh"
    editor.write_text(f"#!/bin/sh\nsed -i 's/^{TITLES[1]}$/Las obras hacen a la persona/' \"$1\"\n")
    editor.chmod(0o755)
    result = cli(home, "review", run_id, "--edit", "c2", env={"EDITOR": str(editor)})
    assert result.exit_code == 0, result.output
    concept = next(c for c in shown(home, run_id)["concepts"] if c["key"] == "c2")
    assert concept["title"] == "Las obras hacen a la persona"
    assert concept["model_text"] == {"title": TITLES[1]}
    cli(home, "review", run_id, "--approve")
    rows = json.loads(cli(home, "concepts", "--json").stdout)
    edited = next(c for c in rows if c["title"] == "Las obras hacen a la persona")
    detail = json.loads(cli(home, "concept", edited["id"], "--json").stdout)
    assert detail["revisions"][0]["title"] == TITLES[1]
    assert detail["revisions"][0]["by"] == "model"
    # The PROV export says so: the model's text is a revision, the edit the reader's.
    exported = cli(home, "export", "prov", "--concept", edited["id"], "--format", "turtle")
    assert exported.exit_code == 0, exported.output
    graph = Graph().parse(data=exported.stdout, format="turtle")
    rows = list(
        graph.query(
            """PREFIX prov: <http://www.w3.org/ns/prov#>
               SELECT ?older ?where ?who WHERE {
                 ?concept prov:wasRevisionOf ?older .
                 ?edit prov:used ?older ; prov:wasAssociatedWith ?reader .
                 ?reader a prov:Person ; <http://www.w3.org/2000/01/rdf-schema#label> ?who .
                 ?edit ?replaced ?where . FILTER(STRENDS(STR(?replaced), "replacedIn")) }"""
        )
    )
    assert [(str(w), str(r)) for _, w, r in rows] == [("review", "reader")]


def spawn(home: Path, *args: str) -> pexpect.spawn:
    env = {**os.environ, "COLUMNS": "120", "LINES": "50", "TERM": "xterm", "NO_COLOR": "1"}
    env = {k: v for k, v in env.items() if not k.startswith("ZETTELGRAPH_")}
    command = [
        "--home",
        str(home),
        "--llm",
        "fake",
        "--embeddings",
        "hash",
        *args,
    ]
    child = pexpect.spawn(
        ZETTELGRAPH, command, env=env, encoding="utf-8", timeout=60, dimensions=(50, 120)
    )
    return child


@pytest.mark.skipif(not Path(ZETTELGRAPH).exists(), reason="the console script is not installed")
def test_interactive_triage_survives_ctrl_c_and_resumes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run_id = review_run(home)
    child = spawn(home, "review", run_id, "-i")
    child.expect(r"\[1/5\]")
    child.expect("c1.")
    child.expect(r"\[k\]eep")
    child.send("k")
    child.expect(r"\[2/5\]")
    child.expect(r"\[k\]eep")
    child.send("d")
    child.expect(r"\[3/5\]")
    child.expect(r"\[k\]eep")
    child.sendcontrol("c")
    child.expect("decisions are saved")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    decided = states(shown(home, run_id))
    assert decided["c1"] == ("keep", True) and decided["c2"] == ("drop", True)
    assert decided["c3"][1] is False

    # Again: it starts at the first undecided item; back, undo, then on to the end.
    child = spawn(home, "review", run_id, "-i")
    child.expect(r"\[3/5\]")
    child.expect(r"\[k\]eep")
    child.send("b")
    child.expect(r"\[2/5\]")
    child.expect(r"\[k\]eep")
    child.send("u")  # c2 back to undecided, and on
    child.expect(r"\[3/5\]")
    child.expect(r"\[k\]eep")
    child.send("n")
    child.expect(r"\[4/5\]")
    child.expect(r"\[k\]eep")
    child.send("d")  # r1
    child.expect(r"\[5/5\]")
    child.expect(r"\[k\]eep")
    child.send("n")
    child.expect("All items seen")
    child.send("a")
    child.expect("committed")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    concepts = json.loads(cli(home, "concepts", "--json").stdout)
    assert len(concepts) == 3  # c2 undone: kept by default
    by_title = {c["title"]: c for c in concepts}
    assert by_title[TITLES[0]]["relations"] == 0  # r1 (c1 ~ c2) was dropped
    assert by_title[TITLES[2]]["relations"] > 0  # r2 (c2 ~ c3) kept by default
