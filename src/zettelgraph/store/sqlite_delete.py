"""The deleting half of a SQLite write: nodes with everything that hangs off them, and
relations by key. Called by `SQLiteStore.apply` inside its transaction, before the upserts.

Kept apart from `sqlite.py` so the connection, the upserts and the vector index stay readable.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from zettelgraph.models import RelationKey
from zettelgraph.store.sqlite_card_index import unindex

# Ids per statement, well under SQLite's limit on bound parameters.
_CHUNK = 500


def delete_nodes(db: sqlite3.Connection, ids: Sequence[str]) -> list[str]:
    """Delete the nodes among `ids` that exist, with their full-text rows, vectors and every
    relation touching them (either way); the ids deleted."""
    deleted: list[str] = []
    wanted = list(dict.fromkeys(ids))
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        rows = db.execute(f"SELECT rowid, id FROM nodes WHERE id IN ({marks})", chunk).fetchall()
        if not rows:
            continue
        rowids = [row[0] for row in rows]
        found = [row[1] for row in rows]
        found_marks = ",".join("?" * len(found))
        db.execute(f"DELETE FROM node_text WHERE rowid IN ({found_marks})", rowids)
        # Children before the node: the vectors and edges tables refer to nodes(id).
        db.execute(f"DELETE FROM vectors WHERE id IN ({found_marks})", found)
        unindex(db, found, found_marks)
        db.execute(f"DELETE FROM edges WHERE source_id IN ({found_marks})", found)
        db.execute(f"DELETE FROM edges WHERE target_id IN ({found_marks})", found)
        db.execute(f"DELETE FROM nodes WHERE id IN ({found_marks})", found)
        deleted.extend(found)
    return deleted


def delete_edges(db: sqlite3.Connection, keys: Sequence[RelationKey]) -> None:
    """Delete the relations among `keys` that exist (twins are the caller's to name)."""
    db.executemany(
        "DELETE FROM edges WHERE source_id = ? AND type = ? AND target_id = ?",
        list(keys),
    )
