"""The statements a Cypher store's writes are made of, and the deleting ones.

Kept apart from `cypher.py` (the store itself) so its write path stays readable; the
dialects (`falkordb.py`, `neo4j.py`) decide how a list of statements is run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from zettelgraph.models import RelationKey


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
