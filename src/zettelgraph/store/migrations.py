"""Numbered schema migrations for the SQLite store; append, never edit an applied one."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from zettelgraph.store.sqlite_card_index import index_existing
from zettelgraph.store.sqlite_text import rebuild_text_index

# A step is SQL, or a function over the connection for what SQL cannot do (stemming).
Step = str | Callable[[sqlite3.Connection], object]

MIGRATIONS: list[tuple[int, list[Step]]] = [
    (
        1,
        [
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            # Nodes keep their full pydantic JSON in `data`; the other columns are lookup keys.
            "CREATE TABLE nodes ("
            " id TEXT PRIMARY KEY,"
            " label TEXT NOT NULL,"
            " name_key TEXT,"
            " parent_id TEXT,"
            " position INTEGER,"
            " data TEXT NOT NULL)",
            "CREATE INDEX nodes_label_name ON nodes(label, name_key)",
            "CREATE INDEX nodes_parent ON nodes(parent_id, position)",
            "CREATE TABLE edges ("
            " source_id TEXT NOT NULL REFERENCES nodes(id),"
            " type TEXT NOT NULL,"
            " target_id TEXT NOT NULL REFERENCES nodes(id),"
            " data TEXT NOT NULL DEFAULT '{}',"
            " created_at TEXT NOT NULL,"
            " PRIMARY KEY (source_id, type, target_id))",
            "CREATE INDEX edges_target ON edges(target_id, type)",
            "CREATE TABLE vectors ("
            " id TEXT PRIMARY KEY REFERENCES nodes(id),"
            " label TEXT NOT NULL,"
            " dim INTEGER NOT NULL,"
            " vector BLOB NOT NULL)",
            "CREATE INDEX vectors_label ON vectors(label)",
            "CREATE VIRTUAL TABLE node_text USING fts5("
            " id UNINDEXED, label UNINDEXED, text,"
            " tokenize = 'unicode61 remove_diacritics 2')",
        ],
    ),
    (
        2,
        [
            # Sections share `parent_id` (their Content) and `position` with the Quotes; with
            # the label in the key, quotes_of and sections_of each read only their own rows.
            "DROP INDEX nodes_parent",
            "CREATE INDEX nodes_parent_label ON nodes(parent_id, label, position)",
            # Time order for the answers list: `rules.sortable_time`, UTC text that sorts as
            # time. Rows written before this migration get it from their record (to the ms).
            "ALTER TABLE nodes ADD COLUMN created_at TEXT",
            "UPDATE nodes SET created_at = "
            "strftime('%Y-%m-%dT%H:%M:%f', json_extract(data, '$.created_at')) || '000+00:00'",
            # Not a partial index (WHERE label = 'Answer'): without ANALYZE statistics the
            # planner prefers nodes_label_name and sorts, while this one it always takes.
            "CREATE INDEX nodes_label_created ON nodes(label, created_at)",
        ],
    ),
    (
        3,
        [
            # The index now holds the analysed copy of each text (stems in its language,
            # accent-folded: sqlite_text.py); rows written before are re-analysed here.
            rebuild_text_index,
        ],
    ),
    (
        4,
        [
            # A whole label page by page in id order (`nodes`, `list_concepts`: a deck of
            # cards on every study page) was an index search plus a sort of every row of
            # the label: 600 cards, 9.6 ms; with the id in the index, 1.7 ms.
            "CREATE INDEX nodes_label_id ON nodes(label, id)",
        ],
    ),
    (
        5,
        [
            # Which vectors changed since a search loaded them, whoever wrote them (this
            # process, another one, a copy, a reindex): the latest change of each id, in
            # commit order. A loaded index catches up on those rows instead of reloading
            # all of them; at a million vectors a reload rebuilds the approximate graph,
            # minutes, where catching up on a few rows takes milliseconds (sqlite_search.py).
            "CREATE TABLE vector_changes (id TEXT PRIMARY KEY, seq INTEGER NOT NULL)",
            "CREATE INDEX vector_changes_seq ON vector_changes(seq)",
            *(
                f"CREATE TRIGGER vectors_{event.lower()}_logged AFTER {event} ON vectors "
                "BEGIN INSERT INTO vector_changes(id, seq) VALUES "
                f"({row}.id, coalesce((SELECT max(seq) FROM vector_changes), 0) + 1) "
                # An upsert, not INSERT OR REPLACE: the store's own upsert of `vectors`
                # would impose its conflict handling on a REPLACE here.
                "ON CONFLICT(id) DO UPDATE SET seq = excluded.seq; END"
                for event, row in (("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD"))
            ),
        ],
    ),
    (
        6,
        [
            # The study reads (`sqlite_cards.py`): what each card and rating is selected,
            # ordered and counted by, so a Study page over 100,000 cards reads the few it shows
            # (the whole deck's JSON took about 1.8 s a read).
            "CREATE TABLE cards ("
            " id TEXT PRIMARY KEY REFERENCES nodes(id),"
            " status TEXT NOT NULL,"
            " studied INTEGER NOT NULL,"
            " state INTEGER,"
            " due TEXT,"
            " card_rank INTEGER NOT NULL,"
            " book TEXT NOT NULL,"
            " created_at TEXT NOT NULL,"
            " item_type TEXT NOT NULL)",
            "CREATE INDEX cards_due ON cards(status, studied, due, id)",
            "CREATE INDEX cards_new ON cards(status, studied, card_rank, book, created_at, id)",
            "CREATE INDEX cards_counted ON cards(book, status, studied, state, due)",
            "CREATE INDEX cards_state ON cards(status, studied, state)",
            # A card's books and concepts, one row each (a card cites up to six books), with
            # the card's status: the books of the approved cards are one seek apiece.
            "CREATE TABLE card_refs ("
            " kind TEXT NOT NULL,"
            " ref TEXT NOT NULL,"
            " item_id TEXT NOT NULL REFERENCES nodes(id),"
            " status TEXT NOT NULL,"
            " PRIMARY KEY (kind, ref, item_id)) WITHOUT ROWID",
            "CREATE INDEX card_refs_item ON card_refs(item_id)",
            "CREATE INDEX card_refs_status ON card_refs(kind, status, ref)",
            "CREATE TABLE reviews ("
            " id TEXT PRIMARY KEY REFERENCES nodes(id),"
            " item_id TEXT NOT NULL,"
            " reviewed_at TEXT NOT NULL,"
            " rating INTEGER NOT NULL,"
            " state_before INTEGER NOT NULL)",
            "CREATE INDEX reviews_time ON reviews(reviewed_at, item_id)",
            index_existing,
        ],
    ),
]
