"""Search in the SQLite store: vector search over matrices kept in memory (exact, or through
an approximate index past a size), FTS5 full-text search, and the passage filter applied
inside both.

Kept apart from `sqlite.py` (writes) and `sqlite_reads.py` so each stays readable, as the
Cypher store's `cypher_search.py` is. The vectors of each label are loaded into a numpy
matrix (`VectorIndex`) on the first search, then patched with the rows of `vector_changes`
(a log the triggers of migration 5 keep) after each write of this store and whenever another
connection has committed (`PRAGMA data_version`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from zettelgraph.models import NodeLabel, PassageFilter, SearchHit
from zettelgraph.store.base import StoreError
from zettelgraph.store.read_memo import ReadMemo
from zettelgraph.store.scope import active_filter, author_keys, in_places, kind_keys
from zettelgraph.store.sqlite_connection import locked
from zettelgraph.store.sqlite_reads import SQLiteReads
from zettelgraph.store.sqlite_text import match_of, term_documents
from zettelgraph.store.text_terms import TEXT_CANDIDATES, candidate_terms, rarest_pair
from zettelgraph.store.vector_index import ANN_THRESHOLD, VectorIndex
from zettelgraph.text.stemming import analyze_query

_LOAD_BATCH = 4096
# Terms whose document counts are kept between searches (an int and a short string each).
TERM_COUNTS_KEPT = 20_000


class SQLiteSearch(SQLiteReads):
    """Vector and full-text search over the `vectors` and `node_text` tables."""

    path: Path
    _indexes: dict[NodeLabel, VectorIndex] | None
    _seen_version: int
    # Each query term's document count, kept until the store changes: FTS5's vocabulary
    # counts a term's documents by walking its whole list (a common stem at a million
    # passages: 2-13 ms of a question's full-text search), and questions share their terms.
    _term_counts: ReadMemo
    # The last `vector_changes.seq` the loaded indexes hold.
    _seen_change: int = 0
    # Up to this many vectors of a label (or admitted by a filter), search scans them all
    # (exact); above it, an approximate index proposes candidates that are scored exactly
    # (vector_index.py). An attribute, as the Cypher store's, so tests can lower it.
    exact_search_limit: int = ANN_THRESHOLD
    # Matches ranked at most once k are found (store/text_terms.py); tests lower it.
    text_candidates: int = TEXT_CANDIDATES

    def vectors(self, label: NodeLabel | None = None) -> Iterator[tuple[str, NDArray[np.float32]]]:
        # A generator runs after `locked` would have returned: take the lock for the query.
        with self._lock:
            if label is None:
                cursor = self._db.execute("SELECT id, vector FROM vectors ORDER BY id")
            else:
                cursor = self._db.execute(
                    "SELECT id, vector FROM vectors WHERE label = ? ORDER BY id", (str(label),)
                )
            rows = cursor.fetchall()
        for node_id, blob in rows:
            yield node_id, np.frombuffer(blob, dtype=np.float32)

    def _data_version(self) -> int:
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

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
        # A filter: the admitted passages' rows of the cached matrix (vector_index.py).
        among = self._scope(chosen) if chosen is not None else None
        return [
            SearchHit(id=node_id, label=label, score=score)
            for node_id, score in index.search(vector, k, min_score, among)
        ]

    def _vector_indexes(self) -> dict[NodeLabel, VectorIndex]:
        # data_version changes only when another connection commits: one cheap PRAGMA per
        # search keeps a long-lived store (web app, CLI) current with other processes.
        version = self._data_version()
        if self._indexes is None:
            self._indexes = self._load_indexes()
        elif version != self._seen_version:
            self._catch_up()
        self._seen_version = version
        return self._indexes

    def _load_indexes(self) -> dict[NodeLabel, VectorIndex]:
        indexes: dict[NodeLabel, VectorIndex] = {}
        with self._snapshot():
            self._seen_change = self._last_change()
            info = self.embedding_info()
            if info is None:
                return indexes
            sizes = self._db.execute("SELECT label, count(*) FROM vectors GROUP BY label")
            for label, size in sizes.fetchall():
                index = self._new_index(info.dim, size)
                cursor = self._db.execute(
                    "SELECT id, vector FROM vectors WHERE label = ?", (label,)
                )
                while batch := cursor.fetchmany(_LOAD_BATCH):
                    ids = [row[0] for row in batch]
                    index.upsert_matrix(ids, self._matrix(info.dim, [row[1] for row in batch]))
                indexes[NodeLabel(label)] = index
        return indexes

    def _new_index(self, dim: int, capacity: int = 0) -> VectorIndex:
        return VectorIndex(dim, capacity, ann_threshold=self.exact_search_limit)

    def _matrix(self, dim: int, blobs: Sequence[bytes]) -> NDArray[np.float32]:
        blob = b"".join(blobs)
        if len(blob) != len(blobs) * dim * 4:
            raise StoreError(
                f"the store at {self.path} holds vectors that are not {dim} dims; "
                "run `zettelgraph reindex` to re-embed them"
            )
        return np.frombuffer(blob, dtype=np.float32).reshape(len(blobs), dim)

    def _last_change(self) -> int:
        return int(
            self._db.execute("SELECT coalesce(max(seq), 0) FROM vector_changes").fetchone()[0]
        )

    def _catch_up(self) -> None:
        """Bring the loaded indexes up to date with the vectors written since they were
        loaded, by this store or any other connection (`vector_changes`, migration 5)."""
        indexes = self._indexes
        if indexes is None:
            return
        with self._snapshot():
            last = self._last_change()
            if last == self._seen_change:
                return
            info = self.embedding_info()
            loaded = sum(len(index) for index in indexes.values())
            changed = self._db.execute(
                "SELECT count(*) FROM vector_changes WHERE seq > ?", (self._seen_change,)
            ).fetchone()[0]
            rows = None
            # A new embedder, or most vectors rewritten (a reindex): loading afresh costs
            # no more than patching them in one by one.
            same_dim = info is not None and all(i.dim == info.dim for i in indexes.values())
            if same_dim and changed <= max(loaded // 2, _LOAD_BATCH):
                rows = self._db.execute(
                    "SELECT c.id, v.label, v.vector FROM vector_changes c "
                    "LEFT JOIN vectors v ON v.id = c.id WHERE c.seq > ?",
                    (self._seen_change,),
                ).fetchall()
        if rows is None or info is None:
            self._indexes = self._load_indexes()
            return
        by_label: dict[str, list[tuple[str, bytes]]] = {}
        for node_id, label, blob in rows:
            for held, index in indexes.items():
                if held != label:
                    index.remove(node_id)  # deleted, or (never in practice) relabelled
            if blob is not None:
                by_label.setdefault(label, []).append((node_id, blob))
        for label, items in by_label.items():
            index = indexes.setdefault(NodeLabel(label), self._new_index(info.dim))
            index.upsert_matrix(
                [node_id for node_id, _ in items],
                self._matrix(info.dim, [blob for _, blob in items]),
            )
        self._seen_change = last

    def _after_write(self) -> None:
        """Bring the loaded vector indexes up to date with a write this store just made
        (and with whatever other connections committed before it)."""
        self._catch_up()

    @locked
    def text_search(
        self,
        query: str,
        k: int,
        *,
        label: NodeLabel | None = None,
        passages: PassageFilter | None = None,
    ) -> list[SearchHit]:
        terms = analyze_query(query)
        chosen = active_filter(label, passages)
        scope = self._scope(chosen) if chosen is not None else None
        if not terms or k <= 0 or scope == []:
            return []
        if scope is None:
            # Only the rarest terms' matches are ranked first (store/text_terms.py): FTS5
            # ranks every match of the MATCH, and a common stem matches most passages.
            found_in = [
                self._term_counts.get(term, partial(term_documents, self._db, [term]))[0]
                for term in terms
            ]
            pair = rarest_pair(found_in, self.text_candidates)
            if pair:
                both = " AND ".join(f"({match_of([terms[i]])})" for i in pair)
                hits = self._ranked(both, k, label, None)
                if len(hits) >= k:
                    return hits
            rare = candidate_terms(found_in, k, self.text_candidates)
            if len(rare) < sum(1 for n in found_in if n):
                hits = self._ranked(match_of([terms[i] for i in rare]), k, label, None)
                if len(hits) >= k:
                    return hits
        return self._ranked(match_of(terms), k, label, scope)

    def _ranked(
        self, match: str, k: int, label: NodeLabel | None, scope: list[str] | None
    ) -> list[SearchHit]:
        """The best `k` nodes FTS5 finds for `match` by BM25 (of `label`, among `scope`)."""
        sql = "SELECT id, label, bm25(node_text) AS rank FROM node_text WHERE node_text MATCH ?"
        params: list[Any] = [match]
        if scope is not None:
            # Filtered before the LIMIT, so k hits come back whenever k admitted ones match.
            label = NodeLabel.QUOTE
            sql += " AND id IN (SELECT value FROM json_each(?))"
            params.append(json.dumps(scope))
        if label is not None:
            sql += " AND label = ?"
            params.append(str(label))
        sql += " ORDER BY rank, id LIMIT ?"
        params.append(k)
        return [
            SearchHit(id=node_id, label=NodeLabel(lab), score=-float(rank))
            for node_id, lab, rank in self._db.execute(sql, params)
        ]

    def _scope(self, passages: PassageFilter) -> list[str]:
        """Ids of the Quotes the filter admits: Contents by id, kind and author in SQL, then
        the places of their passages checked over `page` and `location` (scope.in_places)."""
        contents: list[str] | None = None
        if passages.by_content:
            clauses, params = ["label = 'Content'"], []
            if passages.content_ids:
                clauses.append("id IN (SELECT value FROM json_each(?))")
                params.append(json.dumps(list(passages.content_ids)))
            if passages.kinds:
                clauses.append(
                    "lower(json_extract(data, '$.kind')) IN (SELECT value FROM json_each(?))"
                )
                params.append(json.dumps(kind_keys(passages)))
            if passages.authors:
                clauses.append(
                    "id IN (SELECT e.source_id FROM edges e JOIN nodes p ON p.id = e.target_id "
                    "WHERE e.type = 'AUTHORED_BY' AND p.label = 'Person' "
                    "AND p.name_key IN (SELECT value FROM json_each(?)))"
                )
                params.append(json.dumps(author_keys(passages)))
            rows = self._db.execute(f"SELECT id FROM nodes WHERE {' AND '.join(clauses)}", params)
            contents = [row[0] for row in rows]
            if not contents:
                return []
        where = "label = 'Quote'"
        params = []
        if contents is not None:
            # A Quote's parent_id is its Content: one index lookup per Content.
            where += " AND parent_id IN (SELECT value FROM json_each(?))"
            params.append(json.dumps(contents))
        if not passages.places:
            rows = self._db.execute(f"SELECT id FROM nodes WHERE {where}", params)
            return [row[0] for row in rows]
        found = self._db.execute(
            "SELECT id, json_extract(data, '$.page'), json_extract(data, '$.location') "
            f"FROM nodes WHERE {where}",
            params,
        )
        return [
            node_id
            for node_id, page, location in found
            if in_places(json.loads(location) if location else {}, page, passages.places)
        ]
