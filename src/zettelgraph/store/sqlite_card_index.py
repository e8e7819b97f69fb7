"""The SQLite store's study tables (`cards`, `card_refs`, `reviews`; migration 6) kept in step
with `nodes`: `SQLiteStore` writes a card's or rating's row in the same transaction as the
node, `delete_nodes` removes them with it, so the study reads (`sqlite_cards.py`) never
disagree with the records.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from zettelgraph.models import LearningItem, ReviewLog
from zettelgraph.store.study_keys import card_fields, review_fields

_CARD_COLUMNS = ("status", "studied", "state", "due", "card_rank", "book", "created_at")


def index_card(db: sqlite3.Connection, item: LearningItem) -> None:
    """Write `item`'s study fields (its row of `cards`, its books and concepts in
    `card_refs`), replacing what was there."""
    fields = card_fields(item)
    columns = (*_CARD_COLUMNS, "item_type")
    db.execute(
        f"INSERT OR REPLACE INTO cards(id, {', '.join(columns)}) "
        f"VALUES (?, {', '.join('?' * len(columns))})",
        (item.id, *(fields[name] for name in columns)),
    )
    db.execute("DELETE FROM card_refs WHERE item_id = ?", (item.id,))
    refs = [("content", ref) for ref in fields["content_ids"]]
    refs += [("concept", ref) for ref in fields["concept_ids"]]
    db.executemany(
        "INSERT OR IGNORE INTO card_refs(kind, ref, item_id, status) VALUES (?, ?, ?, ?)",
        [(kind, ref, item.id, fields["status"]) for kind, ref in refs],
    )


def index_review(db: sqlite3.Connection, log: ReviewLog) -> None:
    """Write `log`'s row of `reviews`, replacing what was there."""
    fields = review_fields(log)
    db.execute(
        "INSERT OR REPLACE INTO reviews(id, item_id, reviewed_at, rating, state_before) "
        "VALUES (?, ?, ?, ?, ?)",
        (
            log.id,
            fields["item_id"],
            fields["reviewed_at"],
            fields["rating"],
            fields["state_before"],
        ),
    )


def unindex(db: sqlite3.Connection, ids: Sequence[str], marks: str) -> None:
    """Remove the study rows of the nodes `ids` (`marks`: their placeholders), before the
    nodes themselves."""
    db.execute(f"DELETE FROM card_refs WHERE item_id IN ({marks})", ids)
    db.execute(f"DELETE FROM cards WHERE id IN ({marks})", ids)
    db.execute(f"DELETE FROM reviews WHERE id IN ({marks})", ids)


def index_existing(db: sqlite3.Connection) -> None:
    """Migration 6's step: index the cards and ratings written before the tables existed."""
    for (data,) in db.execute("SELECT data FROM nodes WHERE label = 'LearningItem'").fetchall():
        index_card(db, LearningItem.model_validate_json(data))
    for (data,) in db.execute("SELECT data FROM nodes WHERE label = 'ReviewLog'").fetchall():
        index_review(db, ReviewLog.model_validate_json(data))
