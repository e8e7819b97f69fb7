"""SIGKILL at each event-triggered point of an approval, then recovery: the graph must equal an
uninterrupted run's and `vault sync --check` must be clean (no missing note, no leftover
temporary file). Ten trials per point per backend, varied by the number of quotes.

The points: right after the approval checkpoint (the commit step starts), right after the
store commit (its checkpoint not yet written), and in the middle of a note write (temporary
file written and synced, not yet renamed). How a child dies: `kills.py`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from reliability.conftest import Home, ingest, notes_file
from reliability.kills import Point, assert_vault_clean, killed, note_write, ok, run_status

TRIALS = 4  # quotes 2, 3, 4, 2: each count at each point, within the suite's time
COMMIT = "zettelgraph.workflows.concept_extraction.nodes_commit:commit"
POINTS = {
    "approved": Point(COMMIT, "before"),
    "committed": Point(COMMIT, "after"),
    "note_write": note_write(),
}


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
    killed(home, ["review", run_id, "--approve"], POINTS[point])

    # Killed after the approval was saved: the run resumes from there, never asks again.
    assert run_status(home, run_id) == "interrupted"
    assert ok(home, "resume", run_id)["status"] == "committed"

    expected = reference(quotes, tmp_path_factory.getbasetemp() / "kill-reference")
    assert home.shape() == expected
    assert_vault_clean(home)
