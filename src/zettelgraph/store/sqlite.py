"""The embedded default store: one SQLite file with nodes, relations, vectors and FTS5.

- WAL journal, one `BEGIN IMMEDIATE` transaction per `apply`, so a failing write leaves
  nothing behind.
- Vectors are float32 blobs; search is exact cosine over a numpy matrix that is loaded on
  first use, updated after each successful write, and reloaded when another process has
  written to the file (`PRAGMA data_version`).
- Full-text search uses FTS5 over an analysed copy of each passage (stemmed in its language,
  accent-folded: `sqlite_text.py`), so "aerobico" finds "aeróbico" and "ciudad" "ciudades".
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from zettelgraph.models import (
    Answer,
    AnyNode,
    ChangeSet,
    ItemStatus,
    LearningItem,
    NodeLabel,
    PassageFilter,
    Quote,
    Relation,
    ReviewLog,
    SearchHit,
    Section,
    label_of,
)
from zettelgraph.relations import DEFAULT_VOCABULARY, RelationVocabulary
from zettelgraph.store.base import (
    EmbedderMismatchError,
    EmbeddingInfo,
    IntegrityError,
    StoreError,
    check_expectations,
)
from zettelgraph.store.migrations import MIGRATIONS
from zettelgraph.store.read_memo import ReadMemo
from zettelgraph.store.rules import (
    check_deletions,
    check_dims,
    check_labels,
    check_vector_nodes,
    checked_vectors,
    indexed_text_of,
    name_key,
    relations_to_delete,
    relations_to_write,
    sortable_time,
)
from zettelgraph.store.scope import active_filter
from zettelgraph.store.sqlite_delete import delete_edges, delete_nodes
from zettelgraph.store.sqlite_reads import SQLiteReads, locked
from zettelgraph.store.sqlite_text import index_text, rebuild_text_index
from zettelgraph.store.vector_index import VectorIndex

_LOAD_BATCH = 4096


class SQLiteStore(SQLiteReads):
    """GraphStore on a local SQLite file."""

    def __init__(self, path: Path | str, vocabulary: RelationVocabulary = DEFAULT_VOCABULARY):
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        self.vocabulary = vocabulary
        self._lock = threading.RLock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: we issue BEGIN/COMMIT ourselves.
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(f"cannot open the store at {self.path}: {exc}") from exc
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA busy_timeout=10000")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self._db.close()  # do not leak the handle of a file we refuse
            raise StoreError(
                f"cannot open the store at {self.path}: {exc}. Is it a zettelgraph database? "
                "Point ZETTELGRAPH_STORE elsewhere or move the file away."
            ) from exc
        self._indexes: dict[NodeLabel, VectorIndex] | None = None
        self._seen_version = self._data_version()
        self._memo = ReadMemo(self._db)

    # --- lifecycle -----------------------------------------------------------------------
    @locked
    def close(self) -> None:
        self._db.close()

    def _migrate(self) -> None:
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations "
            "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"
        )
        done = {row[0] for row in self._db.execute("SELECT version FROM schema_migrations")}
        for version, statements in MIGRATIONS:
            if version in done:
                continue
            with self._transaction():
                # Another process may have applied it while we waited for the write lock.
                applied = self._db.execute(
                    "SELECT 1 FROM schema_migrations WHERE version = ?", (version,)
                ).fetchone()
                if applied is not None:
                    continue
                for statement in statements:
                    if isinstance(statement, str):
                        self._db.execute(statement)
                    else:
                        statement(self._db)
                self._db.execute("INSERT INTO schema_migrations(version) VALUES (?)", (version,))

    def _data_version(self) -> int:
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    @locked
    def rebuild_fulltext(self) -> int:
        """Re-analyse every searched node into the full-text index (`zettelgraph reindex`);
        the number of nodes indexed."""
        with self._transaction():
            return rebuild_text_index(self._db)

    # --- embedder ------------------------------------------------------------------------
    @locked
    def embedding_info(self) -> EmbeddingInfo | None:
        rows = dict(
            self._db.execute(
                "SELECT key, value FROM meta WHERE key IN ('embedding_model', 'embedding_dim')"
            ).fetchall()
        )
        if "embedding_model" not in rows:
            return None
        return EmbeddingInfo(model=rows["embedding_model"], dim=int(rows["embedding_dim"]))

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
            info = self.embedding_info()
            if arrays:
                if info is None:
                    raise IntegrityError(
                        "vectors given but no embedder registered: call ensure_embedder"
                    )
                check_dims(arrays, info.dim)
            # Under BEGIN IMMEDIATE no other process writes between this check and the commit.
            check_expectations(changes, self.get_content)
            deleted = self._delete(changes)
            for node in changes.nodes():
                self._upsert_node(node)
            self._write_relations(changes.relations)
            labels = self._write_vectors(arrays)
        self._after_write(arrays, labels, deleted)

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

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db, "BEGIN IMMEDIATE")

    def _snapshot(self) -> _Transaction:
        """A read transaction: several SELECTs that see one consistent state."""
        return _Transaction(self._db, "BEGIN")

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Hold one read transaction: every read until the block ends sees the file as it was
        when it began. In WAL mode the writers of other connections go on meanwhile (the WAL
        grows until the block ends); a long `store copy` reads through one."""
        with self._lock, self._snapshot():
            # A deferred BEGIN takes its snapshot at the first read, not at BEGIN.
            self._db.execute("SELECT count(*) FROM meta").fetchone()
            yield

    def _after_write(
        self,
        arrays: Mapping[str, NDArray[np.float32]],
        labels: Mapping[str, str],
        deleted: Sequence[str] = (),
    ) -> None:
        """Bring the loaded vector indexes up to date with a write this store just made."""
        if self._indexes is None or not (arrays or deleted):
            return
        if self._data_version() != self._seen_version:
            # Another connection committed since the indexes were loaded; patching in only
            # our own rows would hide its writes, so reload on the next search instead.
            self._indexes = None
            return
        for index in self._indexes.values():
            for node_id in deleted:
                index.remove(node_id)
        by_label: dict[str, list[str]] = {}
        for node_id in arrays:
            by_label.setdefault(labels[node_id], []).append(node_id)
        for label, ids in by_label.items():
            matrix = np.stack([arrays[node_id] for node_id in ids])
            index = self._indexes.setdefault(NodeLabel(label), VectorIndex(matrix.shape[1]))
            index.upsert_matrix(ids, matrix)

    @locked
    def vector_search(
        self,
        label: NodeLabel,
        vector: NDArray[np.float32],
        k: int,
        *,
        min_score: float | None = None,
        passages: PassageFilter | None = None,
    ) -> list[SearchHit]:
        chosen = active_filter(label, passages)
        index = self._vector_indexes().get(label)
        if index is None:
            return []
        # A filter: exact numpy over the admitted passages' rows of the cached matrix.
        among = self._scope(chosen) if chosen is not None else None
        return [
            SearchHit(id=node_id, label=label, score=score)
            for node_id, score in index.search(vector, k, min_score, among)
        ]

    def _vector_indexes(self) -> dict[NodeLabel, VectorIndex]:
        # data_version changes only when another connection commits: one cheap PRAGMA per
        # search keeps a long-lived store (web app, CLI) current with other processes.
        version = self._data_version()
        if self._indexes is None or version != self._seen_version:
            self._indexes = self._load_indexes()
            self._seen_version = version
        return self._indexes

    def _load_indexes(self) -> dict[NodeLabel, VectorIndex]:
        indexes: dict[NodeLabel, VectorIndex] = {}
        with self._snapshot():
            info = self.embedding_info()
            if info is None:
                return indexes
            sizes = self._db.execute("SELECT label, count(*) FROM vectors GROUP BY label")
            for label, size in sizes.fetchall():
                index = VectorIndex(info.dim, capacity=size)
                cursor = self._db.execute(
                    "SELECT id, vector FROM vectors WHERE label = ?", (label,)
                )
                while batch := cursor.fetchmany(_LOAD_BATCH):
                    blob = b"".join(row[1] for row in batch)
                    if len(blob) != len(batch) * info.dim * 4:
                        raise StoreError(
                            f"the store at {self.path} holds vectors that are not {info.dim} "
                            "dims; run `zettelgraph reindex` to re-embed them"
                        )
                    matrix = np.frombuffer(blob, dtype=np.float32).reshape(len(batch), info.dim)
                    index.upsert_matrix([row[0] for row in batch], matrix)
                indexes[NodeLabel(label)] = index
        return indexes


class _Transaction:
    """`BEGIN [IMMEDIATE]` ... `COMMIT`, or `ROLLBACK` on any exception."""

    def __init__(self, db: sqlite3.Connection, begin: str) -> None:
        self._db = db
        self._begin = begin

    def __enter__(self) -> None:
        self._db.execute(self._begin)

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self._db.execute("COMMIT")
        else:
            self._db.execute("ROLLBACK")
