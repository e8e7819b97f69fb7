"""Two processes at once on the same book or the same run: one wins, the other is told why in
words that send it nowhere harmful, and the graph holds everything once.

The fake model answers with a little latency so both processes are really in flight together.
Two "machines" (homes with lock folders of their own, one store and one checkpoint database)
meet at a barrier after each has looked for an open run and found none: only the store can
tell them apart then.
"""

from __future__ import annotations

import json
import multiprocessing
import textwrap
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from reliability.conftest import Home, ingest, notes_file
from zettelgraph.models import ChangeSet, utcnow
from zettelgraph.services import study
from zettelgraph.settings import Settings
from zettelgraph.store import open_store

# Races per backend and case: each has a child process of its own that must lose (3 x 20
# cases: about 3 minutes of the suite, where 5 took 5).
TRIALS = 3
SLOW = "fake:latency=0.05"


def slow(home: Home) -> Home:
    """The same home, its model answering after a short delay."""

    class Slow(Home):
        @property
        def env(self) -> dict[str, str]:
            return {**super().env, "ZETTELGRAPH_LLM": SLOW}

    return Slow(home.path, home.store_url, home.settings)


def both(home: Home, args: list[str]) -> list[tuple[int, str, str]]:
    children = [home.child(args) for _ in range(2)]
    outputs = [c.communicate(timeout=180) for c in children]
    return [(c.returncode, out, err) for c, (out, err) in zip(children, outputs, strict=True)]


def reference(tmp: Path, quotes: int) -> dict[str, Any]:
    home = Home(tmp / "reference", None)
    cid = ingest(home, notes_file(tmp / "reference-notes", quotes))
    run = home.json("extract", cid)
    assert home.json("review", run["run_id"], "--approve")["status"] == "committed"
    return home.shape()


@pytest.mark.parametrize("trial", range(TRIALS))
def test_two_processes_extracting_one_book_start_one_run(
    make_home: Any, tmp_path: Path, trial: int
) -> None:
    home = slow(make_home("home"))
    cid = ingest(home, notes_file(tmp_path / "notes", 3))
    results = both(home, ["extract", cid, "--json"])
    won = [json.loads(out) for code, out, _ in results if code == 0]
    lost = [err for code, _, err in results if code != 0]
    assert len(won) == 1 and len(lost) == 1, results
    assert won[0]["status"] == "awaiting_review"
    assert "being started" in lost[0] or won[0]["run_id"] in lost[0], lost[0]
    runs = [r for r in home.json("runs") if r["content_id"] == cid]
    assert [r["run_id"] for r in runs] == [won[0]["run_id"]]
    assert home.json("review", won[0]["run_id"], "--approve")["status"] == "committed"
    assert home.shape() == reference(tmp_path, 3)


def test_a_second_extract_while_the_first_awaits_review_is_refused(
    make_home: Any, tmp_path: Path
) -> None:
    home = make_home("home")
    cid = ingest(home, notes_file(tmp_path / "notes", 3))
    first = home.json("extract", cid)
    again = home.cli("extract", cid)
    assert again.exit_code == 1
    assert first["run_id"] in again.stderr and "waiting for review" in again.stderr
    # --force does not open a second run either: force is for a processed content.
    assert home.cli("extract", cid, "--force").exit_code == 1
    assert home.json("review", first["run_id"], "--approve")["status"] == "committed"
    assert home.shape() == reference(tmp_path, 3)


@pytest.mark.parametrize("trial", range(TRIALS))
def test_two_processes_approving_one_run_commit_it_once(
    make_home: Any, tmp_path: Path, trial: int
) -> None:
    home = slow(make_home("home"))
    cid = ingest(home, notes_file(tmp_path / "notes", 3))
    run_id = home.json("extract", cid)["run_id"]
    results = both(home, ["review", run_id, "--approve", "--json"])
    won = [json.loads(out) for code, out, _ in results if code == 0]
    lost = [err for code, _, err in results if code != 0]
    assert len(won) == 1 and len(lost) == 1, results
    assert won[0]["status"] == "committed"
    # The loser is told a decision is under way or done, never to `resume`.
    assert "in progress" in lost[0] or "committed, not waiting" in lost[0], lost[0]
    assert "resume" not in lost[0]
    assert home.shape() == reference(tmp_path, 3)


def test_a_run_started_before_another_committed_the_book_writes_nothing(
    make_home: Any, tmp_path: Path
) -> None:
    """The store's own check: a run whose content another run committed since it started
    (here, a second run forced after the first was approved) is superseded, not doubled."""
    home = make_home("home")
    cid = ingest(home, notes_file(tmp_path / "notes", 3))
    first = home.json("extract", cid)["run_id"]
    assert home.json("review", first, "--approve")["status"] == "committed"
    shape = home.shape()
    second = home.json("extract", cid, "--force")["run_id"]
    # Another writer commits the book meanwhile (as a run on another machine sharing the
    # store would): its processed date moves.
    store = open_store(Settings(home=home.path, store=home.store_url).store_url)
    try:
        content = store.get_content(cid)
        assert content is not None
        store.apply(ChangeSet(contents=[content.model_copy(update={"processed_date": utcnow()})]))
    finally:
        store.close()
    view = home.json("review", second, "--approve")
    assert view["status"] == "superseded"
    assert any("committed by another run" in w for w in view["warnings"])
    assert home.shape()["concepts"] == shape["concepts"]


# --- one rating per shown card (issue 28, item 4) -----------------------------------------

RATERS = 6


