"""The GraphStore protocol implemented once in Cypher, for FalkorDB and Neo4j.

The graph a user sees in their database:

- every node has the label `Node` and its own (`Content`, `Person`, `Quote`, `Concept`,
  `Section`, `Answer`, `LearningItem`, `ReviewLog`, `Entity`), a deterministic `id`, its full record
  as JSON in `data` (what we read back, so nothing is lost in translation) and readable
  copies of the fields other tools query (`title`, `name`, `text`, `position`, ...; see
  `cypher_props.py`);
- relations are real relationships of their type (`SUPPORTS`, `GENERALIZES`, ...) with their
  properties as JSON in `data` and `created_at`;
- vectors are the `embedding` property of their node; `text_stems` holds what the full-text
  index sees: `rules.indexed_text_of` (Snowball stems in the node's language, accent- and
  case-folded), analysed as the question is at query time (`text.stemming.analyze_query`),
  like the SQLite store's full-text copy;
- one `ZettelgraphMeta` node records the embedder.

Every write is an idempotent MERGE on ids (or a DELETE of what is there), checked in full
before anything is written, and ordered deletions -> nodes -> vectors -> relations so that
replaying an interrupted write converges to the graph the uninterrupted one makes.
Subclasses add their database's dialect: how a batch of statements is executed, vector and
full-text indexes and their queries.

One class in three modules, as the SQLite store is split: `cypher_reads.py` (lookups,
relations, counts), `cypher_search.py` (text and vector search, the passage filter) and this
one (embedder, full-text upkeep, the lease and every write; the statements themselves are
built by `cypher_statements.py`).
"""

from __future__ import annotations

import time
import uuid
from abc import abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from numpy.typing import NDArray

from zettelgraph.models import ChangeSet, ItemStatus, LearningItem, ReviewLog, label_of
from zettelgraph.packs.relations import DEFAULT_VOCABULARY, RelationVocabulary
from zettelgraph.store.base import (
    EmbedderMismatchError,
    EmbeddingInfo,
    StoreError,
    check_expectations,
)
from zettelgraph.store.cypher_props import node_properties
from zettelgraph.store.cypher_reads import READ_BATCH
from zettelgraph.store.cypher_search import INDEXED_LABELS, CypherSearch
from zettelgraph.store.cypher_statements import (
    Statement,
    deletion_statements,
    node_statements,
    relation_statements,
    vector_statement,
)
from zettelgraph.store.rules import (
    check_deletions,
    check_dims,
    check_labels,
    check_vector_nodes,
    check_vectors,
    checked_vectors,
    relations_to_delete,
    relations_to_write,
    sortable_time,
)
from zettelgraph.system.processes import dead_here, this_process

# A commit holds the store's lease for well under a second; a dead holder's lease lapses.
LEASE_SECONDS = 60.0
LEASE_WAIT = 30.0


