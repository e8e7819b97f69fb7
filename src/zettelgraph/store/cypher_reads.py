"""Read side of the Cypher store (FalkorDB, Neo4j): node lookups, relations, vectors and
counts.

Kept apart from `cypher.py` (lifecycle, lease and writes) and `cypher_search.py` (text and
vector search) so each stays readable, as the SQLite store is split; the only dialect it
needs is `_read`. Every lookup by id is anchored on the `Node.id` index, in batches of
`READ_BATCH` ids.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from zettelgraph.models import (
    NODE_TYPES,
    Answer,
    AnyNode,
    CardState,
    Concept,
    Content,
    Entity,
    LearningItem,
    Node,
    NodeLabel,
    Person,
    Proposition,
    Quote,
    Relation,
    ReviewLog,
    Section,
)
from zettelgraph.store.base import COUNTED_DIRECTIONS, card_state, check_around, check_direction
from zettelgraph.store.cypher_cards import CypherCards
from zettelgraph.store.rules import RELATION_TYPE, sortable_time
from zettelgraph.text.normalize import normalize_name

NodeT = TypeVar("NodeT", bound=Node)

# How many node ids one read asks for at once.
READ_BATCH = 1000


class CypherReads(CypherCards):
    """The GraphStore reads over a Cypher database (see `cypher.py` for the graph's shape)."""

    @abstractmethod
    def _read(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """Rows of a read-only query."""

    def _labels(self, ids: set[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        id_list = sorted(ids)
        for start in range(0, len(id_list), READ_BATCH):
            rows = self._read(
                "UNWIND $ids AS id MATCH (n:Node {id: id}) RETURN n.id, n.label",
                {"ids": id_list[start : start + READ_BATCH]},
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

    def _children(self, model: type[NodeT], label: NodeLabel, content_id: str) -> list[NodeT]:
        """The nodes of `label` of a Content in their reading order (`content_id` indexed)."""
        return self._nodes(
            model,
            f"MATCH (n:{label}) WHERE n.content_id = $id RETURN n.data ORDER BY n.position, n.id",
            {"id": content_id},
        )

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
        return self._children(Quote, NodeLabel.QUOTE, content_id)

    def get_quotes(self, quote_ids: Sequence[str]) -> list[Quote]:
        return self._get_many(Quote, NodeLabel.QUOTE, quote_ids)

    def passages_around(self, quote_id: str, *, before: int = 1, after: int = 1) -> list[Quote]:
        check_around(before, after)
        # Path bounds cannot be parameters; check_around made them small ints. Each walk is
        # anchored on the id index; step 0 (the passage itself) comes from the first.
        found: dict[int, Quote] = {}
        walks = [
            (f"MATCH p = (:Node {{id: $id}})-[:NEXT*0..{after}]->(n:Quote)", 1),
            (f"MATCH p = (n:Quote)-[:NEXT*1..{before}]->(:Node {{id: $id}})", -1),
        ]
        for match, sign in walks[: 2 if before else 1]:
            for steps, data in self._read(f"{match} RETURN length(p), n.data", {"id": quote_id}):
                found[sign * int(steps)] = Quote.model_validate_json(data)
        if 0 not in found:
            return []
        return [found[step] for step in sorted(found)]

    def sections_of(self, content_id: str) -> list[Section]:
        return self._children(Section, NodeLabel.SECTION, content_id)

    def get_sections(self, section_ids: Sequence[str]) -> list[Section]:
        return self._get_many(Section, NodeLabel.SECTION, section_ids)

    def propositions_of(self, passage_ids: Sequence[str]) -> list[Proposition]:
        wanted = list(dict.fromkeys(passage_ids))
        found: dict[str, list[Proposition]] = {}
        for start in range(0, len(wanted), READ_BATCH):
            for node in self._nodes(
                Proposition,
                "UNWIND $ids AS id MATCH (n:Proposition {passage_id: id}) "
                "RETURN n.data ORDER BY n.position, n.id",
                {"ids": wanted[start : start + READ_BATCH]},
            ):
                found.setdefault(node.passage_id, []).append(node)
        return [p for passage_id in wanted for p in found.get(passage_id, [])]

    def get_propositions(self, proposition_ids: Sequence[str]) -> list[Proposition]:
        return self._get_many(Proposition, NodeLabel.PROPOSITION, proposition_ids)

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
        for start in range(0, len(wanted), READ_BATCH):
            for node in self._nodes(
                model,
                f"UNWIND $ids AS id MATCH (n:Node {{id: id}}) WHERE n:{label} RETURN n.data",
                {"ids": wanted[start : start + READ_BATCH]},
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
        check_direction(direction)
        where = "WHERE type(r) = $type" if relation_type is not None else ""
        params = {"id": node_id, "type": relation_type}
        ret = "RETURN s.id, type(r), t.id, r.data, r.created_at"
        if node_id is None and relation_type is not None and RELATION_TYPE.match(relation_type):
            # Every relation of one type (Study's prerequisites): the type in the pattern is
            # read from the type's own store instead of filtering every relation.
            queries = [f"MATCH (s:Node)-[r:{relation_type}]->(t:Node) {ret}"]
        elif node_id is None:
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
                (f"UNWIND $ids AS id MATCH {pattern} {ret}", {"ids": ids[i : i + READ_BATCH]})
                for pattern in patterns
                for i in range(0, len(ids), READ_BATCH)
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
        check_direction(direction, COUNTED_DIRECTIONS)
        out = dict.fromkeys(node_ids, 0)
        where = "WHERE type(r) = $type" if relation_type is not None else ""
        # Each id anchored on the id index, counted in the database.
        query = f"UNWIND $ids AS id MATCH {patterns[direction]} {where} RETURN id, count(r)"
        for node_id, count in self._read(query, {"ids": list(out), "type": relation_type}):
            out[node_id] = int(count)
        return out

    def _label_count(self, label: NodeLabel) -> int:
        return self._count(f"MATCH (n:{label}) RETURN count(n)")

    def _count(self, query: str) -> int:
        rows = self._read(query)
        return int(rows[0][0]) if rows else 0

    def vectors(self, label: NodeLabel | None = None) -> Iterator[tuple[str, NDArray[np.float32]]]:
        which = f"n:{NodeLabel(label)} AND " if label is not None else ""
        after = ""
        while True:
            rows = self._read(
                f"MATCH (n:Node) WHERE {which}n.embedding IS NOT NULL AND n.id > $after "
                "RETURN n.id, n.embedding ORDER BY n.id LIMIT $limit",
                {"after": after, "limit": READ_BATCH},
            )
            for node_id, embedding in rows:
                yield str(node_id), np.asarray(embedding, dtype=np.float32)
            if len(rows) < READ_BATCH:
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
    check_direction(direction)
    return {"out": [out], "in": [into], "both": [out, into]}[direction]
