"""Read side of the SQLite store: node lookups, relations, vectors, counts and snapshots.

Kept apart from `sqlite.py` (writes) and `sqlite_search.py` (vector and full-text search) so
each stays readable; the only state it needs is the connection.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from pydantic import BaseModel

from zettelgraph.models import (
    NODE_TYPES,
    Answer,
    AnyNode,
    CardState,
    Concept,
    Content,
    Entity,
    LearningItem,
    NodeLabel,
    Person,
    Proposition,
    Quote,
    Relation,
    ReviewLog,
    Section,
)
from zettelgraph.store.base import (
    COUNTED_DIRECTIONS,
    EmbeddingInfo,
    card_state,
    check_around,
    check_direction,
)
from zettelgraph.store.read_memo import ReadMemo
from zettelgraph.store.sqlite_cards import SQLiteCards
from zettelgraph.store.sqlite_connection import Transaction, locked
from zettelgraph.text.normalize import normalize_name

NodeT = TypeVar("NodeT", bound=BaseModel)


def _relations(rows: Sequence[tuple[str, str, str, str, str]]) -> list[Relation]:
    """Relations from rows of (source_id, type, target_id, data, created_at)."""
    return [
        Relation(source_id=s, type=t, target_id=d, properties=json.loads(p), created_at=c)
        for s, t, d, p, c in rows
    ]


# The columns that hold the node whose relations are read, per direction (`check_direction`).
_SIDES = {"out": ("source_id",), "in": ("target_id",), "both": ("source_id", "target_id")}


def _counted_side(direction: str) -> str:
    """The column `relation_counts` groups by: the relations' source for "out", target for
    "in"."""
    check_direction(direction, COUNTED_DIRECTIONS)
    return _SIDES[direction][0]


class SQLiteReads(SQLiteCards):
    """Queries over the `nodes`, `edges`, `vectors` and `meta` tables."""

    _db: sqlite3.Connection
    _lock: threading.RLock
    _memo: ReadMemo

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

    def _snapshot(self) -> Transaction:
        """A read transaction: several SELECTs that see one consistent state."""
        return Transaction(self._db, "BEGIN")

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Hold one read transaction: every read until the block ends sees the file as it was
        when it began. In WAL mode the writers of other connections go on meanwhile (the WAL
        grows until the block ends); a long `store copy` reads through one."""
        with self._lock, self._snapshot():
            # A deferred BEGIN takes its snapshot at the first read, not at BEGIN.
            self._db.execute("SELECT count(*) FROM meta").fetchone()
            yield

    def _labels(self, ids: set[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        id_list = list(ids)
        for start in range(0, len(id_list), 500):
            chunk = id_list[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for node_id, label in self._db.execute(
                f"SELECT id, label FROM nodes WHERE id IN ({marks})", chunk
            ):
                found[node_id] = label
        return found

    def _load(self, model: type[NodeT], rows: Sequence[tuple[str]]) -> list[NodeT]:
        return [model.model_validate_json(row[0]) for row in rows]

    def _get(self, model: type[NodeT], label: NodeLabel, node_id: str) -> NodeT | None:
        rows = self._db.execute(
            "SELECT data FROM nodes WHERE id = ? AND label = ?", (node_id, str(label))
        ).fetchall()
        found = self._load(model, rows)
        return found[0] if found else None

    def _get_many(self, model: type[NodeT], label: NodeLabel, ids: Sequence[str]) -> list[NodeT]:
        """The nodes of `label` among `ids`, once each, in the order asked."""
        wanted = list(dict.fromkeys(ids))
        found: dict[str, str] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(
                self._db.execute(
                    f"SELECT id, data FROM nodes WHERE label = ? AND id IN ({marks})",
                    [str(label), *chunk],
                ).fetchall()
            )
        return [model.model_validate_json(found[i]) for i in wanted if i in found]

    def _children(self, model: type[NodeT], label: NodeLabel, parent_id: str) -> list[NodeT]:
        """The nodes of `label` under a parent (a Content) in their reading order."""
        rows = self._db.execute(
            "SELECT data FROM nodes WHERE parent_id = ? AND label = ? ORDER BY position, id",
            (parent_id, str(label)),
        ).fetchall()
        return self._load(model, rows)

    @locked
    def get_content(self, content_id: str) -> Content | None:
        return self._get(Content, NodeLabel.CONTENT, content_id)

    @locked
    def list_contents(self) -> list[Content]:
        rows = self._db.execute(
            "SELECT data FROM nodes WHERE label = 'Content' ORDER BY name_key, id"
        ).fetchall()
        return self._load(Content, rows)

    @locked
    def nodes(self, label: NodeLabel, *, after: str = "", limit: int = 1000) -> list[AnyNode]:
        rows = self._db.execute(
            "SELECT data FROM nodes WHERE label = ? AND id > ? ORDER BY id LIMIT ?",
            (str(label), after, limit),
        ).fetchall()
        model = NODE_TYPES[NodeLabel(label)]
        return [model.model_validate_json(row[0]) for row in rows]

    @locked
    def get_person(self, person_id: str) -> Person | None:
        return self._get(Person, NodeLabel.PERSON, person_id)

    @locked
    def find_person(self, name: str) -> Person | None:
        rows = self._db.execute(
            "SELECT data FROM nodes WHERE label = 'Person' AND name_key = ? ORDER BY id LIMIT 1",
            (normalize_name(name),),
        ).fetchall()
        found = self._load(Person, rows)
        return found[0] if found else None

    @locked
    def author_of(self, content_id: str) -> Person | None:
        rows = self._db.execute(
            "SELECT n.data FROM edges e JOIN nodes n ON n.id = e.target_id "
            "WHERE e.source_id = ? AND e.type = 'AUTHORED_BY' ORDER BY n.id LIMIT 1",
            (content_id,),
        ).fetchall()
        found = self._load(Person, rows)
        return found[0] if found else None

    @locked
    def get_concept(self, concept_id: str) -> Concept | None:
        return self._get(Concept, NodeLabel.CONCEPT, concept_id)

    @locked
    def list_concepts(self) -> list[Concept]:
        return self._memo.get("list_concepts", self._read_concepts)

    def _read_concepts(self) -> list[Concept]:
        rows = self._db.execute(
            "SELECT data FROM nodes WHERE label = 'Concept' ORDER BY id"
        ).fetchall()
        return self._load(Concept, rows)

    @locked
    def get_concepts(self, concept_ids: Sequence[str]) -> list[Concept]:
        return self._get_many(Concept, NodeLabel.CONCEPT, concept_ids)

    @locked
    def quotes_of(self, content_id: str) -> list[Quote]:
        return self._children(Quote, NodeLabel.QUOTE, content_id)

    @locked
    def get_quotes(self, quote_ids: Sequence[str]) -> list[Quote]:
        return self._get_many(Quote, NodeLabel.QUOTE, quote_ids)

    @locked
    def passages_around(self, quote_id: str, *, before: int = 1, after: int = 1) -> list[Quote]:
        check_around(before, after)
        # Both walks along NEXT from the passage (step 0), bounded by steps; the primary key
        # (source_id first) and edges_target make each step one indexed lookup.
        rows = self._db.execute(
            "WITH RECURSIVE ahead(id, step) AS (SELECT ?1, 0 UNION ALL SELECT e.target_id, "
            "step + 1 FROM edges e JOIN ahead ON e.source_id = ahead.id AND e.type = 'NEXT' "
            "WHERE step < ?2), behind(id, step) AS (SELECT ?1, 0 UNION ALL SELECT e.source_id, "
            "step - 1 FROM edges e JOIN behind ON e.target_id = behind.id AND e.type = 'NEXT' "
            "WHERE step > -?3) SELECT n.data FROM (SELECT * FROM ahead UNION SELECT * FROM "
            "behind) AS walk JOIN nodes n ON n.id = walk.id AND n.label = 'Quote' ORDER BY step",
            (quote_id, after, before),
        ).fetchall()
        return self._load(Quote, rows)

    @locked
    def sections_of(self, content_id: str) -> list[Section]:
        return self._children(Section, NodeLabel.SECTION, content_id)

    @locked
    def get_sections(self, section_ids: Sequence[str]) -> list[Section]:
        return self._get_many(Section, NodeLabel.SECTION, section_ids)

    @locked
    def propositions_of(self, passage_ids: Sequence[str]) -> list[Proposition]:
        out: list[Proposition] = []
        for passage_id in dict.fromkeys(passage_ids):
            out.extend(self._children(Proposition, NodeLabel.PROPOSITION, passage_id))
        return out

    @locked
    def get_propositions(self, proposition_ids: Sequence[str]) -> list[Proposition]:
        return self._get_many(Proposition, NodeLabel.PROPOSITION, proposition_ids)

    @locked
    def answers(self, *, limit: int = 50) -> list[Answer]:
        rows = self._db.execute(
            "SELECT data FROM nodes WHERE label = 'Answer' ORDER BY created_at DESC, id LIMIT ?",
            (max(limit, 0),),
        ).fetchall()
        return self._load(Answer, rows)

    @locked
    def chat_answers(self, chat_id: str) -> list[Answer]:
        # An Answer's parent is its chat and its position its turn (`SQLiteStore._upsert_node`).
        rows = self._db.execute(
            "SELECT data FROM nodes WHERE parent_id = ? AND label = 'Answer' "
            "ORDER BY position, created_at, id",
            (chat_id,),
        ).fetchall()
        return self._load(Answer, rows)

    @locked
    def get_learning_items(self, item_ids: Sequence[str]) -> list[LearningItem]:
        return self._get_many(LearningItem, NodeLabel.LEARNING_ITEM, item_ids)

    @locked
    def card_states(self) -> list[CardState]:
        return self._memo.get("card_states", self._read_card_states)

    def _read_card_states(self) -> list[CardState]:
        return self._card_states("1", [])

    def _card_states(self, where: str, params: Sequence[Any]) -> list[CardState]:
        """The study states of the cards `where` chooses, in id order."""
        # The fields the study rules read, not the cards' text: 600 cards in 11 ms of CPU
        # (7 ms of it SQLite reading the JSON) where reading them whole took 35 ms.
        fields = ("item_type", "difficulty", "status", "created_at", "due")
        rows = self._db.execute(
            "SELECT id, "
            + ", ".join(f"json_extract(data, '$.{name}')" for name in fields)
            + ", json_extract(data, '$.concept_ids'), json_extract(data, '$.content_ids'), "
            "json_extract(data, '$.schedule.state'), json_extract(data, '$.quote_ids') "
            f"FROM nodes WHERE label = 'LearningItem' AND {where} ORDER BY id",
            params,
        ).fetchall()
        return [
            card_state(
                {
                    "id": row[0],
                    **dict(zip(fields, row[1:6], strict=True)),
                    "concept_ids": json.loads(row[6]),
                    "content_ids": json.loads(row[7] or "[]"),
                    "schedule": {"state": row[8]} if row[8] is not None else {},
                    "quote_ids": json.loads(row[9] or "[]"),
                }
            )
            for row in rows
        ]

    @locked
    def get_entities(self, entity_ids: Sequence[str]) -> list[Entity]:
        return self._get_many(Entity, NodeLabel.ENTITY, entity_ids)

    @locked
    def find_entities(self, name: str) -> list[Entity]:
        rows = self._db.execute(
            "SELECT data FROM nodes WHERE label = 'Entity' AND name_key = ?",
            (normalize_name(name),),
        ).fetchall()
        return sorted(self._load(Entity, rows), key=lambda e: (e.entity_type, e.id))

    @locked
    def review_logs(self, item_id: str) -> list[ReviewLog]:
        rows = self._db.execute(
            "SELECT data FROM nodes WHERE parent_id = ? AND label = 'ReviewLog'", (item_id,)
        ).fetchall()
        return sorted(self._load(ReviewLog, rows), key=lambda log: (log.reviewed_at, log.id))

    @locked
    def relations(
        self,
        node_id: str | None = None,
        *,
        relation_type: str | None = None,
        direction: str = "out",
    ) -> list[Relation]:
        check_direction(direction)
        clauses: list[str] = []
        params: list[Any] = []
        if node_id is not None:
            clauses.append("(" + " OR ".join(f"{s} = ?" for s in _SIDES[direction]) + ")")
            params.extend([node_id] * len(_SIDES[direction]))
        if relation_type is not None:
            clauses.append("type = ?")
            params.append(relation_type)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self._db.execute(
            f"SELECT source_id, type, target_id, data, created_at FROM edges {where} "
            "ORDER BY source_id, type, target_id",
            params,
        ).fetchall()
        return _relations(rows)

    @locked
    def relations_of(self, node_ids: Sequence[str], *, direction: str = "both") -> list[Relation]:
        check_direction(direction)
        ids = tuple(dict.fromkeys(node_ids))
        return self._memo.get(
            ("relations_of", direction, ids), lambda: self._relations_of(ids, direction)
        )

    def _relations_of(self, ids: tuple[str, ...], direction: str) -> list[Relation]:
        # One indexed lookup per id and side (the primary key, edges_target); UNION drops
        # an edge found from both of its ends.
        selects = [
            "SELECT source_id, type, target_id, data, created_at FROM edges "
            f"WHERE {side} IN (SELECT value FROM json_each(?))"
            for side in _SIDES[direction]
        ]
        rows = self._db.execute(
            " UNION ".join(selects) + " ORDER BY source_id, type, target_id",
            [json.dumps(list(ids))] * len(selects),
        ).fetchall()
        return _relations(rows)

    @locked
    def relation_counts(
        self,
        node_ids: Sequence[str],
        *,
        relation_type: str | None = None,
        direction: str = "out",
    ) -> dict[str, int]:
        side = _counted_side(direction)
        out = dict.fromkeys(node_ids, 0)
        sql = f"SELECT {side}, count(*) FROM edges WHERE {side} IN (SELECT value FROM json_each(?))"
        params: list[Any] = [json.dumps(list(out))]
        if relation_type is not None:
            sql += " AND type = ?"
            params.append(relation_type)
        # One indexed lookup per id: the primary key starts with source_id, edges_target
        # with target_id.
        for node_id, count in self._db.execute(sql + f" GROUP BY {side}", params):
            out[node_id] = count
        return out

    @locked
    def counts(self) -> dict[str, int]:
        out = {str(label): 0 for label in NodeLabel}
        for label, count in self._db.execute("SELECT label, count(*) FROM nodes GROUP BY label"):
            out[label] = count
        out["relations"] = self._db.execute("SELECT count(*) FROM edges").fetchone()[0]
        out["vectors"] = self._db.execute("SELECT count(*) FROM vectors").fetchone()[0]
        return out
