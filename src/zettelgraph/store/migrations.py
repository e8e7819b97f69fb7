"""Numbered schema migrations for the SQLite store; append, never edit an applied one."""

from __future__ import annotations

MIGRATIONS: list[tuple[int, list[str]]] = [
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
]
