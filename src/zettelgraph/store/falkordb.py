"""FalkorDB's dialect of the Cypher store.

- Replacing a vector removes the old one first: FalkorDB sometimes skips a SET of a vecf32
  over an existing one (see `_set_vector`).
- Query parameters travel as a `CYPHER name=value ...` header in the query text; vectors are
  written there with the shortest decimal that parses back to the same float32, so a vector
  reads back bit for bit.
- FalkorDB runs each query atomically but has no multi-query transaction. A write of up to
  `atomic_rows` rows is therefore sent as ONE query (all or nothing); a larger one (a bulk
  load, a copy) is sent in batches in the order nodes -> vectors -> relations, each an
  idempotent MERGE, so replaying it after an interruption converges to the same graph.
- Vector indexes are HNSW; FalkorDB's default efRuntime of 10 loses most true neighbours in
  512 dimensions, so ours are created with the values measured in `benchmarks/store.py`. A
  vector index is built in the background: until it is ready, search scans exactly.
- Full-text indexes (RediSearch) index `text_stems`, the text already analysed by
  `text.stemming.analyze` (Snowball stems, folded), without RediSearch's own stemming or
  stopwords: index and question go through the same Python analysis on every backend.
  RediSearch only finds the matches; the server scores them by BM25 in Cypher
  (`falkordb_text`), because the score `db.idx.fulltext.queryNodes` yields is no relevance
  score (it counts the query terms matched; FalkorDB issue 1208): ranked by it, the right
  passage came first for 17% of the XQuAD-es questions, against 92% with BM25
  (docs/design.md).
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

from zettelgraph.models import NodeLabel
from zettelgraph.packs.relations import DEFAULT_VOCABULARY, RelationVocabulary
from zettelgraph.store.base import StoreError
from zettelgraph.store.cypher import CypherStore
from zettelgraph.store.cypher_search import INDEXED_LABELS, VECTOR_LABELS
from zettelgraph.store.cypher_statements import Statement
from zettelgraph.store.falkordb_query import with_params
from zettelgraph.store.falkordb_text import ServerBM25, generation_statement
from zettelgraph.system.extras import require
from zettelgraph.text.masking import mask_url_password

DEFAULT_GRAPH = "zettelgraph"
DEFAULT_PORT = 6379
# HNSW settings (see docs/benchmarks.md for the recall they buy).
HNSW_M = 32
HNSW_EF_CONSTRUCTION = 200
HNSW_EF_RUNTIME = 400


_UNIQUE_VIOLATION = "unique constraint violation"


class FalkorDBStore(ServerBM25, CypherStore):
    """GraphStore on a FalkorDB server: `falkordb://[user:password@]host[:port][/graph]`."""

    atomic_rows = 2_000
    batch_rows = 500

    def __init__(
        self,
        url: str,
        vocabulary: RelationVocabulary = DEFAULT_VOCABULARY,
        *,
        ef_runtime: int = HNSW_EF_RUNTIME,
    ) -> None:
        falkordb = require("falkordb", "falkordb", "The FalkorDB store")
        self._redis = require("redis", "falkordb", "The FalkorDB store")
        parts = urlsplit(url)
        if parts.scheme not in ("falkordb", "falkordbs") or not parts.hostname:
            raise StoreError(
                f"{mask_url_password(url)} is not a FalkorDB URL; write "
                "falkordb://[user:password@]host[:port][/graph] (ZETTELGRAPH_STORE)"
            )
        self.url = url
        self.vocabulary = vocabulary
        self.ef_runtime = ef_runtime
        self.graph_name = unquote(parts.path.strip("/")) or DEFAULT_GRAPH
        try:
            port = parts.port or DEFAULT_PORT
        except ValueError as exc:
            raise StoreError(f"{mask_url_password(url)}: {exc} (ZETTELGRAPH_STORE)") from exc
        self._db = self._call(
            lambda: falkordb.FalkorDB(
                host=parts.hostname,
                port=port,
                username=unquote(parts.username) if parts.username else None,
                password=unquote(parts.password) if parts.password else None,
                ssl=parts.scheme == "falkordbs",
            )
        )
        self._graph = self._db.select_graph(self.graph_name)
        self._call(self._db.connection.ping)
        self._create_schema()

    # --- plumbing ----------------------------------------------------------------------
    def _call(self, action: Any, *args: Any) -> Any:
        """Run one client call; a server that is away becomes a StoreError that says so."""
        redis = self._redis
        try:
            return action(*args)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
            raise StoreError(
                f"cannot reach FalkorDB at {mask_url_password(self.url)}: "
                f"{str(exc).rstrip('.')}. Is the server "
                "running? Start it, or point ZETTELGRAPH_STORE elsewhere."
            ) from exc
        except redis.exceptions.AuthenticationError as exc:
            raise StoreError(
                f"FalkorDB at {mask_url_password(self.url)} refused the credentials: {exc}"
            ) from exc

    def _read(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        try:
            result = self._call(self._graph.ro_query, with_params(query, params))
        except self._redis.exceptions.ResponseError as exc:
            # A graph that was never written to (or was dropped) does not exist yet.
            if "empty key" in str(exc):
                return []
            raise
        return list(result.result_set)

    def _run(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        for attempt in range(3):
            try:
                result = self._call(self._graph.query, with_params(query, params))
                break
            except self._redis.exceptions.ResponseError as exc:
                # Writers that MERGE one new meta node at the same moment (a claim, a lease,
                # the embedder record) can all find it missing: FalkorDB matches a MERGE's
                # pattern before it takes the write lock. The key's unique constraint
                # refuses every creation but the first, whole; run again, the MERGE finds
                # that node. (Before the constraint, 1 race in 5 had several winners.)
                if _UNIQUE_VIOLATION not in str(exc) or attempt == 2:
                    raise
        return list(result.result_set)

    def _write_rows(self, query: str, params: Mapping[str, Any]) -> list[list[Any]]:
        return self._run(query, params)

    def _write(self, statements: Sequence[Statement]) -> None:
        statements = [s for s in statements if s.rows]
        if not statements:
            return
        if sum(len(s.rows) for s in statements) <= self.atomic_rows:
            # One query: FalkorDB applies it whole or not at all.
            parts = [s.query.replace("$rows", f"$rows{i}") for i, s in enumerate(statements)]
            query = " ".join(
                f"{part} WITH count(*) AS done{i}" for i, part in enumerate(parts[:-1])
            )
            self._run(
                f"{query} {parts[-1]}".strip(),
                {f"rows{i}": s.rows for i, s in enumerate(statements)},
            )
            return
        for statement in statements:
            for start in range(0, len(statement.rows), self.batch_rows):
                self._run(
                    statement.query, {"rows": statement.rows[start : start + self.batch_rows]}
                )

    def close(self) -> None:
        self._call(self._db.connection.close)

    def drop(self) -> None:
        redis = self._redis
        try:
            self._call(self._graph.delete)
        except redis.exceptions.ResponseError as exc:
            if "empty key" not in str(exc):
                raise

    # --- schema ------------------------------------------------------------------------
    def _indexes(self) -> list[list[Any]]:
        # Not the `info` column: FalkorDB 4.16 can fill a field's name there with bytes that
        # are not UTF-8 (seen on a range index of a 100,000-passage graph), and the client
        # then cannot decode the reply, so the store could not even be opened.
        return self._read("CALL db.indexes() YIELD label, properties, types, options, status")

    def _has_index(self, label: str, field: str, kind: str) -> dict[str, Any] | None:
        """The options of an index of `kind` on label.field, or None when there is none."""
        for row in self._indexes():
            if row[0] == label and kind in row[2].get(field, []):
                options: dict[str, Any] = row[3].get(field, {}) if kind == "VECTOR" else {}
                return options
        return None

    def _create_schema(self) -> None:
        lookups = (
            ("Node", "id"),
            ("Person", "name_key"),
            ("Entity", "name_key"),
            # quotes_of and sections_of: a Content's passages and parent chunks.
            ("Quote", "content_id"),
            ("Section", "content_id"),
            # propositions_of: a passage's statements.
            ("Proposition", "passage_id"),
            # review_logs: an item's study history; review_counts: the ratings of a window.
            ("ReviewLog", "item_id"),
            ("ReviewLog", "reviewed_us"),
            # due_cards, new_cards and card_counts: the cards of a status, by due date.
            ("LearningItem", "status"),
            ("LearningItem", "due_us"),
            # chat_answers: the turns of a conversation.
            ("Answer", "chat_id"),
            # claims, leases and the embedder record; the unique constraint needs it.
            ("ZettelgraphMeta", "key"),
        )
        for label, field in lookups:
            if self._has_index(label, field, "RANGE") is None:
                self._run(f"CREATE INDEX FOR (n:{label}) ON (n.{field})")
        self._ensure_unique_meta_key()
        self._upgrade_text_index()

    def _ensure_unique_meta_key(self) -> None:
        """One meta node per key, enforced by the server (see `_run`). A graph written
        before the constraint may hold twins of a key from an earlier race: the most
        recently touched one is kept, as the state the last writer saw. The build is tried
        again when it fails: under load (two test workers opening graphs on one server) it
        failed now and then on a new graph, twice in a row once, and passed on a later try; it
        starts only once the key's index is built. Tries wait a random, growing pause first:
        once, five tries in a row failed on one graph (2,646 tests on two workers), as if two
        handles opening it kept dropping each other's build; the cause is not known."""
        for attempt in range(10):
            if attempt:
                time.sleep(random.uniform(0.05, 0.2) * attempt)
            status = self._meta_constraint()
            if status == "OPERATIONAL":
                return
            if status == "FAILED":
                self._constraint("DROP")
                self._run(
                    "MATCH (m:ZettelgraphMeta) WITH m ORDER BY "
                    "coalesce(m.claim_touched, m.lease_touched, 0) DESC "
                    "WITH m.key AS key, collect(m) AS twins WHERE size(twins) > 1 "
                    "UNWIND twins[1..] AS twin DELETE twin"
                )
            if status in (None, "FAILED"):
                self.wait_for_indexes(timeout=60)
                self._constraint("CREATE")
            deadline = time.monotonic() + 30
            while (status := self._meta_constraint()) == "PENDING":
                if time.monotonic() > deadline:
                    raise StoreError(
                        f"FalkorDB at {mask_url_password(self.url)} did not finish building "
                        "a constraint within 30 s; try again"
                    )
                time.sleep(0.05)
            if status == "OPERATIONAL":
                return
        raise StoreError(
            f"FalkorDB at {mask_url_password(self.url)} cannot keep one meta node per key "
            f"in graph {self.graph_name!r}: its unique constraint failed to build"
        )

    def _constraint(self, action: str) -> None:
        self._call(
            self._db.connection.execute_command,
            *("GRAPH.CONSTRAINT", action, self.graph_name, "UNIQUE", "NODE", "ZettelgraphMeta"),
            *("PROPERTIES", "1", "key"),
        )

    def _meta_constraint(self) -> str | None:
        """The status of the meta key's unique constraint (PENDING, OPERATIONAL, FAILED)."""
        for row in self._read("CALL db.constraints()"):
            if row[0] == "UNIQUE" and row[1] == "ZettelgraphMeta" and list(row[2]) == ["key"]:
                return str(row[4])
        return None

    def _ensure_text_indexes(self) -> bool:
        replaced = False
        for label in INDEXED_LABELS:
            if self._has_index(str(label), "text_key", "FULLTEXT") is not None:
                # Before text_stems: the index over the folded text, unstemmed.
                self._run(f"CALL db.idx.fulltext.drop('{label}')")
                self.wait_for_indexes()
                replaced = True
            if self._has_index(str(label), "text_stems", "FULLTEXT") is None:
                self._create_text_index(label)
        if replaced:
            # A new index over existing nodes is built in the background; until it is,
            # search would find nothing.
            self.wait_for_indexes()
        return replaced

    def _create_text_index(self, label: NodeLabel) -> None:
        # The text is analysed already: no stemming and no stopwords of RediSearch's.
        field = "{field: 'text_stems', nostem: true}"
        try:
            self._run(
                "CALL db.idx.fulltext.createNodeIndex("
                f"{{label: '{label}', stopwords: [], language: 'spanish'}}, {field})"
            )
        except self._redis.exceptions.ResponseError as exc:
            # A label's stopwords and language are set once, by its first full-text index
            # (ours, with these), and outlive that index: an index replacing it inherits them.
            if "override index configuration" not in str(exc):
                raise
            self._run(f"CALL db.idx.fulltext.createNodeIndex('{label}', {field})")

    def _ensure_vector_indexes(self, dim: int) -> None:
        for label in VECTOR_LABELS:
            options = self._has_index(str(label), "embedding", "VECTOR")
            if options is not None and options.get("dimension") == dim:
                continue
            if options is not None:
                self._drop_vector_index(label)
            create = (
                f"CREATE VECTOR INDEX FOR (n:{label}) ON (n.embedding) OPTIONS {{"
                f"dimension: {int(dim)}, similarityFunction: 'cosine', M: {HNSW_M}, "
                f"efConstruction: {HNSW_EF_CONSTRUCTION}, efRuntime: {int(self.ef_runtime)}}}"
            )
            for _ in range(3):
                self._run(create)
                if self._has_index(str(label), "embedding", "VECTOR") is not None:
                    break
                # The create was lost to a background re-index (see _drop_vector_index).
                self.wait_for_indexes()
            else:
                raise StoreError(f"FalkorDB did not create the vector index of {label}")

    def _drop_vector_indexes(self) -> None:
        for label in VECTOR_LABELS:
            if self._has_index(str(label), "embedding", "VECTOR") is not None:
                self._drop_vector_index(label)

    def _drop_vector_index(self, label: NodeLabel) -> None:
        self._run(f"DROP VECTOR INDEX FOR (n:{label}) ON (n.embedding)")
        # Dropping it re-indexes the label's full-text field in the background, and FalkorDB
        # (4.16) silently loses a CREATE VECTOR INDEX sent before that finishes.
        self.wait_for_indexes()

    def wait_for_indexes(self, timeout: float = 600.0) -> None:
        """Block until every index is built (bulk loads and benchmarks)."""
        deadline = time.monotonic() + timeout
        while any(row[4] != "OPERATIONAL" for row in self._indexes()):
            if time.monotonic() > deadline:
                raise StoreError(f"FalkorDB indexes still building after {timeout:.0f} s")
            time.sleep(0.2)

    # --- dialect -----------------------------------------------------------------------
    def _text_changed(self) -> list[Statement]:
        return [generation_statement()]

    def _set_vector(self, node: str, value: str) -> str:
        # Setting a vecf32 over an existing one is sometimes silently skipped by FalkorDB
        # (about half of the updates, seen with 4.x and caught by the contract suite);
        # removing the old vector first makes every update take.
        return f"REMOVE {node}.embedding WITH {node}, row SET {node}.embedding = vecf32({value})"

    def _cosine(self, node: str, query: str) -> str:
        return f"(1.0 - vec.cosineDistance({node}.embedding, vecf32({query})))"

    def _index_search(
        self, label: NodeLabel, candidates: int, tail: str, params: Mapping[str, Any]
    ) -> list[list[Any]] | None:
        query = (
            f"CALL db.idx.vector.queryNodes('{label}', 'embedding', {int(candidates)}, "
            f"vecf32($q)) YIELD node WITH node AS n {tail}"
        )
        try:
            return self._read(query, params)
        except self._redis.exceptions.ResponseError:
            # The index is still being built in the background (or was never created
            # because no embedder is registered): the caller scans exactly instead.
            return None