class CypherStore(CypherSearch):
    """GraphStore over a Cypher database; see the module docstring for the graph's shape.
    Its reads are `CypherReads`', its searches `CypherSearch`'s."""

    url: str
    vocabulary: RelationVocabulary = DEFAULT_VOCABULARY

    # --- dialect (with `_read` of the reads and the search's) ---------------------------
    @abstractmethod
    def _write(self, statements: Sequence[Statement]) -> None:
        """Run the statements in order, atomically where the database can."""

    @abstractmethod
    def _write_rows(self, query: str, params: Mapping[str, Any]) -> list[list[Any]]:
        """Rows of one write query, run in a transaction of its own."""

    @abstractmethod
    def _set_vector(self, node: str, value: str) -> str:
        """Clauses that set `node.embedding` to `value` (a list of floats) in a row of `row`."""

    @abstractmethod
    def _ensure_vector_indexes(self, dim: int) -> None: ...

    @abstractmethod
    def _drop_vector_indexes(self) -> None: ...

    @abstractmethod
    def _ensure_text_indexes(self) -> bool:
        """Create the full-text indexes over `text_stems` that are missing, replacing any
        over another property; True when an older layout's index was replaced."""

    def _text_changed(self) -> list[Statement]:
        """Statements to add to every write that changes searched text: FalkorDB's count
        the writes its cached BM25 statistics depend on (`falkordb_text`)."""
        return []

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def drop(self) -> None:
        """Delete the whole graph: every node, relation, vector and index."""

    # --- embedder ----------------------------------------------------------------------
    def embedding_info(self) -> EmbeddingInfo | None:
        rows = self._read(
            "MATCH (m:ZettelgraphMeta {key: 'store'}) "
            "RETURN m.embedding_model, m.embedding_dim LIMIT 1"
        )
        if not rows or rows[0][0] is None:
            return None
        return EmbeddingInfo(model=str(rows[0][0]), dim=int(rows[0][1]))

    def ensure_embedder(self, model: str, dim: int) -> None:
        # Registration only happens while nothing is registered, in one statement, so two
        # first users cannot both register different embedders.
        self._write(
            [
                Statement(
                    "UNWIND $rows AS row MERGE (m:ZettelgraphMeta {key: 'store'}) "
                    "WITH m, row WHERE m.embedding_model IS NULL "
                    "SET m.embedding_model = row.model, m.embedding_dim = row.dim",
                    [{"model": model, "dim": dim}],
                )
            ]
        )
        info = self.embedding_info()
        if info is None or info.model != model or info.dim != dim:
            held = f"{info.model!r} ({info.dim} dims)" if info else "nothing"
            raise EmbedderMismatchError(
                f"the store at {self.url} holds vectors from {held} but the configured "
                f"embedder is {model!r} ({dim} dims). Set ZETTELGRAPH_EMBEDDINGS to the "
                "stored model to keep using it, or run `zettelgraph reindex` to re-embed "
                "everything with the configured one."
            )
        self._ensure_vector_indexes(dim)

    def replace_vectors(
        self, model: str, dim: int, vectors: Mapping[str, NDArray[np.float32]]
    ) -> None:
        arrays = checked_vectors(vectors)
        check_dims(arrays, dim)
        check_vector_nodes(arrays, self._labels(set(arrays)))
        self._drop_vector_indexes()
        # The new model is recorded last: if this is interrupted, the store still names
        # the old one and `zettelgraph reindex` can simply be run again.
        self._write(
            [
                Statement(
                    "UNWIND $rows AS row MATCH (n:Node) WHERE n.embedding IS NOT NULL "
                    "SET n.embedding = NULL",
                    [{}],
                ),
                vector_statement(arrays, self._set_vector),
                Statement(
                    "UNWIND $rows AS row MERGE (m:ZettelgraphMeta {key: 'store'}) "
                    "SET m.embedding_model = row.model, m.embedding_dim = row.dim",
                    [{"model": model, "dim": dim}],
                ),
            ]
        )
        self._ensure_vector_indexes(dim)

    # --- full-text index ---------------------------------------------------------------
    def rebuild_fulltext(self) -> int:
        """Re-analyse the text of every searched node and make sure the full-text indexes
        cover it: after an upgrade that changed the analysis (`zettelgraph reindex`).
        Returns how many nodes were re-analysed. Each page is one idempotent write, so an
        interrupted rebuild is finished by running it again."""
        self._ensure_text_indexes()
        done = 0
        for label in INDEXED_LABELS:
            after = ""
            while True:
                page = self.nodes(label, after=after, limit=READ_BATCH)
                rows = [{"id": node.id, "props": node_properties(node)} for node in page]
                self._write(
                    [
                        Statement(
                            "UNWIND $rows AS row MATCH (n:Node {id: row.id}) "
                            "SET n.text_stems = row.props.text_stems, "
                            "n.text_length = row.props.text_length, n.text_key = NULL",
                            rows,
                        ),
                        *self._text_changed(),
                    ]
                )
                done += len(page)
                if len(page) < READ_BATCH:
                    break
                after = page[-1].id
        return done

    def _upgrade_card_properties(self) -> None:
        """Called when the store opens: cards and ratings written before the study
        properties (`study_keys`) get them now, a page at a time (each page one idempotent
        write), so the study reads see every card."""
        for label, model, marker in (
            ("LearningItem", LearningItem, "studied"),
            ("ReviewLog", ReviewLog, "state_before"),
        ):
            while True:
                rows = self._read(
                    f"MATCH (n:{label}) WHERE n.{marker} IS NULL RETURN n.data LIMIT $limit",
                    {"limit": READ_BATCH},
                )
                if not rows:
                    break
                nodes = [model.model_validate_json(row[0]) for row in rows]
                props = [{"id": node.id, "props": node_properties(node)} for node in nodes]
                self._write(
                    [
                        Statement(
                            "UNWIND $rows AS row MATCH (n:Node {id: row.id}) SET n += row.props",
                            props,
                        )
                    ]
                )

    def _upgrade_text_index(self) -> None:
        """Called when the store opens: a graph written before `text_stems` existed gets its
        full-text copy and index now, so search works without waiting for a reindex."""
        if self._ensure_text_indexes():
            self.rebuild_fulltext()
        self._upgrade_card_properties()

    # --- writes ------------------------------------------------------------------------
    @contextmanager
    def _lease(self, name: str, wait: float = LEASE_WAIT) -> Iterator[None]:
        """Hold a named lease every process sees (a meta node), for a check-then-write no
        other writer may interleave with. A holder that dies frees it after LEASE_SECONDS, or
        at once when it ran on this machine (its process id is gone): a run resumed right
        after a crash does not wait out the dead process's lease."""
        token = f"{this_process()}:{uuid.uuid4().hex}"
        key = f"lease:{name}"
        deadline = time.monotonic() + wait
        while True:
            now = time.time() * 1000
            until = now + LEASE_SECONDS * 1000
            # The first SET write-locks the node, so the WHERE reads the latest lease (the
            # lost-update pattern Neo4j documents; FalkorDB runs writes one at a time anyway).
            rows = self._write_rows(
                "MERGE (l:ZettelgraphMeta {key: $key}) SET l.lease_touched = $now "
                "WITH l WHERE coalesce(l.lease_until, 0) < $now "
                "SET l.lease_until = $until, l.lease_owner = $token RETURN l.lease_owner",
                {"key": key, "now": now, "until": until, "token": token},
            )
            if not rows:
                holder = self._write_rows(
                    "MATCH (l:ZettelgraphMeta {key: $key}) RETURN l.lease_owner", {"key": key}
                )
                owner = str(holder[0][0]) if holder and holder[0][0] else ""
                if dead_here(owner):
                    rows = self._write_rows(
                        "MATCH (l:ZettelgraphMeta {key: $key}) WHERE l.lease_owner = $dead "
                        "SET l.lease_until = $until, l.lease_owner = $token RETURN l.lease_owner",
                        {"key": key, "until": until, "token": token, "dead": owner},
                    )
            if rows:
                break
            if time.monotonic() > deadline:
                raise StoreError(
                    f"the store stayed busy with another {name} for {wait:.0f} s; try again"
                )
            time.sleep(0.05)
        try:
            yield
        finally:
            self._write_rows(
                "MATCH (l:ZettelgraphMeta {key: $key}) WHERE l.lease_owner = $token "
                "SET l.lease_until = 0 RETURN l.key",
                {"key": key, "token": token},
            )

    def swap_claim(self, key: str, expected: str | None, value: str | None) -> str | None:
        name = f"claim:{key}"
        # One conditional write. Its first SET write-locks the node, so the WHERE reads the
        # latest claim (as in `_lease`); FalkorDB runs writes one at a time anyway.
        rows = self._write_rows(
            "MERGE (m:ZettelgraphMeta {key: $key}) SET m.claim_touched = $now "
            "WITH m WHERE coalesce(m.claim, '') = $expected SET m.claim = $value "
            "RETURN m.key",
            {"key": name, "now": time.time() * 1000, "expected": expected or "", "value": value},
        )
        if rows:
            return value
        # Read as a write is (Neo4j routes it to the leader): the claim as it is now.
        held = self._write_rows(
            "MATCH (m:ZettelgraphMeta {key: $key}) RETURN m.claim", {"key": name}
        )
        return str(held[0][0]) if held and held[0][0] is not None else None

    def apply(self, changes: ChangeSet) -> None:
        if not changes.expect_processed:
            self._apply(changes)
            return
        with self._lease("commit"):
            check_expectations(changes, self.get_content)
            self._apply(changes)

    def _apply(self, changes: ChangeSet) -> None:
        arrays = checked_vectors(changes.vectors)
        check_vectors(arrays, self.embedding_info())
        check_deletions(changes)
        nodes = changes.nodes()
        endpoints = {r.source_id for r in changes.relations} | {
            r.target_id for r in changes.relations
        }
        unlinked = {end for key in changes.delete_relations for end in (key[0], key[2])}
        stored = self._labels({n.id for n in nodes} | endpoints | set(arrays) | unlinked)
        check_labels(nodes, stored)
        doomed = set(changes.delete_ids)
        # What the write leaves: a relation or vector for a node it deletes names no node.
        labels = {
            **{i: label for i, label in stored.items() if i not in doomed},
            **{n.id: str(label_of(n)) for n in nodes},
        }
        check_vector_nodes(arrays, labels)
        relations = relations_to_write(changes.relations, labels, self.vocabulary)
        # Everything is checked: from here on only writes that cannot be refused. Deletions
        # first, as on SQLite, so a replay after an interruption converges all the same.
        statements = deletion_statements(
            relations_to_delete(changes.delete_relations, stored, self.vocabulary),
            changes.delete_ids,
        )
        statements.extend(node_statements(nodes))
        if arrays:
            statements.append(vector_statement(arrays, self._set_vector))
        statements.extend(relation_statements(relations))
        if changes.delete_ids or any(label_of(n) in INDEXED_LABELS for n in nodes):
            statements.extend(self._text_changed())
        if statements:
            self._write(statements)

    def record_rating(self, shown: LearningItem, rated: LearningItem, log: ReviewLog) -> bool:
        rows = self._write_rows(
            # Setting a property first write-locks the card on Neo4j, so the check reads the
            # latest rating (its documented lost-update pattern); FalkorDB runs one write
            # query at a time, whole.
            "MATCH (n:Node:LearningItem {id: $id}) SET n.rating_lock = true "
            "WITH n, n.status = $status AND coalesce(n.due, '') = $due AS unrated "
            "SET n.rating_lock = null "
            "WITH n, unrated WHERE unrated SET n += $item "
            "MERGE (l:Node:ReviewLog {id: $log_id}) SET l += $log RETURN count(l)",
            {
                "id": shown.id,
                "status": str(ItemStatus.APPROVED),
                "due": sortable_time(shown.due) if shown.due is not None else "",
                "item": node_properties(rated),
                "log_id": log.id,
                "log": node_properties(log),
            },
        )
        return bool(rows and rows[0][0])
