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
  case-folded), analysed as the question is at query time (`text_analysis.analyze_query`),
  like the SQLite store's full-text copy;
- one `ZettelgraphMeta` node records the embedder.

Every write is an idempotent MERGE on ids (or a DELETE of what is there), checked in full
before anything is written, and ordered deletions -> nodes -> vectors -> relations so that
replaying an interrupted write converges to the graph the uninterrupted one makes.
Subclasses add their database's dialect: how a batch of statements is executed, vector and
full-text indexes and their queries.
"""

from __future__ import annotations

import json
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from zettelgraph.models import (
    NODE_TYPES,
    Answer,
    AnyNode,
    CardState,
    ChangeSet,
    Concept,
    Content,
    Entity,
    ItemStatus,
    LearningItem,
    Node,
    NodeLabel,
    PassageFilter,
    Person,
    Quote,
    Relation,
    ReviewLog,
    SearchHit,
    Section,
    label_of,
    normalize_name,
)
from zettelgraph.processes import dead_here, this_process
from zettelgraph.relations import DEFAULT_VOCABULARY, RelationVocabulary
from zettelgraph.store.base import (
    EmbedderMismatchError,
    EmbeddingInfo,
    IntegrityError,
    StoreError,
    card_state,
    check_expectations,
)
from zettelgraph.store.cypher_props import node_properties
from zettelgraph.store.cypher_scope import (
    passage_scope,
    scoped_text_hits,
    scoped_vector_rows,
)
from zettelgraph.store.cypher_statements import Statement, deletion_statements
from zettelgraph.store.rules import (
    SEARCHED_LABELS,
    check_deletions,
    check_dims,
    check_labels,
    check_vector_nodes,
    checked_vectors,
    query_tokens,
    relations_to_delete,
    relations_to_write,
    sortable_time,
)
from zettelgraph.store.scope import active_filter
from zettelgraph.text_analysis import analyze_query

NodeT = TypeVar("NodeT", bound=Node)

# Labels with a vector and a full-text index: the searched ones (no Section, no Answer).
INDEXED_LABELS = SEARCHED_LABELS
# How many node ids one read asks for at once.
_READ_BATCH = 1000


@dataclass(frozen=True)
class TextTerm:
    """One term of an analysed query (`text_analysis.analyze_query`) as `\\w+` words, so
    that no dialect ever reads user text as syntax: a stem (one word), a phrase (several,
    in order) or a prefix (one word that starts the indexed ones)."""

    words: tuple[str, ...]
    prefix: bool = False

    def query(self) -> str:
        """The term as RediSearch and Lucene both read it: `word`, `"several words"` or
        `prefix*`. Its words are lower-case `\\w+` runs, so none is an operator (Lucene's
        AND/OR/NOT are operators only in upper case)."""
        if self.prefix:
            return self.words[0] + "*"
        if len(self.words) > 1:
            return '"' + " ".join(self.words) + '"'
        return self.words[0]

    def count_in(self, tokens: list[str], counts: Mapping[str, int]) -> int:
        """How many times the term occurs in a document's analysed tokens (`counts`: how
        many times each token does)."""
        if self.prefix:
            return sum(n for token, n in counts.items() if token.startswith(self.words[0]))
        n = len(self.words)
        if n == 1:
            return counts.get(self.words[0], 0)
        return sum(tuple(tokens[i : i + n]) == self.words for i in range(len(tokens) - n + 1))


# A shorter prefix would match most words (RediSearch's own minimum is two letters).
MIN_PREFIX = 2


def text_terms(query: str) -> list[TextTerm]:
    """The terms of `query`, analysed as the indexed text was, once each."""
    terms: list[TextTerm] = []
    for term in analyze_query(query):
        words = tuple(query_tokens(term))
        if not words:
            continue
        prefix = term.endswith("*") and len(words) == 1 and len(words[0]) >= MIN_PREFIX
        terms.append(TextTerm(words, prefix))
    return list(dict.fromkeys(terms))


# A commit holds the store's lease for well under a second; a dead holder's lease lapses.
LEASE_SECONDS = 60.0
LEASE_WAIT = 30.0


class CypherStore(ABC):
    """GraphStore over a Cypher database; see the module docstring for the graph's shape."""

    url: str
    vocabulary: RelationVocabulary = DEFAULT_VOCABULARY
    # Up to this many vectors of a label, search scans them all (exact); above it, the
    # vector index proposes candidates that are then scored exactly.
    exact_search_limit: int = 10_000
    # Candidates asked of the vector index per wanted hit (at least `min_candidates`).
    oversample: int = 4
    min_candidates: int = 100

    # --- dialect -----------------------------------------------------------------------
    @abstractmethod
    def _read(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """Rows of a read-only query."""

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
    def _cosine(self, node: str, query: str) -> str:
        """Cypher for the cosine similarity (-1..1) of `node.embedding` and vector `query`."""

    @abstractmethod
    def _ensure_vector_indexes(self, dim: int) -> None: ...

    @abstractmethod
    def _drop_vector_indexes(self) -> None: ...

    @abstractmethod
    def _index_search(
        self, label: NodeLabel, candidates: int, tail: str, params: Mapping[str, Any]
    ) -> list[list[Any]] | None:
        """`tail` (over `n`) run on the vector index's candidates for `$q`; None if no index."""

    @abstractmethod
    def _text_hits(
        self,
        label: NodeLabel,
        words: Sequence[TextTerm],
        k: int | None,
        contents: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        """(id, score) full-text matches of any of the (analysed) terms, best first: the top
        `k` (every one for None), of the Contents `contents` only when given."""

    @abstractmethod
    def _ensure_text_indexes(self) -> bool:
        """Create the full-text indexes over `text_stems` that are missing, replacing any
        over another property; True when an older layout's index was replaced."""

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
                self._vector_statement(arrays),
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
                page = self.nodes(label, after=after, limit=_READ_BATCH)
                rows = [{"id": node.id, "props": node_properties(node)} for node in page]
                self._write(
                    [
                        Statement(
                            "UNWIND $rows AS row MATCH (n:Node {id: row.id}) "
                            "SET n.text_stems = row.props.text_stems, "
                            "n.text_length = row.props.text_length, n.text_key = NULL",
                            rows,
                        )
                    ]
                )
                done += len(page)
                if len(page) < _READ_BATCH:
                    break
                after = page[-1].id
        return done

    def _upgrade_text_index(self) -> None:
        """Called when the store opens: a graph written before `text_stems` existed gets its
        full-text copy and index now, so search works without waiting for a reindex."""
        if self._ensure_text_indexes():
            self.rebuild_fulltext()

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
        info = self.embedding_info()
        if arrays:
            if info is None:
                raise IntegrityError(
                    "vectors given but no embedder registered: call ensure_embedder"
                )
            check_dims(arrays, info.dim)
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
        statements.extend(self._node_statements(nodes))
        if arrays:
            statements.append(self._vector_statement(arrays))
        statements.extend(self._relation_statements(relations))
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

    def _node_statements(self, nodes: Sequence[AnyNode]) -> list[Statement]:
        by_label: dict[NodeLabel, list[dict[str, Any]]] = {}
        for node in nodes:
            by_label.setdefault(label_of(node), []).append(
                {"id": node.id, "props": node_properties(node)}
            )
        return [
            Statement(
                f"UNWIND $rows AS row MERGE (n:Node:{label} {{id: row.id}}) SET n += row.props",
                rows,
            )
            for label, rows in by_label.items()
        ]

    def _vector_statement(self, arrays: Mapping[str, NDArray[np.float32]]) -> Statement:
        return Statement(
            "UNWIND $rows AS row MATCH (n:Node {id: row.id}) " + self._set_vector("n", "row.v"),
            [{"id": node_id, "v": array} for node_id, array in arrays.items()],
        )

    def _relation_statements(self, relations: Sequence[Relation]) -> list[Statement]:
        by_type: dict[str, list[dict[str, Any]]] = {}
        for relation in relations:
            by_type.setdefault(relation.type, []).append(
                {
                    "s": relation.source_id,
                    "t": relation.target_id,
                    "data": json.dumps(relation.properties, ensure_ascii=False, default=str),
                    "created_at": relation.created_at.isoformat(),
                }
            )
        # The type was checked against [A-Z][A-Z0-9_]* (rules.relations_to_write). An
        # existing relation keeps its properties: a run never rewrites history.
        return [
            Statement(
                "UNWIND $rows AS row MATCH (s:Node {id: row.s}) MATCH (t:Node {id: row.t}) "
                f"MERGE (s)-[r:{relation_type}]->(t) "
                "ON CREATE SET r.data = row.data, r.created_at = row.created_at",
                rows,
            )
            for relation_type, rows in by_type.items()
        ]

    # --- reads -------------------------------------------------------------------------
    def _labels(self, ids: set[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        id_list = sorted(ids)
        for start in range(0, len(id_list), _READ_BATCH):
            rows = self._read(
                "UNWIND $ids AS id MATCH (n:Node {id: id}) RETURN n.id, n.label",
                {"ids": id_list[start : start + _READ_BATCH]},
            )
            found.update((str(node_id), str(label)) for node_id, label in rows)
        return found

    def _nodes(
        self, model: type[NodeT], query: str, params: Mapping[str, Any] | None = None
    ) -> list[NodeT]:
        return [model.model_validate_json(row[0]) for row in self._read(query, params)]

    def _get(self, model: type[NodeT], label: NodeLabel, node_id: str) -> NodeT | None:
        found = self._nodes(
            model, f"MATCH (n:Node {{id: $id}}) WHERE n:{label} RETURN n.data", {"id": node_id}
        )
        return found[0] if found else None

    def get_content(self, content_id: str) -> Content | None:
        return self._get(Content, NodeLabel.CONTENT, content_id)

    def list_contents(self) -> list[Content]:
        return self._nodes(Content, "MATCH (n:Content) RETURN n.data ORDER BY n.name_key, n.id")

    def nodes(self, label: NodeLabel, *, after: str = "", limit: int = 1000) -> list[AnyNode]:
        label = NodeLabel(label)
        model = NODE_TYPES[label]
        rows = self._read(
            f"MATCH (n:{label}) WHERE n.id > $after RETURN n.data ORDER BY n.id LIMIT $limit",
            {"after": after, "limit": limit},
        )
        return [model.model_validate_json(row[0]) for row in rows]

    def get_person(self, person_id: str) -> Person | None:
        return self._get(Person, NodeLabel.PERSON, person_id)

    def find_person(self, name: str) -> Person | None:
        found = self._nodes(
            Person,
            "MATCH (n:Person) WHERE n.name_key = $key RETURN n.data ORDER BY n.id LIMIT 1",
            {"key": normalize_name(name)},
        )
        return found[0] if found else None

    def author_of(self, content_id: str) -> Person | None:
        found = self._nodes(
            Person,
            "MATCH (:Node {id: $id})-[:AUTHORED_BY]->(p:Person) RETURN p.data ORDER BY p.id "
            "LIMIT 1",
            {"id": content_id},
        )
        return found[0] if found else None

    def get_concept(self, concept_id: str) -> Concept | None:
        return self._get(Concept, NodeLabel.CONCEPT, concept_id)

    def list_concepts(self) -> list[Concept]:
        return self._nodes(Concept, "MATCH (n:Concept) RETURN n.data ORDER BY n.id")

    def get_concepts(self, concept_ids: Sequence[str]) -> list[Concept]:
        return self._get_many(Concept, NodeLabel.CONCEPT, concept_ids)

    def quotes_of(self, content_id: str) -> list[Quote]:
        return self._nodes(
            Quote,
            "MATCH (n:Quote) WHERE n.content_id = $id RETURN n.data ORDER BY n.position, n.id",
            {"id": content_id},
        )

    def get_quotes(self, quote_ids: Sequence[str]) -> list[Quote]:
        return self._get_many(Quote, NodeLabel.QUOTE, quote_ids)

    def sections_of(self, content_id: str) -> list[Section]:
        return self._nodes(
            Section,
            "MATCH (n:Section) WHERE n.content_id = $id RETURN n.data ORDER BY n.position, n.id",
            {"id": content_id},
        )

    def get_sections(self, section_ids: Sequence[str]) -> list[Section]:
        return self._get_many(Section, NodeLabel.SECTION, section_ids)

    def answers(self, *, limit: int = 50) -> list[Answer]:
        # `created_at` is UTC text (cypher_props), so its order is time order.
        return self._nodes(
            Answer,
            "MATCH (n:Answer) RETURN n.data ORDER BY n.created_at DESC, n.id LIMIT $limit",
            {"limit": max(limit, 0)},
        )

    def chat_answers(self, chat_id: str) -> list[Answer]:
        found = self._nodes(
            Answer, "MATCH (n:Answer) WHERE n.chat_id = $id RETURN n.data", {"id": chat_id}
        )
        return sorted(found, key=lambda a: (a.turn, sortable_time(a.created_at), a.id))

    def get_learning_items(self, item_ids: Sequence[str]) -> list[LearningItem]:
        return self._get_many(LearningItem, NodeLabel.LEARNING_ITEM, item_ids)

    def card_states(self) -> list[CardState]:
        # Arrays and the FSRS state live only in `data`; json.loads, not the whole model.
        rows = self._read("MATCH (n:Node:LearningItem) RETURN n.data ORDER BY n.id")
        return [card_state(json.loads(row[0])) for row in rows]

    def get_entities(self, entity_ids: Sequence[str]) -> list[Entity]:
        return self._get_many(Entity, NodeLabel.ENTITY, entity_ids)

    def find_entities(self, name: str) -> list[Entity]:
        found = self._nodes(
            Entity,
            "MATCH (n:Entity) WHERE n.name_key = $key RETURN n.data",
            {"key": normalize_name(name)},
        )
        return sorted(found, key=lambda e: (e.entity_type, e.id))

    def review_logs(self, item_id: str) -> list[ReviewLog]:
        found = self._nodes(
            ReviewLog, "MATCH (n:ReviewLog) WHERE n.item_id = $id RETURN n.data", {"id": item_id}
        )
        return sorted(found, key=lambda log: (log.reviewed_at, log.id))

    def _get_many(self, model: type[NodeT], label: NodeLabel, ids: Sequence[str]) -> list[NodeT]:
        """The nodes of `label` among `ids`, once each, in the order asked."""
        wanted = list(dict.fromkeys(ids))
        found: dict[str, NodeT] = {}
        for start in range(0, len(wanted), _READ_BATCH):
            for node in self._nodes(
                model,
                f"UNWIND $ids AS id MATCH (n:Node {{id: id}}) WHERE n:{label} RETURN n.data",
                {"ids": wanted[start : start + _READ_BATCH]},
            ):
                found[node.id] = node
        return [found[i] for i in wanted if i in found]

    def relations(
        self,
        node_id: str | None = None,
        *,
        relation_type: str | None = None,
        direction: str = "out",
    ) -> list[Relation]:
        if direction not in ("out", "in", "both"):
            raise ValueError("direction must be 'out', 'in' or 'both'")
        where = "WHERE type(r) = $type" if relation_type is not None else ""
        params = {"id": node_id, "type": relation_type}
        ret = "RETURN s.id, type(r), t.id, r.data, r.created_at"
        if node_id is None:
            queries = [f"MATCH (s:Node)-[r]->(t:Node) {where} {ret}"]
        else:
            # Each side anchored on the id index rather than filtering every relation.
            patterns = _sides(direction, "$id")
            queries = [f"MATCH {pattern} {where} {ret}" for pattern in patterns]
        return self._relation_rows([(query, params) for query in queries])

    def _relation_rows(self, reads: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Relation]:
        """The relations the reads return (source id, type, target id, data, created_at),
        each once, by key."""
        found: dict[tuple[str, str, str], Relation] = {}
        for query, params in reads:
            for source, rtype, target, data, created in self._read(query, params):
                relation = Relation(
                    source_id=source,
                    type=rtype,
                    target_id=target,
                    properties=json.loads(data) if data else {},
                    created_at=created,
                )
                found[relation.key] = relation
        return [found[key] for key in sorted(found)]

    def relations_of(self, node_ids: Sequence[str], *, direction: str = "both") -> list[Relation]:
        patterns = _sides(direction, "id")
        ids = list(dict.fromkeys(node_ids))
        ret = "RETURN s.id, type(r), t.id, r.data, r.created_at"
        # Each id anchored on the id index, as `relations` does for one.
        return self._relation_rows(
            [
                (f"UNWIND $ids AS id MATCH {pattern} {ret}", {"ids": ids[i : i + _READ_BATCH]})
                for pattern in patterns
                for i in range(0, len(ids), _READ_BATCH)
            ]
        )

    def relation_counts(
        self,
        node_ids: Sequence[str],
        *,
        relation_type: str | None = None,
        direction: str = "out",
    ) -> dict[str, int]:
        patterns = {"out": "(n:Node {id: id})-[r]->(:Node)", "in": "(:Node)-[r]->(n:Node {id: id})"}
        if direction not in patterns:
            raise ValueError("direction must be 'out' or 'in'")
        out = dict.fromkeys(node_ids, 0)
        where = "WHERE type(r) = $type" if relation_type is not None else ""
        # Each id anchored on the id index, counted in the database.
        query = f"UNWIND $ids AS id MATCH {patterns[direction]} {where} RETURN id, count(r)"
        for node_id, count in self._read(query, {"ids": list(out), "type": relation_type}):
            out[node_id] = int(count)
        return out

    def vector_search(
        self,
        label: NodeLabel,
        vector: NDArray[np.float32],
        k: int,
        *,
        min_score: float | None = None,
        passages: PassageFilter | None = None,
    ) -> list[SearchHit]:
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        chosen = active_filter(label, passages)
        if k <= 0:
            return []
        if not np.all(np.isfinite(query)):
            raise ValueError("query vector contains NaN or infinity")
        label = NodeLabel(label)
        filtered = "WHERE score >= $min" if min_score is not None else ""
        tail = (
            f"WITH n, {self._cosine('n', '$q')} AS score {filtered} "
            "RETURN n.id, score ORDER BY score DESC, n.id LIMIT $k"
        )
        params = {"q": query, "k": k, "min": min_score}
        rows: list[list[Any]] | None = None
        if chosen is not None:
            rows = scoped_vector_rows(self, passage_scope(self, chosen), tail, params)
        elif label in INDEXED_LABELS and self._label_count(label) > self.exact_search_limit:
            candidates = max(k * self.oversample, self.min_candidates)
            rows = self._index_search(label, candidates, tail, params)
        if rows is None:
            rows = self._read(f"MATCH (n:{label}) WHERE n.embedding IS NOT NULL {tail}", params)
        return [SearchHit(id=str(i), label=label, score=float(s)) for i, s in rows]

    def _label_count(self, label: NodeLabel) -> int:
        return self._count(f"MATCH (n:{label}) RETURN count(n)")

    def _count(self, query: str) -> int:
        rows = self._read(query)
        return int(rows[0][0]) if rows else 0

    def text_search(
        self,
        query: str,
        k: int,
        *,
        label: NodeLabel | None = None,
        passages: PassageFilter | None = None,
    ) -> list[SearchHit]:
        terms = text_terms(query)
        chosen = active_filter(label, passages)
        if not terms or k <= 0:
            return []
        if chosen is not None:
            scope = passage_scope(self, chosen)
            return [
                SearchHit(id=node_id, label=NodeLabel.QUOTE, score=score)
                for node_id, score in scoped_text_hits(self, scope, terms, k)
            ]
        labels = [NodeLabel(label)] if label is not None else list(INDEXED_LABELS)
        hits = [
            SearchHit(id=node_id, label=each, score=score)
            for each in labels
            if each in INDEXED_LABELS
            for node_id, score in self._text_hits(each, terms, k)
        ]
        hits.sort(key=lambda hit: (-hit.score, hit.id))
        return hits[:k]

    def vectors(self, label: NodeLabel | None = None) -> Iterator[tuple[str, NDArray[np.float32]]]:
        which = f"n:{NodeLabel(label)} AND " if label is not None else ""
        after = ""
        while True:
            rows = self._read(
                f"MATCH (n:Node) WHERE {which}n.embedding IS NOT NULL AND n.id > $after "
                "RETURN n.id, n.embedding ORDER BY n.id LIMIT $limit",
                {"after": after, "limit": _READ_BATCH},
            )
            for node_id, embedding in rows:
                yield str(node_id), np.asarray(embedding, dtype=np.float32)
            if len(rows) < _READ_BATCH:
                return
            after = str(rows[-1][0])

    def counts(self) -> dict[str, int]:
        out = {str(label): self._label_count(label) for label in NodeLabel}
        out["relations"] = self._count("MATCH (:Node)-[r]->(:Node) RETURN count(r)")
        out["vectors"] = self._count("MATCH (n:Node) WHERE n.embedding IS NOT NULL RETURN count(n)")
        return out


def _sides(direction: str, anchor: str) -> list[str]:
    """The patterns that find the relations of the node whose id is `anchor` ("out", "in"
    or "both"), as `s`-[`r`]->`t`."""
    out, into = (
        f"(s:Node {{id: {anchor}}})-[r]->(t:Node)",
        f"(s:Node)-[r]->(t:Node {{id: {anchor}}})",
    )
    if direction not in ("out", "in", "both"):
        raise ValueError("direction must be 'out', 'in' or 'both'")
    return {"out": [out], "in": [into], "both": [out, into]}[direction]
