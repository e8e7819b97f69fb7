"""SIGKILL during a graph extraction, then recovery: `resume` (and the reader's approval, where
the kill came before it) must give exactly the graph of an uninterrupted run (entities with
their properties and provenance, relations, counts), the same commit report, and a vault
`vault sync --check` finds clean.

The points: during the extraction calls (the second of three batches), after the
relationships step returned (its checkpoint not written), after the approval checkpoint
(the commit step starts), after the store commit (its checkpoint not written), in the
middle of an entity note's write, and, on FalkorDB, part-way through a commit too large for
one query. One trial per point per backend. How a child dies: `kills.py`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from reliability.conftest import Home, ingest, notes_file
from reliability.kills import Point, assert_vault_clean, killed, note_write, ok, run_status

WORKFLOW = "zettelgraph.workflows.graph_extraction"
# One passage per extraction call: three calls in parallel, so a kill can land among them.
SETTINGS = {"ZETTELGRAPH_EXTRACTION_BATCH_SIZE": "1"}
QUOTES = 3
# Where the child dies, and whether it was extracting (`graph-extract`) or approving.
POINTS = {
    "extracting": (Point(f"{WORKFLOW}.nodes_extract:extract_batch", "before", 2), "extract"),
    "relationships": (
        Point(f"{WORKFLOW}.nodes_relationships:resolve_relationships", "after"),
        "extract",
    ),
    "approved": (Point(f"{WORKFLOW}.nodes_commit:commit", "before"), "approve"),
    "committed": (Point(f"{WORKFLOW}.nodes_commit:commit", "after"), "approve"),
    "note_write": (note_write(), "approve"),
}
# FalkorDB cannot roll back: a commit larger than one query (forced here, one row per query)
# killed part-way leaves the entities written and their vectors not (the second dies).
PART_WAY = Point(
    "zettelgraph.store.falkordb:FalkorDBStore._run",
    nth=2,
    only="SET n.embedding = vecf32",
    setup="from zettelgraph.store.falkordb import FalkorDBStore\n"
    "FalkorDBStore.atomic_rows = 0\nFalkorDBStore.batch_rows = 1",
)
# What a commit reports that must not depend on a kill before it.
REPORTED = ("relationships", "relationships_dropped_at_commit", "notes_written", "vault_errors")


def start(home: Home) -> str:
    cid = ingest(home, notes_file(home.path.parent / f"{home.path.name}-notes", QUOTES))
    return cid


def report(view: dict[str, Any]) -> dict[str, Any]:
    """A commit's report, ids counted."""
    committed = view["committed"]
    counts = {k: len(committed[k]) for k in ("entities_new", "entities_updated")}
    return {**counts, **{k: committed.get(k) for k in REPORTED}, "status": view["status"]}


@cache
def reference(tmp: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The graph and commit report of an uninterrupted extraction and approval (SQLite: the
    shape does not depend on the backend)."""
    home = Home(tmp / "reference", None, SETTINGS)
    run_id = ok(home, "graph-extract", start(home))["run_id"]
    done = ok(home, "review", run_id, "--approve")
    return home.shape(), report(done)


@pytest.mark.parametrize("point", [*POINTS, "part_way"])
def test_a_kill_during_graph_extraction_recovers_to_the_uninterrupted_graph(
    make_home: Any, backend: str, point: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    if point == "part_way" and backend != "falkordb":
        pytest.skip("SQLite commits in one transaction: there is no part-way")
    base: Home = make_home("home")
    home = Home(base.path, base.store_url, SETTINGS)
    cid = start(home)
    where, during = POINTS.get(point) or (PART_WAY, "approve")
    if during == "extract":
        killed(home, ["graph-extract", cid], where)
        run_id = next(r["run_id"] for r in home.json("runs") if r["content_id"] == cid)
        assert run_status(home, run_id) == "interrupted"
        assert ok(home, "resume", run_id)["status"] == "awaiting_review"
        done = ok(home, "review", run_id, "--approve")
    else:
        run_id = ok(home, "graph-extract", cid)["run_id"]
        killed(home, ["review", run_id, "--approve"], where)
        # Killed after the approval was saved: the run resumes from there, never asks again.
        assert run_status(home, run_id) == "interrupted"
        done = ok(home, "resume", run_id)

    graph, reported = reference(tmp_path_factory.getbasetemp() / "kill-graph-reference")
    assert home.shape() == graph
    assert report(done) == reported
    assert_vault_clean(home)
