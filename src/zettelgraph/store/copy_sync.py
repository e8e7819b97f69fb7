"""One pass of `store copy`: make the target hold what the source holds, kind by kind.

Each kind (a label's nodes, the vectors, the relations) is walked in the same order on both
sides (by id; relations by their pair of ends), so a pass holds a page of each side at a time,
writes what the target lacks or holds otherwise, and deletes what the source no longer has.
Over an empty target a pass is a plain copy; over a half-copied one it finishes the copy (the
earlier attempt may have read an older source); over a finished one it writes nothing.

Nodes before vectors before relations: a vector or a relation is written only once the nodes
it needs are in the target. One whose node appeared in the source after that node's label was
passed (a writer at work on a server store, which has no snapshot) waits for the next pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from zettelgraph.models import AnyNode, ChangeSet, NodeLabel, Relation, RelationKey
from zettelgraph.store.base import GraphStore

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
    NodeLabel.PROPOSITION: "propositions",
}
Progress = Callable[[str, int], None]
T = TypeVar("T")
Vector = tuple[str, NDArray[np.float32]]


@dataclass
class PassResult:
    """What one pass changed in the target, and what it could not settle yet."""

    written: dict[str, int] = field(default_factory=lambda: dict.fromkeys(PHASES, 0))
    removed: int = 0
    # Vectors and relations whose nodes reached the source after their label was passed.
    waiting: int = 0
    # Vectors the target holds for a node the source keeps without one: a copy cannot remove
    # a vector alone (a store deletes vectors with their nodes).
    stuck: int = 0

    @property
    def settled(self) -> bool:
        """Nothing written, removed or left over: the target held what the source held."""
        return not (sum(self.written.values()) or self.removed or self.waiting or self.stuck)


class Pass:
    """One pass from `source` into `target`, writing pages of about `page` items.

    `before_nodes` is told the ids of every page of nodes before the page is written (the
    record of what the copy wrote, which tells its own nodes from anyone else's)."""

    def __init__(
        self,
        source: GraphStore,
        target: GraphStore,
        *,
        page: int,
        tell: Progress,
        before_nodes: Callable[[list[str]], None],
    ) -> None:
        self.source, self.target, self.page = source, target, page
        self.tell, self.before_nodes = tell, before_nodes
        self.result = PassResult()
        self.present: set[str] = set()  # ids in the target after the node phases

    def run(self) -> PassResult:
        for label in NodeLabel:
            self._nodes(label)
        self._vectors()
        self._relations()
        return self.result

    def _write(self, phase: str, changes: ChangeSet, written: int, removed: int) -> None:
        self.target.apply(changes)
        self.result.written[phase] += written
        self.result.removed += removed
        self.tell(phase, self.result.written[phase])

    def _nodes(self, label: NodeLabel) -> None:
        phase, name = f"nodes:{label}", LABEL_FIELDS[label]
        upserts: list[AnyNode] = []
        gone: list[str] = []

        def flush() -> None:
            if upserts or gone:
                self.before_nodes([node.id for node in upserts])
                changes = ChangeSet(**{name: upserts}, delete_ids=gone)
                self._write(phase, changes, len(upserts), len(gone))
                upserts.clear()
                gone.clear()

        mine_pages = _pages(lambda after: self.source.nodes(label, after=after, limit=self.page))
        their_pages = _pages(lambda after: self.target.nodes(label, after=after, limit=self.page))
        for mine, theirs in _merge(mine_pages, their_pages, _node_id):
            if mine is not None:
                self.present.add(mine.id)
                if mine != theirs:
                    upserts.append(mine)
            elif theirs is not None and theirs.id not in self.present:
                # (An id already seen in the source is one this pass just wrote, met again
                # on a later page of the target.)
                gone.append(theirs.id)
            if len(upserts) + len(gone) >= self.page:
                flush()
        flush()

    def _vectors(self) -> None:
        batch: dict[str, NDArray[np.float32]] = {}
        written: set[str] = set()

        def flush() -> None:
            if batch:
                self._write("vectors", ChangeSet(vectors=dict(batch)), len(batch), 0)
                batch.clear()

        for mine, theirs in _merge(self.source.vectors(), self.target.vectors(), _vector_id):
            if mine is not None:
                node_id, vector = mine
                if node_id not in self.present:
                    self.result.waiting += 1
                elif theirs is None or theirs[1].tobytes() != vector.tobytes():
                    batch[node_id] = vector
                    written.add(node_id)
            elif theirs is not None and theirs[0] not in written:
                self.result.stuck += 1
            if len(batch) >= self.page:
                flush()
        flush()

    def _relations(self) -> None:
        # A relation and its reverse travel in the same page, so the target stores the
        # reverse as it is in the source instead of inferring it anew.
        mine, theirs = _by_pair(self.source.relations()), _by_pair(self.target.relations())
        upserts: list[Relation] = []
        gone: list[RelationKey] = []
        for pair in sorted(mine.keys() | theirs.keys()):
            want, have = mine.get(pair, []), theirs.get(pair, [])
            if want == have:
                continue
            if want and not (pair[0] in self.present and pair[1] in self.present):
                self.result.waiting += len(want)
                continue
            # Deletions come first in a ChangeSet: a relation whose properties changed is
            # deleted and written again in one write.
            gone.extend(relation.key for relation in have)
            upserts.extend(want)
            if len(upserts) + len(gone) >= self.page:
                changes = ChangeSet(relations=upserts, delete_relations=gone)
                self._write("relations", changes, len(upserts), len(gone))
                upserts, gone = [], []
        if upserts or gone:
            changes = ChangeSet(relations=upserts, delete_relations=gone)
            self._write("relations", changes, len(upserts), len(gone))


def _node_id(node: AnyNode) -> str:
    return node.id


def _vector_id(item: Vector) -> str:
    return item[0]


def _pages(read: Callable[[str], list[AnyNode]]) -> Iterator[AnyNode]:
    """Every node `read(after)` gives, page after page, by id."""
    after = ""
    while nodes := read(after):
        yield from nodes
        after = nodes[-1].id


def _merge(
    mine: Iterable[T], theirs: Iterable[T], key: Callable[[T], str]
) -> Iterator[tuple[T | None, T | None]]:
    """Two streams sorted by `key`, side by side: (both), (mine, None) or (None, theirs)."""
    left, right = iter(mine), iter(theirs)
    a, b = next(left, None), next(right, None)
    while a is not None or b is not None:
        if b is None or (a is not None and key(a) < key(b)):
            yield a, None
            a = next(left, None)
        elif a is None or key(b) < key(a):
            yield None, b
            b = next(right, None)
        else:
            yield a, b
            a, b = next(left, None), next(right, None)


def _by_pair(relations: list[Relation]) -> dict[tuple[str, str], list[Relation]]:
    """Relations by their unordered pair of ends, each list in one order on every store."""
    pairs: dict[tuple[str, str], list[Relation]] = {}
    for relation in relations:
        ends = sorted((relation.source_id, relation.target_id))
        pairs.setdefault((ends[0], ends[1]), []).append(relation)
    for found in pairs.values():
        found.sort(key=lambda relation: relation.key)
    return pairs
