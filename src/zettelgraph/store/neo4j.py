"""Neo4j's dialect of the Cypher store (Neo4j 5.18 or newer).

Neo4j cannot be installed on our CI machines, so this file is kept small and written against
the Neo4j 5 Cypher manual; the contract suite runs against it when NEO4J_URI is set.

- One explicit transaction per write (`execute_write`): a ChangeSet is all or nothing. The
  driver retries transient failures; every statement is an idempotent MERGE, so a retry
  converges.
- Vector indexes are Lucene HNSW (`CREATE VECTOR INDEX`, cosine). Neo4j reports cosine
  similarity rescaled to 0..1 (`(1 + cos) / 2`), in its index and in
  `vector.similarity.cosine`; we map it back to -1..1 so scores match the other stores.
- Full-text indexes (Lucene, BM25) cover `text_stems`, the text already analysed in Python
  (`rules.indexed_text_of`: Snowball stems in the node's language, folded), with the
  `standard-no-stop-words` analyzer, which leaves those words as they are: index and
  question go through the same analysis as on SQLite and FalkorDB, rather than Lucene's
  per-language analyzers (whose Spanish stems and stopwords differ from Snowball's). Query
  terms are lower-case `\\w+` runs, so none of them is Lucene syntax (`TextTerm.query`).
- Only our own nodes (`:Node`, `:ZettelgraphMeta`) and `zg_` indexes are ever dropped: the
  database may hold other data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

import numpy as np

from zettelgraph.models import NodeLabel
from zettelgraph.packs.relations import DEFAULT_VOCABULARY, RelationVocabulary
from zettelgraph.store.base import StoreError
from zettelgraph.store.cypher import CypherStore
from zettelgraph.store.cypher_search import INDEXED_LABELS, VECTOR_LABELS, TextTerm
from zettelgraph.store.cypher_statements import Statement
from zettelgraph.system.extras import require
from zettelgraph.text.masking import mask_url_password

_BATCH = 1_000


def plain(value: Any) -> Any:
    """Parameters as the driver takes them: numpy arrays become lists of floats."""
    if isinstance(value, np.ndarray):
        return value.astype(np.float64).tolist()
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def _vector_index(label: NodeLabel) -> str:
    return f"zg_{str(label).lower()}_embedding"


def _text_index(label: NodeLabel) -> str:
    return f"zg_{str(label).lower()}_text"


class Neo4jStore(CypherStore):
    """GraphStore on Neo4j: `neo4j://user:password@host[:port][/database]` (or bolt://)."""

    def __init__(self, url: str, vocabulary: RelationVocabulary = DEFAULT_VOCABULARY) -> None:
        neo4j = require("neo4j", "neo4j", "The Neo4j store")
        self._errors = neo4j.exceptions
        parts = urlsplit(url)
        if not parts.hostname:
            raise StoreError(
                f"{mask_url_password(url)} is not a Neo4j URL; write "
                "neo4j://user:password@host[:port][/database] (ZETTELGRAPH_STORE)"
            )
        self.url = url
        self.vocabulary = vocabulary
        self.database = unquote(parts.path.strip("/")) or None
        auth = (unquote(parts.username or "neo4j"), unquote(parts.password or ""))
        address = f"{parts.scheme}://{parts.hostname}:{parts.port or 7687}"
        self._driver = neo4j.GraphDatabase.driver(address, auth=auth)
        try:
            self._driver.verify_connectivity()
        except (self._errors.ServiceUnavailable, self._errors.AuthError, OSError) as exc:
            self._driver.close()
            raise StoreError(
                f"cannot reach Neo4j at {mask_url_password(url)}: {exc}. Is the server "
                "running and are the user and password right? (ZETTELGRAPH_STORE)"
            ) from exc
        self._create_schema()

    # --- plumbing ----------------------------------------------------------------------
    def _read(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        records, _, _ = self._driver.execute_query(
            query, plain(dict(params or {})), database_=self.database, routing_="r"
        )
        return [list(record.values()) for record in records]

    def _write_rows(self, query: str, params: Mapping[str, Any]) -> list[list[Any]]:
        def work(tx: Any) -> list[list[Any]]:
            return [list(record.values()) for record in tx.run(query, plain(dict(params)))]

        with self._driver.session(database=self.database) as session:
            rows: list[list[Any]] = session.execute_write(work)
        return rows

    def _schema(self, query: str) -> None:
        """Schema commands run in their own auto-commit transaction."""
        with self._driver.session(database=self.database) as session:
            session.run(query).consume()

    def _write(self, statements: Sequence[Statement]) -> None:
        def work(tx: Any) -> None:
            for statement in statements:
                for start in range(0, len(statement.rows), _BATCH):
                    rows = plain(statement.rows[start : start + _BATCH])
                    tx.run(statement.query, rows=rows).consume()

        with self._driver.session(database=self.database) as session:
            session.execute_write(work)

    def close(self) -> None:
        self._driver.close()

    def drop(self) -> None:
        with self._driver.session(database=self.database) as session:
            session.run(
                "MATCH (n) WHERE n:Node OR n:ZettelgraphMeta "
                "CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS"
            ).consume()
        for kind in ("CONSTRAINTS", "INDEXES"):
            for (name,) in self._read(f"SHOW {kind} YIELD name WHERE name STARTS WITH 'zg_'"):
                self._schema(f"DROP {kind[:-1] if kind == 'CONSTRAINTS' else 'INDEX'} {name}")

    # --- schema ------------------------------------------------------------------------
    def _create_schema(self) -> None:
        self._schema(
            "CREATE CONSTRAINT zg_node_id IF NOT EXISTS FOR (n:Node) REQUIRE n.id IS UNIQUE"
        )
        self._schema(
            "CREATE CONSTRAINT zg_meta_key IF NOT EXISTS "
            "FOR (m:ZettelgraphMeta) REQUIRE m.key IS UNIQUE"
        )
        self._schema("CREATE INDEX zg_person_name IF NOT EXISTS FOR (n:Person) ON (n.name_key)")
        self._schema("CREATE INDEX zg_quote_content IF NOT EXISTS FOR (n:Quote) ON (n.content_id)")
        self._schema(
            "CREATE INDEX zg_section_content IF NOT EXISTS FOR (n:Section) ON (n.content_id)"
        )
        self._schema("CREATE INDEX zg_entity_name IF NOT EXISTS FOR (n:Entity) ON (n.name_key)")
        self._schema("CREATE INDEX zg_review_item IF NOT EXISTS FOR (n:ReviewLog) ON (n.item_id)")
        # The study reads: ratings of a window, cards of a status by due date (`cypher_cards`).
        self._schema(
            "CREATE INDEX zg_review_time IF NOT EXISTS FOR (n:ReviewLog) ON (n.reviewed_us)"
        )
        self._schema(
            "CREATE INDEX zg_card_due IF NOT EXISTS FOR (n:LearningItem) ON (n.status, n.due_us)"
        )
        self._schema("CREATE INDEX zg_answer_chat IF NOT EXISTS FOR (n:Answer) ON (n.chat_id)")
        self._schema(
            "CREATE INDEX zg_proposition_passage IF NOT EXISTS "
            "FOR (n:Proposition) ON (n.passage_id)"
        )
        self._upgrade_text_index()

    def _ensure_text_indexes(self) -> bool:
        replaced = False
        for label in INDEXED_LABELS:
            name = _text_index(label)
            rows = self._read(
                "SHOW FULLTEXT INDEXES YIELD name, properties WHERE name = $name RETURN properties",
                {"name": name},
            )
            if rows and list(rows[0][0]) != ["text_stems"]:
                # Before text_stems: the index over the folded text, unstemmed.
                self._schema(f"DROP INDEX {name}")
                replaced = True
            self._schema(
                f"CREATE FULLTEXT INDEX {name} IF NOT EXISTS "
                f"FOR (n:{label}) ON EACH [n.text_stems] "
                "OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}}"
            )
        self._schema("CALL db.awaitIndexes(300)")
        return replaced

    def _ensure_vector_indexes(self, dim: int) -> None:
        for label in VECTOR_LABELS:
            name = _vector_index(label)
            rows = self._read(
                "SHOW VECTOR INDEXES YIELD name, options WHERE name = $name RETURN options",
                {"name": name},
            )
            if rows and rows[0][0]["indexConfig"].get("vector.dimensions") == dim:
                continue
            if rows:
                self._schema(f"DROP INDEX {name}")
            self._schema(
                f"CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (n:{label}) ON (n.embedding) "
                f"OPTIONS {{indexConfig: {{`vector.dimensions`: {int(dim)}, "
                "`vector.similarity_function`: 'cosine'}}"
            )

    def _drop_vector_indexes(self) -> None:
        for label in VECTOR_LABELS:
            self._schema(f"DROP INDEX {_vector_index(label)} IF EXISTS")

    # --- dialect -----------------------------------------------------------------------
    def _set_vector(self, node: str, value: str) -> str:
        return f"SET {node}.embedding = {value}"

    def _cosine(self, node: str, query: str) -> str:
        return f"(2.0 * vector.similarity.cosine({node}.embedding, {query}) - 1.0)"

    def _index_search(
        self, label: NodeLabel, candidates: int, tail: str, params: Mapping[str, Any]
    ) -> list[list[Any]] | None:
        query = (
            f"CALL db.index.vector.queryNodes('{_vector_index(label)}', {int(candidates)}, $q) "
            f"YIELD node WITH node AS n {tail}"
        )
        try:
            return self._read(query, params)
        except self._errors.ClientError:
            return None  # no index yet (nothing embedded) or still populating: scan instead

    def _text_hits(
        self,
        label: NodeLabel,
        words: Sequence[TextTerm],
        k: int | None,
        contents: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        # The index's own limit only without a filter: with one, the filter must see every
        # match before the LIMIT, or fewer than k admitted passages could come back.
        options = ", {limit: $k}" if k is not None and contents is None else ""
        where = ""
        if contents is not None:
            where = "WITH node, score WHERE node.content_id IN $contents "
        limit = "LIMIT $k" if k is not None else ""
        rows = self._read(
            f"CALL db.index.fulltext.queryNodes('{_text_index(label)}', $q{options}) "
            f"YIELD node, score {where}RETURN node.id, score ORDER BY score DESC, node.id {limit}",
            {"q": " OR ".join(t.query() for t in words), "k": k, "contents": list(contents or [])},
        )
        return [(str(node_id), float(score)) for node_id, score in rows]