def _rate_in_a_process(
    url: str, item_id: str, seen: str, second: int, start: Any, outcomes: Any
) -> None:
    """One process rating the card shown as `seen`: what a second browser tab, a double
    click served by another worker, or another machine sharing the store does."""
    store = open_store(url)
    try:
        start.wait()
        when = datetime(2026, 11, 27, 12, 0, second, tzinfo=UTC)
        scheduler = study.scheduler_for(Settings())
        study.rate(store, scheduler, item_id, 3, now=when, seen=seen)
        outcomes.put("rated")
    except study.AlreadyRatedError as exc:
        outcomes.put(f"already: {exc}")
    finally:
        store.close()


def _race(url: str, item_id: str, trial: int) -> list[str]:
    """RATERS processes rating the card `item_id` as it is now, at once; what each was told."""
    store = open_store(url)
    try:
        [shown] = store.get_learning_items([item_id])
    finally:
        store.close()
    # Forked where the system can (the children start with everything imported), so all
    # are ready at the barrier within moments; spawned elsewhere.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    start, outcomes = context.Barrier(RATERS), context.Queue()
    seen = study.seen_mark(shown)
    raters = [
        context.Process(
            target=_rate_in_a_process,
            args=(url, item_id, seen, trial * RATERS + n, start, outcomes),
        )
        for n in range(RATERS)
    ]
    for rater in raters:
        rater.start()
    for rater in raters:
        rater.join(timeout=180)
    return sorted(outcomes.get(timeout=10) for _ in raters)


def test_processes_rating_one_shown_card_at_once_store_one_rating(
    make_home: Any, tmp_path: Path
) -> None:
    """Issue 28, item 4: a double click stored two ratings in 4 of 12 trials. A lock in one
    process cannot see other processes: here each rating is a process of its own, all
    released together (three races, each on the card as the last one left it), and the
    store's compare-and-set lets exactly one through each time."""
    home = make_home("home")
    cid = ingest(home, notes_file(tmp_path / "notes", 3))
    assert home.json("review", home.json("extract", cid)["run_id"], "--approve")
    assert home.cli("cards", "generate", "--json").exit_code == 0
    assert home.cli("cards", "approve", "--all").exit_code == 0
    [card, *_] = home.json("cards", "list", "--status", "approved")
    url = Settings(home=home.path, store=home.store_url).store_url
    for trial in range(TRIALS):
        results = _race(url, card["id"], trial)
        assert results[-1] == "rated" and results.count("rated") == 1, (trial, results)
        assert all("was rated a moment ago" in r for r in results[:-1]), results
        store = open_store(url)
        try:
            logs = store.review_logs(card["id"])
            [item] = store.get_learning_items([card["id"]])
        finally:
            store.close()
        # One more rating each time, and the schedule moved once, by the rating kept.
        assert len(logs) == trial + 1 and logs[0].state_before is None
        assert item.due == logs[-1].due
        assert datetime.fromisoformat(item.schedule["last_review"]) == logs[-1].reviewed_at


# Each child, once it has looked for an open run of the content (and found none), waits until
# the other has looked too: both go on to start a run, as two machines would at one moment.
MET_AFTER_LOOKING = textwrap.dedent(
    """
    import os, pathlib, time
    import zettelgraph.services.runs as _runs
    _looked = _runs.WorkflowRuns.open_run_of
    _met = []

    def _open_run_of(self, content_id):
        found = _looked(self, content_id)
        if not _met:
            _met.append(True)
            folder = pathlib.Path({folder!r})
            (folder / str(os.getpid())).touch()
            deadline = time.monotonic() + 60
            while len(list(folder.iterdir())) < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
        return found

    _runs.WorkflowRuns.open_run_of = _open_run_of
    """
)


def machines(make_home: Any, backend: str, tmp_path: Path, request: Any) -> list[Home]:
    """Two homes (each its own lock folder, as on two machines) sharing one store and one
    checkpoint database: a shared SQLite file, or FalkorDB with PostgreSQL checkpoints."""
    if backend == "falkordb":
        store = make_home("shared").store_url
        checkpoints = request.getfixturevalue("postgres_database_url")
    else:
        store = f"sqlite:///{tmp_path / 'shared' / 'zettelgraph.db'}"
        checkpoints = f"sqlite:///{tmp_path / 'shared' / 'checkpoints.db'}"
    settings = {"ZETTELGRAPH_CHECKPOINTS": checkpoints}
    return [Home(tmp_path / name, store, settings) for name in ("machine-a", "machine-b")]


@pytest.mark.parametrize("command", ["extract", "graph-extract"])
def test_two_machines_starting_a_run_of_one_book_start_one(
    make_home: Any, backend: str, tmp_path: Path, request: pytest.FixtureRequest, command: str
) -> None:
    """No lock file is shared: the store's claim on the content decides alone. One trial per
    workflow: the meeting point makes every trial the worst case."""
    one, other = machines(make_home, backend, tmp_path, request)
    cid = ingest(one, notes_file(tmp_path / "notes", 3))
    folder = tmp_path / "met"
    folder.mkdir()
    prelude = MET_AFTER_LOOKING.format(folder=str(folder))
    children = [home.child([command, cid, "--json"], prelude=prelude) for home in (one, other)]
    outputs = [c.communicate(timeout=180) for c in children]
    results = [(c.returncode, out, err) for c, (out, err) in zip(children, outputs, strict=True)]
    won = [json.loads(out) for code, out, _ in results if code == 0]
    lost = [" ".join(err.split()) for code, _, err in results if code != 0]
    assert len(won) == 1 and len(lost) == 1, results
    assert won[0]["status"] == "awaiting_review"
    assert won[0]["run_id"] in lost[0], lost[0]
    runs = [r for r in one.json("runs") if r["content_id"] == cid]
    assert [r["run_id"] for r in runs] == [won[0]["run_id"]]
