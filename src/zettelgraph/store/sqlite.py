"""The embedded default store: one SQLite file with nodes, relations, vectors and FTS5.

- WAL journal, one `BEGIN IMMEDIATE` transaction per `apply`, so a failing write leaves
  nothing behind.
- Vectors are float32 blobs; search is exact cosine over a numpy matrix that is loaded on
  first use, updated after each successful write, and reloaded when another process has
  written to the file (`PRAGMA data_version`).
- Full-text search uses FTS5 over an analysed copy of each passage (stemmed in its language,
  accent-folded: `sqlite_text.py`), so "aerobico" finds "aeróbico" and "ciudad" "ciudades".

One class in three modules, as the Cypher store is split: `sqlite_reads.py` (lookups,
relations, counts), `sqlite_search.py` (vector and full-text search, the passage filter) and
this one (opening, the embedder and every write); `sqlite_connection.py` opens and migrates
the file and holds the lock and transaction rules all three use.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from zettelgraph.models import (
    Answer,
    AnyNode,
    ChangeSet,
    ItemStatus,
    LearningItem,
    NodeLabel,
    Proposition,
    Quote,
    Relation,
    ReviewLog,
    Section,
    label_of,
)
from zettelgraph.packs.relations import DEFAULT_VOCABULARY, RelationVocabulary
from zettelgraph.store.base import EmbedderMismatchError, check_expectations
from zettelgraph.store.read_memo import ReadMemo
from zettelgraph.store.rules import (
    check_deletions,
    check_dims,
    check_labels,
    check_vector_nodes,
    check_vectors,
    checked_vectors,
    indexed_text_of,
    name_key,
    relations_to_delete,
    relations_to_write,
    sortable_time,
)
from zettelgraph.store.sqlite_card_index import index_card, index_review
from zettelgraph.store.sqlite_connection import Transaction, connect, locked
from zettelgraph.store.sqlite_delete import delete_edges, delete_nodes
from zettelgraph.store.sqlite_search import TERM_COUNTS_KEPT, SQLiteSearch
from zettelgraph.store.sqlite_text import index_text, rebuild_text_index
from zettelgraph.store.vector_index import VectorIndex

T = TypeVar("T")


class SQLiteStore(SQLiteSearch):
    """GraphStore on a local SQLite file."""

    def __init__(self, path: Path | str, vocabulary: RelationVocabulary = DEFAULT_VOCABULARY):
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        self.vocabulary = vocabulary
        self._lock = threading.RLock()
        self._db = connect(self.path)
        self._indexes: dict[NodeLabel, VectorIndex] | None = None
        self._seen_version = self._data_version()
        self._memo = ReadMemo(self._db)
        self._term_counts = ReadMemo(self._db, size=TERM_COUNTS_KEPT)

    # --- lifecycle -----------------------------------------------------------------------
    @locked
    def close(self) -> None:
        self._db.close()

    @locked
    def remembered(self, key: Hashable, read: Callable[[], list[T]]) -> list[T]:
        """`read()`'s result kept in the read memo (`Remembers`): the graph page's communities
        of 10,000 nodes take about 0.3 s to compute and are reused until a write."""
        return self._memo.get(("remembered", key), read)

    @locked
    def rebuild_fulltext(self) -> int:
        """Re-analyse every searched node into the full-text index (`zettelgraph reindex`);
        the number of nodes indexed."""
        with self._transaction():
            return rebuild_text_index(self._db)

    # --- embedder ------------------------------------------------------------------------
    @locked
    def ensure_embedder(self, model: str, dim: int) -> None:
        info = self.embedding_info()
        if info is None:
            with self._transaction():
                # Re-read under the write lock: two first users must not both register.
                info = self.embedding_info()
                if info is None:
                    self._write_embedding_info(model, dim)
                    return
        if info.model != model or info.dim != dim:
            raise EmbedderMismatchError(
                f"the store at {self.path} holds vectors from {info.model!r} ({info.dim} dims) "
                f"but the configured embedder is {model!r} ({dim} dims). Set "
                f"ZETTELGRAPH_EMBEDDINGS={info.model} to keep using it, or run "
                "`zettelgraph reindex` to re-embed everything with the configured one."
            )

    def _write_embedding_info(self, model: str, dim: int) -> None:
        self._db.executemany(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [("embedding_model", model), ("embedding_dim", str(dim))],
        )

    @locked
    def replace_vectors(
        self, model: str, dim: int, vectors: Mapping[str, NDArray[np.float32]]
    ) -> None:
        arrays = checked_vectors(vectors)
        check_dims(arrays, dim)
        with self._transaction():
            self._db.execute("DELETE FROM vectors")
            self._write_vectors(arrays)
            self._write_embedding_info(model, dim)
        self._indexes = None

    # --- writes --------------------------------------------------------------------------
    @locked
    def apply(self, changes: ChangeSet) -> None:
        arrays = checked_vectors(changes.vectors)
        check_deletions(changes)
        with self._transaction():
            # Read under the write lock so a concurrent `replace_vectors` cannot slip in
            # between the check and the write.
            check_vectors(arrays, self.embedding_info())
            # Under BEGIN IMMEDIATE no other process writes between this check and the commit.
            check_expectations(changes, self.get_content)
            deleted = self._delete(changes)
            for node in changes.nodes():
                self._upsert_node(node)
            self._write_relations(changes.relations)
            self._write_vectors(arrays)
        if arrays or deleted:
            self._after_write()

    @locked
    def record_rating(self, shown: LearningItem, rated: LearningItem, log: ReviewLog) -> bool:
        # The due date compared as the record's JSON stores it (its offset kept).
        due = shown.model_dump(mode="json")["due"]
        label, approved = str(NodeLabel.LEARNING_ITEM), str(ItemStatus.APPROVED)
        with self._transaction():
            changed = self._db.execute(
                "UPDATE nodes SET data = ? WHERE id = ? AND label = ? "
                "AND json_extract(data, '$.status') = ? AND json_extract(data, '$.due') IS ?",
                (rated.model_dump_json(), shown.id, label, approved, due),
            ).rowcount
            if changed != 1:
                return False
            index_card(self._db, rated)
            self._upsert_node(log)
        return True

    def swap_claim(self, key: str, expected: str | None, value: str | None) -> str | None:
        name = f"claim:{key}"
        # Under BEGIN IMMEDIATE no other process writes between the read and the write.
        with self._transaction():
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (name,)).fetchone()
            held = str(row[0]) if row else None
            if held != expected:
                return held
            if value is None:
                self._db.execute("DELETE FROM meta WHERE key = ?", (name,))
            else:
                self._db.execute(
                    "INSERT INTO meta(key, value) VALUES (?, ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (name, value),
                )
        return value

    def _delete(self, changes: ChangeSet) -> list[str]:
        """Delete what `changes` names, before its upserts; the node ids deleted."""
        if changes.delete_relations:
            given = changes.delete_relations
            ends = {end for key in given for end in (key[0], key[2])}
            delete_edges(self._db, relations_to_delete(given, self._labels(ends), self.vocabulary))
        return delete_nodes(self._db, changes.delete_ids) if changes.delete_ids else []

    def _write_vectors(self, arrays: Mapping[str, NDArray[np.float32]]) -> dict[str, str]:
        """Upsert vectors of existing nodes; returns each vector's node label."""
        if not arrays:
            return {}
        labels = self._labels(set(arrays))
        check_vector_nodes(arrays, labels)
        self._db.executemany(
            "INSERT INTO vectors(id, label, dim, vector) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET vector = excluded.vector, dim = excluded.dim",
            [
                (node_id, labels[node_id], array.shape[0], array.tobytes())
                for node_id, array in arrays.items()
            ],
        )
        return labels

    def _upsert_node(self, node: AnyNode) -> None:
        label = label_of(node)
        data = node.model_dump_json()
        # Quotes (passages too) and Sections hang off their Content in reading order, so
        # quotes_of and sections_of are index lookups; a passage's Section is in its record.
        parent: str | None = None
        position: int | None = None
        if isinstance(node, Quote | Section):
            parent, position = node.content_id, node.position
        elif isinstance(node, ReviewLog):
            parent = node.item_id  # an item's history is one index lookup
        elif isinstance(node, Proposition):
            parent, position = node.passage_id, node.position  # a passage's statements, in order
        elif isinstance(node, Answer) and node.chat_id:
            parent, position = node.chat_id, node.turn  # a chat's turns, in order
        row = self._db.execute("SELECT label FROM nodes WHERE id = ?", (node.id,)).fetchone()
        if row is not None:
            check_labels([node], {node.id: row[0]})
        self._db.execute(
            "INSERT INTO nodes(id, label, name_key, parent_id, position, created_at, data) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
            "name_key = excluded.name_key, parent_id = excluded.parent_id, "
            "position = excluded.position, created_at = excluded.created_at, "
            "data = excluded.data",
            (
                node.id,
                str(label),
                name_key(node),
                parent,
                position,
                sortable_time(node.created_at),
                data,
            ),
        )
        if isinstance(node, LearningItem):
            index_card(self._db, node)
        elif isinstance(node, ReviewLog):
            index_review(self._db, node)
        text = indexed_text_of(node)
        if text is not None:
            rowid = self._db.execute("SELECT rowid FROM nodes WHERE id = ?", (node.id,)).fetchone()
            index_text(self._db, rowid[0], node.id, str(label), text)

    def _write_relations(self, relations: Sequence[Relation]) -> None:
        if not relations:
            return
        ids = {r.source_id for r in relations} | {r.target_id for r in relations}
        for relation in relations_to_write(relations, self._labels(ids), self.vocabulary):
            # An existing edge keeps its original properties: a run never rewrites history.
            self._db.execute(
                "INSERT INTO edges(source_id, type, target_id, data, created_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (
                    relation.source_id,
                    relation.type,
                    relation.target_id,
                    json.dumps(relation.properties, ensure_ascii=False, default=str),
                    relation.created_at.isoformat(),
                ),
            )

    def _transaction(self) -> Transaction:
        return Transaction(self._db, "BEGIN IMMEDIATE")
