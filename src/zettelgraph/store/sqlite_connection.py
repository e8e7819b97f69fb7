"""The SQLite store's connection: how a file is opened and migrated, the lock every call
holds, and the transactions its reads and writes run in.

Kept apart from `sqlite.py` (writes), `sqlite_reads.py` and `sqlite_search.py` because all
three use it: one connection serves every thread of a run, so the rules for using it are
written once.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from zettelgraph.store.base import StoreError
from zettelgraph.store.migrations import MIGRATIONS
from zettelgraph.store.sqlite_text import open_vocabulary

# The most of the store file SQLite reads through a memory map (capped by SQLite's build).
MMAP_BYTES = 1 << 34

P = ParamSpec("P")
R = TypeVar("R")


def connect(path: Path) -> sqlite3.Connection:
    """Open (or create) the store file at `path` in WAL mode, migrated to the current schema;
    a StoreError that says what to do when it cannot be opened or is not a store."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: we issue BEGIN/COMMIT ourselves.
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot open the store at {path}: {exc}") from exc
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA busy_timeout=10000")
        # Reads through a memory map of the file instead of copies into SQLite's own page
        # cache (2 MB by default): at a million passages a full-text search reads doclists
        # far larger than that cache, and with the map the hybrid search's p95 fell by 5-10
        # ms in alternating fresh processes on the same store (docs/benchmarks.md). SQLite
        # caps the size at its build's limit (2 GB in Python's); the mapped pages are the
        # operating system's file cache, so they show in RSS without being the process's own.
        db.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
        _migrate(db)
        open_vocabulary(db)
    except sqlite3.DatabaseError as exc:
        db.close()  # do not leak the handle of a file we refuse
        raise StoreError(
            f"cannot open the store at {path}: {exc}. Is it a zettelgraph database? "
            "Point ZETTELGRAPH_STORE elsewhere or move the file away."
        ) from exc
    return db


def _migrate(db: sqlite3.Connection) -> None:
    db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)"
    )
    done = {row[0] for row in db.execute("SELECT version FROM schema_migrations")}
    for version, statements in MIGRATIONS:
        if version in done:
            continue
        with Transaction(db, "BEGIN IMMEDIATE"):
            # Another process may have applied it while we waited for the write lock.
            applied = db.execute(
                "SELECT 1 FROM schema_migrations WHERE version = ?", (version,)
            ).fetchone()
            if applied is not None:
                continue
            for statement in statements:
                if isinstance(statement, str):
                    db.execute(statement)
                else:
                    statement(db)
            db.execute("INSERT INTO schema_migrations(version) VALUES (?)", (version,))


def locked(method: Callable[Concatenate[Any, P], R]) -> Callable[Concatenate[Any, P], R]:
    """Hold the store's lock for the whole call.

    One connection serves every thread of a run (parallel workflow branches): without the
    lock two branches could interleave statements or begin two transactions at once.
    """

    def wrapper(self: Any, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with self._lock:
            return method(self, *args, **kwargs)

    functools.update_wrapper(wrapper, method)
    return wrapper


class Transaction:
    """`BEGIN [IMMEDIATE]` ... `COMMIT`, or `ROLLBACK` on any exception."""

    def __init__(self, db: sqlite3.Connection, begin: str) -> None:
        self._db = db
        self._begin = begin

    def __enter__(self) -> None:
        self._db.execute(self._begin)

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self._db.execute("COMMIT")
        else:
            self._db.execute("ROLLBACK")
