"""`store copy` while the app writes to the source: the copy is consistent (every relation's
ends are copied), a retry after any interruption finishes it, and a target holding what the
copy did not write is refused with the exact command that empties it.

The writer is another user of the source store: its own connection, in its own thread. To make
the race the same on every run, the copy's progress hook hands over to the writer at the start
of each phase and waits for its write, so the writes land between the copy's reads (on SQLite
and FalkorDB, where a copy without a snapshot saw a relation to a concept it had not copied).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from copy_graph import everything, fill
from reliability.conftest import Home
from store.conftest import Builders, HashEmbedder
from zettelgraph.models import ChangeSet, NodeLabel
from zettelgraph.settings import Settings
from zettelgraph.store import GraphStore, open_store
from zettelgraph.store.copy import LABEL_FIELDS, PHASES, CopyError, CopyState, copy_store


class Writer:
    """The app writing to the source while it is copied: each `write()` adds a concept with its
    vector and a relation to an existing one, rewrites another's text and deletes a third."""

    def __init__(self, url: str, make: Builders) -> None:
        self.make = make
        self.store = open_store(url)
        self.asks: queue.Queue[bool] = queue.Queue()
        self.answers: queue.Queue[BaseException | None] = queue.Queue()
        self.written = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.asks.get():
            try:
                self._write_once()
                self.answers.put(None)
            except BaseException as exc:  # handed to the copy's thread, which fails the test
                self.answers.put(exc)

    def _write_once(self) -> None:
        self.written += 1
        old = sorted(self.store.list_concepts(), key=lambda c: c.title)
        new = self.make.concept(f"Escrito durante la copia {self.written}")
        edited = old[1].model_copy(update={"concept": f"{old[1].concept} (editado)"})
        self.store.apply(
            ChangeSet(
                concepts=[new, edited],
                relations=[self.make.relation(new.id, "SUPPORTS", old[0].id, why="nuevo")],
                vectors=self.make.vectors([new]),
            )
        )
        self.store.apply(ChangeSet(delete_ids=[old[-1].id]))

    def write(self) -> None:
        """One write, in the writer's thread, finished before this returns."""
        self.asks.put(True)
        failed = self.answers.get(timeout=60)
        if failed is not None:
            raise failed

    def stop(self) -> None:
        self.asks.put(False)
        self.thread.join(timeout=60)
        self.store.close()


@pytest.fixture
def stores(make_home: Callable[[str], Home]) -> Iterator[tuple[GraphStore, GraphStore]]:
    """A filled source and an empty target, on the test's backend."""
    opened = [
        open_store(Settings(home=h.path, store=h.store_url).store_url)
        for h in (make_home("source"), make_home("target"))
    ]
    fill(opened[0], Builders(HashEmbedder()))
    yield opened[0], opened[1]
    for store in opened:
        store.close()


@pytest.fixture
def writer(stores: tuple[GraphStore, GraphStore]) -> Iterator[Writer]:
    writer = Writer(stores[0].url, Builders(HashEmbedder()))
    yield writer
    writer.stop()


def ends_exist(store: GraphStore) -> bool:
    ids = {node.id for label in NodeLabel for node in store.nodes(label, limit=1_000_000)}
    return all(r.source_id in ids and r.target_id in ids for r in store.relations())


def test_a_copy_racing_a_writer_is_consistent(
    backend: str, stores: tuple[GraphStore, GraphStore], writer: Writer, tmp_path: Path
) -> None:
    source, target = stores
    before = everything(source)
    seen: set[str] = set()

    def write_at_each_phase(phase: str, count: int) -> None:
        if phase not in seen:  # once per phase: the writer stops, as the app goes quiet
            seen.add(phase)
            writer.write()

    copy_store(source, target, tmp_path / "state", page=5, progress=write_at_each_phase)

    assert {"nodes:Concept", "nodes:Section", "vectors", "relations"} <= seen
    assert writer.written == len(seen)
    assert ends_exist(target)
    now = everything(source)
    assert now != before
    # SQLite: one read transaction, the source as it was when the copy began. FalkorDB has no
    # snapshot: the copy passes again until a pass finds nothing new, the source as it is now.
    assert everything(target) == (before if backend == "sqlite" else now)
    assert not list((tmp_path / "state").iterdir())  # nothing left to resume


