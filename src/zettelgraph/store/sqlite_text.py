"""The SQLite full-text index: an FTS5 table over the analysed copy of each searched node.

`node_text` holds `rules.indexed_text_of(node)` (stems in the node's language, folded), so
BM25 counts "ciudades" and "ciudad" as one word; the original text stays in `nodes.data`
for display. Queries go through `text.stemming.analyze_query`, the same analysis.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from zettelgraph.models import Concept, Entity, NodeLabel, Quote
from zettelgraph.store.rules import SEARCHED_LABELS, indexed_text_of

_MODELS: dict[str, type[Quote | Concept | Entity]] = {
    str(NodeLabel.QUOTE): Quote,
    str(NodeLabel.CONCEPT): Concept,
    str(NodeLabel.ENTITY): Entity,
}


def index_text(db: sqlite3.Connection, rowid: int, node_id: str, label: str, text: str) -> None:
    """(Re)place one node's row in the index."""
    db.execute("DELETE FROM node_text WHERE rowid = ?", (rowid,))
    db.execute(
        "INSERT INTO node_text(rowid, id, label, text) VALUES (?, ?, ?, ?)",
        (rowid, node_id, label, text),
    )


def rebuild_text_index(db: sqlite3.Connection) -> int:
    """Re-analyse every searched node into a cleared index; the number indexed.

    Run by migration 3 on stores written before the analysis, and by `zettelgraph reindex`.
    """
    db.execute("DELETE FROM node_text")
    labels = [str(label) for label in SEARCHED_LABELS]
    marks = ", ".join("?" for _ in labels)
    rows = db.execute(
        f"SELECT rowid, id, label, data FROM nodes WHERE label IN ({marks})", labels
    ).fetchall()
    count = 0
    for rowid, node_id, label, data in rows:
        text = indexed_text_of(_MODELS[label].model_validate_json(data))
        if text is not None:
            index_text(db, rowid, node_id, label, text)
            count += 1
    return count


def match_of(terms: Sequence[str]) -> str:
    """The FTS5 MATCH of analysed terms (a trailing `*` is a prefix), OR-ed and quoted."""
    parts: list[str] = []
    for term in terms:
        prefix = term.endswith("*")
        quoted = '"' + term.rstrip("*").replace('"', '""') + '"'
        parts.append(quoted + " *" if prefix else quoted)
    return " OR ".join(parts)


# Each term's document count, from FTS5's own vocabulary: a table of the connection's own
# (temp), made when the store is opened (`open_vocabulary`), so no migration writes it.
_VOCABULARY = "temp.node_text_terms"


def open_vocabulary(db: sqlite3.Connection) -> None:
    """Give the connection the vocabulary `term_documents` reads (once, when it is opened)."""
    db.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {_VOCABULARY} USING fts5vocab(main, node_text, row)"
    )


def term_documents(db: sqlite3.Connection, terms: Sequence[str]) -> list[int]:
    """How many indexed nodes hold each analysed term (a prefix: each word it starts, summed,
    an upper bound); from the index's vocabulary, without reading a document."""
    counts: list[int] = []
    for term in terms:
        if term.endswith("*"):
            stem = term.rstrip("*")
            row = db.execute(
                f"SELECT coalesce(sum(doc), 0) FROM {_VOCABULARY} WHERE term >= ? AND term < ?",
                (stem, stem + "\U0010ffff"),
            ).fetchone()
        else:
            row = db.execute(f"SELECT doc FROM {_VOCABULARY} WHERE term = ?", (term,)).fetchone()
        counts.append(int(row[0]) if row else 0)
    return counts
