"""Whole-store reads of the SQLite store kept until the database changes.

The web app's heaviest pages read the same rows on every request while nothing changes: the
Study, Cards and next-card pages parse every card's state (600 cards: about 12 ms of a 40 ms
page), the whole graph reads every relation of every node and decodes their properties (170
concepts and 2,500 relations: about 55 ms of a 100 ms page). Under 20 clients that CPU is the
queue every other request waits in. A result is reused only while the database is exactly as
it was when it was read: `PRAGMA data_version` moves when another connection commits (another
process, the CLI, a second server) and the connection's `total_changes` when this one writes,
so a write from anywhere invalidates everything and a reader never sees an older state than
it would without the memo. Callers get a fresh list; the rows themselves are shared and are
never modified by the read paths that use them (graph view, study, cards).
"""

from __future__ import annotations

import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

_SIZE = 32  # results kept: the whole graph, the card states, a few rings of a concept


class ReadMemo:
    """Results of reads, each kept while the database's state is the one it was read in.

    Not locked itself: the store calls it under its own lock, as every read."""

    def __init__(self, db: sqlite3.Connection, size: int = _SIZE) -> None:
        self._db = db
        self._size = size
        self._state: tuple[int, int] | None = None
        self._kept: OrderedDict[Hashable, Any] = OrderedDict()

    def _current(self) -> tuple[int, int]:
        version = int(self._db.execute("PRAGMA data_version").fetchone()[0])
        return version, self._db.total_changes

    def get(self, key: Hashable, read: Callable[[], list[T]]) -> list[T]:
        """`read()`'s rows, reused while nothing was written since they were read."""
        state = self._current()
        if state != self._state:
            self._kept.clear()
            self._state = state
        if key in self._kept:
            self._kept.move_to_end(key)
            rows: list[T] = self._kept[key]
            return list(rows)
        rows = read()
        self._kept[key] = rows
        if len(self._kept) > self._size:
            self._kept.popitem(last=False)
        return list(rows)
