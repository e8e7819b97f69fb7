"""SIGKILL at each stage of an experiment, then recovery: `experiment resume` (and the reader's
approval, where the kill came before it) must finish with what an uninterrupted experiment
gives (plan, tool results, synthesis, report, its files and its vault note), and leave no
half-written file in the home or the vault.

The points: after the analysis returned (its checkpoint not written), as the recommendation
starts, among the tool branches (the second of three dies; the first's results are saved),
after the synthesis returned, and in the middle of the report's writes (a result file in the
home, then the vault note). On SQLite only: an experiment reads the store and writes nothing
to it, so what a kill can break is the checkpoints and the files. How a child dies: `kills.py`.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from experiment_books import BOOKS
from reliability.conftest import Home, ingest
from reliability.kills import Point, assert_vault_clean, killed, note_write, ok

WORKFLOW = "zettelgraph.workflows.experiment"
POINTS = {
    "analyzed": (Point(f"{WORKFLOW}.nodes_plan:analyze", "after"), "new"),
    "recommending": (Point(f"{WORKFLOW}.nodes_plan:recommend", "before"), "new"),
    "tools": (Point(f"{WORKFLOW}.nodes_execute:run_tools", "before", 2), "approve"),
    "synthesized": (Point(f"{WORKFLOW}.nodes_synthesis:synthesize", "after"), "approve"),
    "results_write": (note_write(2), "approve"),
    "note_write": (note_write(3), "approve"),
}
# What an experiment's outcome is; its times, ids and model-call log are not.
OUTCOME = (
    "status",
    "stage",
    "type",
    "term",
    "goal",
    "term_context",
    "documents",
    "term_passages",
    "recommended_strategy",
    "decision",
    "approved_strategy",
    "synthesis",
    "evolution",
    "charts",
)
WHEN = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(\+00:00|Z)?")
# The last column of the report's table of tools: how long each took.
SECONDS = re.compile(r"\| [0-9.e-]+ \|$", re.MULTILINE)


def book(home: Home) -> str:
    title, author, _, quotes = BOOKS[0]
    folder = home.path.parent / f"{home.path.name}-notes"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "honra.md"
    body = "\n\n".join(quotes)
    path.write_text(f"---\ntitle: {title}\nauthor: {author}\n---\n\n{body}\n", encoding="utf-8")
    return ingest(home, path)


NEW = ["experiment", "new", "--type", "single_document", "--term", "honra", "--contents"]


def tool_run(run: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in run.items() if k not in ("started_at", "seconds")})


def read(path: Path) -> Any:
    """A file of the experiment, its times taken out."""
    text = path.read_text("utf-8")
    if path.suffix == ".json":
        return sorted(tool_run(run) for run in json.loads(text))
    return SECONDS.sub("| S |", text)


def outcome(home: Home, experiment_id: str) -> str:
    """The experiment's outcome, files and vault note, with its id and times taken out."""
    view = ok(home, "experiment", "show", experiment_id)
    files = {p.name: read(p) for p in sorted(Path(view["report_path"]).parent.iterdir())}
    vault = home.path / "vault"
    notes = {p.relative_to(vault).as_posix(): read(p) for p in sorted(vault.rglob("*.md"))}
    runs = sorted(tool_run(run) for run in view["tool_runs"])
    whole = json.dumps(
        [{k: view[k] for k in OUTCOME}, runs, files, notes], ensure_ascii=False, sort_keys=True
    )
    return WHEN.sub("WHEN", whole.replace(experiment_id, "EXPERIMENT"))


@cache
def reference(tmp: Path) -> str:
    home = Home(tmp / "reference", None)
    experiment_id = ok(home, *NEW, book(home))["id"]
    assert ok(home, "experiment", "review", experiment_id, "--approve")["status"] == "completed"
    return outcome(home, experiment_id)


@pytest.mark.parametrize("backend", ["sqlite"])
@pytest.mark.parametrize("point", POINTS)
def test_a_kill_at_an_experiment_stage_recovers_to_the_uninterrupted_result(
    make_home: Any, point: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    home: Home = make_home("home")
    cid = book(home)
    where, during = POINTS[point]
    if during == "new":
        killed(home, [*NEW, cid], where)
        (listed,) = ok(home, "experiment", "list")
        experiment_id = listed["id"]
        assert listed["status"] == "interrupted"
        assert ok(home, "experiment", "resume", experiment_id)["status"] == "awaiting_review"
        done = ok(home, "experiment", "review", experiment_id, "--approve")
    else:
        experiment_id = ok(home, *NEW, cid)["id"]
        killed(home, ["experiment", "review", experiment_id, "--approve"], where)
        # Killed after the approval was saved: it goes on from there, never asks again.
        assert ok(home, "experiment", "show", experiment_id)["status"] == "interrupted"
        done = ok(home, "experiment", "resume", experiment_id)

    assert done["status"] == "completed"
    expected = reference(tmp_path_factory.getbasetemp() / "kill-experiment-reference")
    assert outcome(home, experiment_id) == expected
    assert_vault_clean(home)
