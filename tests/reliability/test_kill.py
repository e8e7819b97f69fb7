"""SIGKILL at each event-triggered point of an approval, then recovery: the graph must equal an
uninterrupted run's and `vault sync --check` must be clean (no missing note, no leftover
temporary file). Ten trials per point per backend, varied by the number of quotes.

The points: right after the approval checkpoint (the commit step starts), right after the
store commit (its checkpoint not yet written), and in the middle of a note write (temporary
file written and synced, not yet renamed). The child process kills itself with SIGKILL: no
cleanup, no finally blocks, as when a laptop's lid closes on a dying battery.
"""

from __future__ import annotations

import json
import signal
import textwrap
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from reliability.conftest import DIE_AT_RENAME, Home, ingest, notes_file

TRIALS = 10
POINTS = ("approved", "committed", "note_write")

HOOKS = textwrap.dedent(
    """
    import os, signal
    POINT = {point!r}

    def die():
        os.kill(os.getpid(), signal.SIGKILL)

    if POINT in ("approved", "committed"):
        import zettelgraph.workflows.concept_extraction.nodes_commit as commit_step
        real_commit = commit_step.commit
        def commit(state, services):
            if POINT == "approved":
                die()
            update = real_commit(state, services)
            die()
        commit_step.commit = commit
    """
)


def extract(home: Home, quotes: int) -> str:
    cid = ingest(home, notes_file(home.path.parent / f"{home.path.name}-notes", quotes))
    view = home.json("extract", cid)
    assert view["status"] == "awaiting_review", view
    return str(view["run_id"])


@cache
def reference(quotes: int, tmp: Path) -> dict[str, Any]:
    """The graph of an uninterrupted extraction and approval (SQLite: the shape does not
    depend on the backend)."""
    home = Home(tmp / f"reference-{quotes}", None)
    run_id = extract(home, quotes)
    assert home.json("review", run_id, "--approve")["status"] == "committed"
    return home.shape()


@pytest.mark.parametrize("trial", range(TRIALS))
@pytest.mark.parametrize("point", POINTS)
def test_a_kill_during_approval_recovers_to_the_uninterrupted_graph(
    make_home: Any, point: str, trial: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    quotes = 2 + trial % 3
    home: Home = make_home("home")
    run_id = extract(home, quotes)
    prelude = HOOKS.format(point=point)
    if point == "note_write":
        prelude += DIE_AT_RENAME.format(where="True", nth=1)
    child = home.child(["review", run_id, "--approve"], prelude=prelude)
    out, err = child.communicate(timeout=120)
    assert child.returncode == -signal.SIGKILL, (child.returncode, out, err)

    view = home.json("runs")
    status = next(r["status"] for r in view if r["run_id"] == run_id)
    # Killed after the approval was saved: the run resumes from there, never asks again.
    assert status == "interrupted", status
    resumed = home.cli("resume", run_id, "--json")
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout)["status"] == "committed"

    expected = reference(quotes, tmp_path_factory.getbasetemp() / "kill-reference")
    assert home.shape() == expected
    check = home.cli("vault", "sync", "--check", "--json")
    assert check.exit_code == 0, check.output
    report = json.loads(check.stdout)
    assert report["temp_files"] == [] and report["drift"] == [] and report["errors"] == []
    leftovers = list((home.path / "vault").rglob(".zettelgraph-*.tmp"))
    assert leftovers == []