@pytest.mark.parametrize("stop_at", ["nodes:Section", "vectors", "relations"])
def test_a_retry_after_an_interrupted_copy_finishes_with_the_writes_made_meanwhile(
    stores: tuple[GraphStore, GraphStore], writer: Writer, tmp_path: Path, stop_at: str
) -> None:
    source, target = stores

    def interrupt(phase: str, count: int) -> None:
        if phase == stop_at:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        copy_store(source, target, tmp_path / "state", page=5, progress=interrupt)
    writer.write()
    writer.write()

    report = copy_store(source, target, tmp_path / "state", page=5)

    assert report.resumed
    assert everything(target) == everything(source)


def test_a_retry_after_a_copy_that_failed_on_missing_nodes_finishes(
    stores: tuple[GraphStore, GraphStore], writer: Writer, tmp_path: Path
) -> None:
    """The state an earlier version left: every node phase marked done in the progress file,
    the nodes copied, then the app wrote a concept and a relation to it (which that version
    then failed on, attempt after attempt, with `relations refer to nodes that do not exist`)."""
    source, target = stores
    info = source.embedding_info()
    assert info is not None
    target.ensure_embedder(info.model, info.dim)
    for label in NodeLabel:
        target.apply(ChangeSet(**{LABEL_FIELDS[label]: source.nodes(label, limit=1_000_000)}))
    state = CopyState(tmp_path / "state", source.url, target.url)
    state.path.parent.mkdir(parents=True)
    done = {phase: "\uffff" for phase in PHASES if phase.startswith("nodes:")}
    state.path.write_text(json.dumps({"done": done}), encoding="utf-8")
    writer.write()

    copy_store(source, target, tmp_path / "state", page=5)

    assert everything(target) == everything(source)


def test_a_target_holding_other_data_is_refused_with_the_command_that_empties_it(
    backend: str, make_home: Callable[[str], Home]
) -> None:
    home, other = make_home("home"), make_home("other")
    source = open_store(Settings(home=home.path, store=home.store_url).store_url)
    fill(source, Builders(HashEmbedder()))
    source.close()
    target_url = Settings(home=other.path, store=other.store_url).store_url
    target = open_store(target_url)
    make = Builders(HashEmbedder())
    target.ensure_embedder(make.embedder.model, make.embedder.dim)
    target.apply(make.book("Otro libro", "Otra autora"))
    before = everything(target)
    target.close()

    refused = home.cli("store", "copy", "--to", target_url)

    assert refused.exit_code == 1
    message = "".join(refused.output.split())  # as printed, wrapped at the terminal's width
    assert "notempty" in message
    if backend == "sqlite":
        path = target_url.removeprefix("sqlite:///")
        assert f"rm-f{path}{path}-wal{path}-shm" in message
    else:
        graph = target_url.rsplit("/", 1)[1]
        assert f"GRAPH.DELETE{graph}" in message
    reopened = open_store(target_url)
    try:
        assert everything(reopened) == before  # nothing written
    finally:
        reopened.close()


def test_a_resumed_copy_refuses_a_target_that_gained_nodes_it_did_not_write(
    stores: tuple[GraphStore, GraphStore], tmp_path: Path
) -> None:
    source, target = stores

    def interrupt(phase: str, count: int) -> None:
        if phase == "vectors":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        copy_store(source, target, tmp_path / "state", page=5, progress=interrupt)
    make = Builders(HashEmbedder())
    stranger = make.concept("Escrito por otro programa")
    target.apply(ChangeSet(concepts=[stranger]))

    with pytest.raises(CopyError) as refused:
        copy_store(source, target, tmp_path / "state", page=5)

    message = str(refused.value)
    assert "did not write" in message and stranger.id in message
    assert str(CopyState(tmp_path / "state", source.url, target.url).path) in message
    assert target.get_concept(stranger.id) is not None  # nothing deleted


