"""Copy a whole graph from one store to another (embedded <-> server, either way).

The copy reads the source page by page through the GraphStore protocol and writes the
target through `apply`, so every backend's own checks run on the way in. It is resumable:
after each page it records how far it got in a small progress file, and every write is an
idempotent upsert, so a copy that was interrupted (even mid-page) is finished by running it
again. At the end the node counts per label, the relation count and the vector count of the
two stores must be equal, or the copy fails.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from zettelgraph.models import ChangeSet, NodeLabel, Relation
from zettelgraph.settings import mask_url_password
from zettelgraph.store.base import GraphStore, StoreError

# Nodes before vectors before relations: what a page refers to is always already there.
# Node phases may run in any order among themselves: a node refers to others only by plain
# fields (a passage's `parent_id`, an Answer's citations), which no store checks; the edges
# that link them (IN_SECTION, SECTION_OF, CITES) come with the relations, after all nodes.
PHASES = [*(f"nodes:{label}" for label in NodeLabel), "vectors", "relations"]
# The ChangeSet field that carries each label's nodes.
LABEL_FIELDS = {
    NodeLabel.CONTENT: "contents",
    NodeLabel.PERSON: "persons",
    NodeLabel.QUOTE: "quotes",
    NodeLabel.CONCEPT: "concepts",
    NodeLabel.SECTION: "sections",
    NodeLabel.ANSWER: "answers",
    NodeLabel.LEARNING_ITEM: "learning_items",
    NodeLabel.REVIEW_LOG: "review_logs",
    NodeLabel.ENTITY: "entities",
    NodeLabel.REMOVAL: "removals",
}
Progress = Callable[[str, int], None]


class CopyError(StoreError):
    """The copy cannot start, or its result does not match the source."""


@dataclass
class CopyReport:
    source: str
    target: str
    copied: dict[str, int] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    resumed: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "from": mask_url_password(self.source),
            "to": mask_url_password(self.target),
            "copied": self.copied,
            "counts": self.counts,
            "resumed": self.resumed,
            "verified": True,
        }


class CopyState:
    """How far a copy from one URL to another got, kept in a JSON file between attempts."""

    def __init__(self, folder: Path, source: str, target: str) -> None:
        key = hashlib.sha256(f"{source}\n{target}".encode()).hexdigest()[:16]
        self.path = folder / f"copy-{key}.json"
        self.done: dict[str, str] = {}
        if self.path.exists():
            self.done = dict(json.loads(self.path.read_text(encoding="utf-8"))["done"])

    @property
    def started(self) -> bool:
        return self.path.exists()

    def mark(self, phase: str, after: str) -> None:
        self.done[phase] = after
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"done": self.done}), encoding="utf-8")
        tmp.replace(self.path)  # atomic: a crash leaves the old or the new state

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)


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
    if not state.started and any(target.counts().values()):
        raise CopyError(
            f"the target {mask_url_password(target.url)} is not empty; copy into an empty "
            "store (a new SQLite file, FalkorDB graph or Neo4j database)"
        )
    info = source.embedding_info()
    if info is not None:
        target.ensure_embedder(info.model, info.dim)
    tell = progress or (lambda phase, count: None)
    for phase in PHASES:
        after = state.done.get(phase)
        if after == "\uffff":  # phase finished in an earlier attempt
            continue
        copied = 0
        for changes, last in _pages(source, phase, after or "", page):
            target.apply(changes)
            state.mark(phase, last)
            copied += len(changes.nodes()) + len(changes.relations) + len(changes.vectors)
            tell(phase, copied)
        state.mark(phase, "\uffff")
        report.copied[phase] = copied
    report.counts = _verify(source, target)
    state.clear()
    return report


def _pages(
    source: GraphStore, phase: str, after: str, page: int
) -> Iterator[tuple[ChangeSet, str]]:
    """ChangeSets of about `page` items of one phase, each with the key it ends at."""
    if phase.startswith("nodes:"):
        label = NodeLabel(phase.removeprefix("nodes:"))
        while nodes := source.nodes(label, after=after, limit=page):
            after = nodes[-1].id
            yield ChangeSet(**{LABEL_FIELDS[label]: nodes}), after
    elif phase == "vectors":
        batch: dict[str, NDArray[np.float32]] = {}
        for node_id, vector in source.vectors():
            if node_id <= after:
                continue
            batch[node_id] = vector
            if len(batch) >= page:
                yield ChangeSet(vectors=batch), node_id
                batch = {}
        if batch:
            yield ChangeSet(vectors=batch), max(batch)
    else:
        # A relation and its reverse travel in the same page, so the target stores the
        # reverse as it is in the source instead of inferring it anew.
        pairs: dict[tuple[str, str], list[Relation]] = {}
        for relation in source.relations():
            pair = min(relation.source_id, relation.target_id)
            other = max(relation.source_id, relation.target_id)
            pairs.setdefault((pair, other), []).append(relation)
        chunk: list[Relation] = []
        for key in sorted(pairs):
            marker = f"{key[0]}\t{key[1]}"
            if marker <= after:
                continue
            chunk.extend(pairs[key])
            if len(chunk) >= page:
                yield ChangeSet(relations=chunk), marker
                chunk = []
        if chunk:
            yield ChangeSet(relations=chunk), marker


def _verify(source: GraphStore, target: GraphStore) -> dict[str, int]:
    expected, got = source.counts(), target.counts()
    if expected != got:
        diff = {
            k: (expected.get(k), got.get(k))
            for k in expected | got
            if expected.get(k) != got.get(k)
        }
        raise CopyError(
            f"the copy does not match its source (source, target): {diff}; run the same "
            "copy again to finish it"
        )
    if source.embedding_info() != target.embedding_info():
        raise CopyError("the target records another embedder than the source")
    return got
