"""Copy a whole graph from one store to another (embedded <-> server, either way).

The copy reads one consistent state of the source where the store can give one (SQLite: one
read transaction held for the whole copy; in WAL mode the app's writers are not held up), so
a copy made while the app writes is the graph as it was when the copy began. A server store
(FalkorDB, Neo4j) has no such snapshot: the copy passes over the source again
(`copy_sync.Pass`) until a pass finds nothing to write, copying the nodes written meanwhile
before the relations and vectors that need them; a source that never stops changing ends the
copy with an error that says to run it again when nothing writes.

It writes the target through `apply`, so every backend's own checks run on the way in, and it
is resumable: a pass over a half-copied target writes only what is missing or stale and
deletes what the source no longer has, so running the same copy again after any interruption
(or failure) finishes it. A small progress file records that the copy began, and the ids of
every node it wrote, so a target that holds anything else is refused with the exact command
that empties it. At the end the node counts per label, the relation count and the vector
count of the two stores must be equal, or the copy fails.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from zettelgraph.models import NodeLabel
from zettelgraph.store.base import EmbedderMismatchError, GraphStore, Snapshots, StoreError
from zettelgraph.store.copy_sync import LABEL_FIELDS, PHASES, Pass, PassResult, Progress
from zettelgraph.text.masking import mask_url_password

__all__ = ["LABEL_FIELDS", "PHASES", "CopyError", "CopyReport", "CopyState", "copy_store"]

# Passes over a source without a snapshot: the first copies, each later one copies what was
# written meanwhile; a pass that writes nothing ends the copy.
PASSES = 4


class CopyError(StoreError):
    """The copy cannot start, or its result does not match the source."""


@dataclass
class CopyReport:
    source: str
    target: str
    copied: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PHASES, 0))
    removed: int = 0
    passes: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    resumed: bool = False

    def add(self, result: PassResult) -> None:
        for phase, written in result.written.items():
            self.copied[phase] += written
        self.removed += result.removed
        self.passes += 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "from": mask_url_password(self.source),
            "to": mask_url_password(self.target),
            "copied": self.copied,
            "removed": self.removed,
            "passes": self.passes,
            "counts": self.counts,
            "resumed": self.resumed,
            "verified": True,
        }


class CopyState:
    """A copy from one URL to another that has begun: a JSON file, and beside it the ids of
    every node the copy wrote (recorded before each write, so a kill cannot leave a node of
    the copy's unrecorded)."""

    def __init__(self, folder: Path, source: str, target: str) -> None:
        key = hashlib.sha256(f"{source}\n{target}".encode()).hexdigest()[:16]
        self.path = folder / f"copy-{key}.json"
        self.ids_path = self.path.with_suffix(".ids")
        self.source, self.target = source, target
        self.started = self.path.exists()
        # An earlier version's file ({"done": phases}) has no record of the ids it wrote.
        self.legacy = False
        if self.started:
            try:
                self.legacy = "done" in json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise CopyError(
                    f"the copy's progress file {self.path} cannot be read ({exc}); "
                    f"{start_over(target, self.path)}"
                ) from exc

    def begin(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        record = {
            "from": mask_url_password(self.source),
            "to": mask_url_password(self.target),
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(record), encoding="utf-8")
        tmp.replace(self.path)  # atomic: a crash leaves no file or the whole file
        self.started = True

    def note(self, ids: list[str]) -> None:
        """Record node ids before the copy writes them."""
        if ids:
            with self.ids_path.open("a", encoding="utf-8") as out:
                out.write("".join(f"{node_id}\n" for node_id in ids))

    def written(self) -> set[str] | None:
        """The ids of every node this copy wrote; None when an earlier version began it."""
        if self.legacy:
            return None
        if not self.ids_path.exists():
            return set()
        return set(self.ids_path.read_text(encoding="utf-8").split())

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)
        self.ids_path.unlink(missing_ok=True)


def copy_store(
    source: GraphStore,
    target: GraphStore,
    state_dir: Path,
    *,
    page: int = 1000,
    progress: Progress | None = None,
) -> CopyReport:
    """Copy everything in `source` into `target`; see the module docstring."""
    if source.url == target.url:
        raise CopyError("the source and the target are the same store")
    state = CopyState(state_dir, source.url, target.url)
    report = CopyReport(source.url, target.url, resumed=state.started)
    if state.started:
        _check_owned(target, state)
    elif any(target.counts().values()):
        raise CopyError(
            f"the target {mask_url_password(target.url)} is not empty, and no copy into it "
            "began here: copy into a new, empty store instead (another SQLite file, FalkorDB "
            f"graph or Neo4j database) or, if nothing in it is needed, "
            f"{start_over(target.url, None)}, then run the same command again"
        )
    else:
        state.begin()
    tell = progress or (lambda phase, count: None)
    with _consistent_reads(source) as fixed:
        info = source.embedding_info()
        if info is not None:
            try:
                target.ensure_embedder(info.model, info.dim)
            except EmbedderMismatchError as exc:
                raise CopyError(
                    f"the target records another embedder than the source ({exc}); the "
                    f"source was re-embedded since the copy began: "
                    f"{start_over(target.url, state.path)}, then copy again"
                ) from exc
        result = PassResult()
        counts: tuple[dict[str, int], dict[str, int]] = ({}, {})
        for _ in range(1 if fixed else PASSES):
            result = Pass(source, target, page=page, tell=tell, before_nodes=state.note).run()
            report.add(result)
            counts = (source.counts(), target.counts())
            if fixed or (result.settled and counts[0] == counts[1]):
                break
        _verify(source, target, state, result, counts, fixed=fixed, passes=report.passes)
        report.counts = counts[1]
    state.clear()
    return report


@contextmanager
def _consistent_reads(source: GraphStore) -> Iterator[bool]:
    """Read the source in one snapshot where it has them; whether it has."""
    if isinstance(source, Snapshots):
        with source.snapshot():
            yield True
    else:
        yield False


def _check_owned(target: GraphStore, state: CopyState) -> None:
    """Refuse to resume into a target that holds nodes the copy did not write."""
    written = state.written()
    if written is None:
        return
    foreign: list[str] = []
    for label in NodeLabel:
        after = ""
        while nodes := target.nodes(label, after=after):
            foreign += [node.id for node in nodes if node.id not in written]
            after = nodes[-1].id
    if foreign:
        raise CopyError(
            f"the target {mask_url_password(target.url)} holds {len(foreign)} nodes this copy "
            f"did not write ({', '.join(foreign[:3])}{', ...' if len(foreign) > 3 else ''}): "
            "something else wrote to it since the copy began. Copy into a new, empty store "
            "instead or, if nothing in it is needed, "
            f"{start_over(target.url, state.path)}, then run the same command again"
        )


def _verify(
    source: GraphStore,
    target: GraphStore,
    state: CopyState,
    last: PassResult,
    counts: tuple[dict[str, int], dict[str, int]],
    *,
    fixed: bool,
    passes: int,
) -> None:
    again = "run the same command again to finish it"
    if last.stuck:
        raise CopyError(
            f"the target holds vectors for {last.stuck} nodes that have none in the source "
            f"(the source was re-embedded during the copy?): {start_over(target.url, state.path)}"
            ", then copy again"
        )
    expected, got = counts
    if not fixed and not (last.settled and expected == got):
        raise CopyError(
            f"the source changed during each of the {passes} passes over it (the last wrote "
            f"{sum(last.written.values())}, removed {last.removed}, and left {last.waiting} "
            "relations and vectors waiting for nodes written meanwhile); the target holds every "
            f"node its relations need, but not the latest writes: {again} when nothing writes "
            "to the source (stop `zettelgraph serve` and running commands)"
        )
    if expected != got:
        diff = {
            k: (expected.get(k), got.get(k))
            for k in expected | got
            if expected.get(k) != got.get(k)
        }
        raise CopyError(
            f"the copy does not match its source (source, target): {diff}; {again}, or start "
            f"over: {start_over(target.url, state.path)}"
        )
    if source.embedding_info() != target.embedding_info():
        raise CopyError(
            "the target records another embedder than the source: "
            f"{start_over(target.url, state.path)}, then copy again"
        )


def start_over(target_url: str, progress_file: Path | None) -> str:
    """What deletes a copy's target (and its progress file), in words and as a command."""
    progress = f" {shlex.quote(str(progress_file))}" if progress_file is not None else ""
    also = f" and the copy's progress file {progress_file}" if progress_file is not None else ""
    then = f" && rm -f{progress}" if progress else ""
    parts = urlsplit(target_url)
    scheme = parts.scheme if "://" in target_url else ""
    if scheme in ("falkordb", "falkordbs"):
        from zettelgraph.store.falkordb import DEFAULT_GRAPH, DEFAULT_PORT

        graph = unquote(parts.path.strip("/")) or DEFAULT_GRAPH
        host, port = parts.hostname, parts.port or DEFAULT_PORT
        login = (
            f" --user {shlex.quote(unquote(parts.username))} --askpass" if parts.username else ""
        )
        tls = " --tls" if scheme == "falkordbs" else ""
        command = f"redis-cli -h {host} -p {port}{login}{tls} GRAPH.DELETE {shlex.quote(graph)}"
        return f"delete the graph {graph} on {host}:{port}{also}: `{command}{then}`"
    if scheme.startswith(("neo4j", "bolt")):
        database = unquote(parts.path.strip("/")) or "neo4j"
        address = f"{scheme}://{parts.hostname}:{parts.port or 7687}"
        user = unquote(parts.username or "neo4j")
        command = (
            f"cypher-shell -a {address} -u {shlex.quote(user)} -d {shlex.quote(database)} "
            "'MATCH (n) DETACH DELETE n'"
        )
        return f"delete everything in the database {database} at {address}{also}: `{command}{then}`"
    path = shlex.quote(target_url.removeprefix("sqlite:///"))
    return (
        f"delete the file {target_url.removeprefix('sqlite:///')} (with its -wal and -shm "
        f"files){also}: `rm -f {path} {path}-wal {path}-shm{progress}`"
    )
