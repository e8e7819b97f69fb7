"""The statements a Cypher store's writes are made of: nodes, vectors, relations and the
deleting ones.

Kept apart from `cypher.py` (the store itself) so its write path stays readable; the
dialects (`falkordb.py`, `neo4j.py`) decide how a list of statements is run and how a
vector is set.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from zettelgraph.models import AnyNode, NodeLabel, Relation, RelationKey, label_of
from zettelgraph.store.cypher_props import node_properties


@dataclass(frozen=True)
class Statement:
    """`UNWIND $rows AS row ...`: one write, run over `rows` (in batches if need be)."""

    query: str
    rows: list[dict[str, Any]]


def deletion_statements(keys: Sequence[RelationKey], ids: Sequence[str]) -> list[Statement]:
    """Relations by key (each type checked by `rules.check_deletions`), then nodes with every
    relation touching them. A vector and the full-text copy are properties of their node, so
    the indexes drop them with it."""
    by_type: dict[str, list[dict[str, Any]]] = {}
    for source, relation_type, target in keys:
        by_type.setdefault(relation_type, []).append({"s": source, "t": target})
    statements = [
        Statement(
            "UNWIND $rows AS row MATCH (s:Node {id: row.s})"
            f"-[r:{relation_type}]->(t:Node {{id: row.t}}) DELETE r",
            rows,
        )
        for relation_type, rows in by_type.items()
    ]
    if ids:
        rows = [{"id": node_id} for node_id in dict.fromkeys(ids)]
        statements.append(
            Statement("UNWIND $rows AS row MATCH (n:Node {id: row.id}) DETACH DELETE n", rows)
        )
    return statements


def node_statements(nodes: Sequence[AnyNode]) -> list[Statement]:
    """One MERGE on id per label, setting the node's properties (`cypher_props`)."""
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


def vector_statement(
    arrays: Mapping[str, NDArray[np.float32]], set_vector: Callable[[str, str], str]
) -> Statement:
    """Set the vectors of existing nodes; `set_vector` is the dialect's clause for it."""
    return Statement(
        "UNWIND $rows AS row MATCH (n:Node {id: row.id}) " + set_vector("n", "row.v"),
        [{"id": node_id, "v": array} for node_id, array in arrays.items()],
    )


def relation_statements(relations: Sequence[Relation]) -> list[Statement]:
    """One MERGE per relation type; checked first by `rules.relations_to_write`."""
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