WRITER = """
import sys, time
from pathlib import Path
from store.conftest import Builders, HashEmbedder
from zettelgraph.models import ChangeSet
from zettelgraph.store import open_store

store, make, stop, n = open_store(sys.argv[1]), Builders(HashEmbedder()), Path(sys.argv[2]), 0
anchor = min(store.list_concepts(), key=lambda c: c.title)
while not stop.exists():
    n += 1
    new = make.concept(f"Escrito por otro proceso {n}")
    store.apply(ChangeSet(
        concepts=[new],
        relations=[make.relation(new.id, "SUPPORTS", anchor.id, why="nuevo")],
        vectors=make.vectors([new]),
    ))
    time.sleep(0.002)
print(n)
"""


def test_a_copy_racing_a_writing_process_is_consistent_and_a_retry_finishes(
    backend: str, make_home: Callable[[str], Home], tmp_path: Path
) -> None:
    """Not in lockstep: another process writes concepts and relations as fast as it can for
    the whole copy, through the real CLI command."""
    home, other = make_home("home"), make_home("other")
    source_url = Settings(home=home.path, store=home.store_url).store_url
    source = open_store(source_url)
    fill(source, Builders(HashEmbedder()))
    target_url = Settings(home=other.path, store=other.store_url).store_url
    stop = tmp_path / "stop"
    tests = Path(__file__).parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tests), *sys.path])}
    writing = subprocess.Popen(
        [sys.executable, "-c", WRITER, source_url, str(stop)], env=env, stdout=subprocess.PIPE
    )
    try:
        while source.counts()["Concept"] < 36:  # the writer is at work
            time.sleep(0.01)
        first = home.cli("store", "copy", "--to", target_url)
    finally:
        stop.touch()
        writes = int(writing.communicate(timeout=60)[0])
    target = open_store(target_url)
    try:
        assert ends_exist(target)
        if backend == "sqlite":  # one snapshot: nothing to catch up
            assert first.exit_code == 0, first.output
        elif first.exit_code != 0:  # the writer outran every pass; now it has stopped
            assert "when nothing writes to the source" in " ".join(first.output.split())
            retry = home.cli("store", "copy", "--to", target_url)
            assert retry.exit_code == 0, retry.output
            assert everything(target) == everything(source)
        assert writes > 3
    finally:
        target.close()
        source.close()


KILL_AFTER_WRITE = """
import os, signal
from zettelgraph.store.cypher import CypherStore
from zettelgraph.store.sqlite import SQLiteStore

# The copy writes only to its target: die right after its Nth write, before anything else.
written = [0]
for store_class in (SQLiteStore, CypherStore):
    def write_then_die(self, changes, _original=store_class.apply):
        _original(self, changes)
        written[0] += 1
        if written[0] == int(os.environ["ZG_TEST_KILL_AFTER"]):
            os.kill(os.getpid(), signal.SIGKILL)
    store_class.apply = write_then_die
"""


@pytest.mark.parametrize("kill_after", [2, 5, 7])
def test_a_killed_copy_is_finished_by_running_it_again_after_the_app_wrote(
    make_home: Callable[[str], Home], kill_after: int
) -> None:
    """SIGKILL right after one of the copy's writes (nodes of one label, vectors, ...), then
    the app writes to the source, then the same command again."""
    home, other = make_home("home"), make_home("other")
    source = open_store(Settings(home=home.path, store=home.store_url).store_url)
    fill(source, Builders(HashEmbedder()))
    target_url = Settings(home=other.path, store=other.store_url).store_url

    killed = home.child(
        ["store", "copy", "--to", target_url],
        prelude=KILL_AFTER_WRITE,
        env={"ZG_TEST_KILL_AFTER": str(kill_after)},
    )
    killed.communicate(timeout=120)
    writer = Writer(source.url, Builders(HashEmbedder()))
    try:
        writer.write()
    finally:
        writer.stop()
    again = home.cli("store", "copy", "--to", target_url, "--json")

    assert killed.returncode == -signal.SIGKILL
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["resumed"] is True
    target = open_store(target_url)
    try:
        assert everything(target) == everything(source)
    finally:
        target.close()
        source.close()
