"""Where workflow checkpoints live: a SQLite file by default, PostgreSQL on servers.

Every workflow reaches its checkpoints only through LangGraph's saver API, so the runs of any
backend are listed, shown and resumed the same way.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from langgraph.checkpoint.base import BaseCheckpointSaver

from zettelgraph.settings import Settings
from zettelgraph.system.extras import require
from zettelgraph.text.masking import mask_url_password

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
# A server that does not answer is reported after this many seconds instead of hanging a run.
CONNECT_TIMEOUT_SECONDS = 10
SETUP_TRIES = 50
# The PostgreSQL advisory lock held while the checkpoint tables are set up (any fixed number
# the database's other users do not take).
SETUP_LOCK = 0x7A6B_7370
SETUP_WAIT_SECONDS = 60


class CheckpointError(ValueError):
    """The checkpoint database cannot be opened; the message names the setting to fix."""


@contextmanager
def open_checkpointer(settings: Settings) -> Iterator[BaseCheckpointSaver[Any]]:
    """The checkpoint saver named by ZETTELGRAPH_CHECKPOINTS, set up and ready.

    `sqlite:///PATH` (or a bare path) is a local file; `postgresql://user:pass@host:port/db`
    (or `postgres://`) uses LangGraph's PostgresSaver, creating its tables on first use.

    Args:
        settings: the settings whose `checkpoints_url` (ZETTELGRAPH_CHECKPOINTS) names the database.

    Yields:
        The saver, open for as long as the `with` block runs; its connection is closed after.

    Raises:
        CheckpointError: the URL's scheme is not supported, or the database cannot be opened or set
            up.
    """
    url = settings.checkpoints_url
    if url.startswith(POSTGRES_SCHEMES):
        with _postgres_saver(url) as saver:
            yield saver
    elif url.startswith("sqlite:///") or "://" not in url:
        with _sqlite_saver(url) as saver:
            yield saver
    else:
        scheme = url.split("://", 1)[0]
        raise CheckpointError(
            f"ZETTELGRAPH_CHECKPOINTS={mask_url_password(url)}: scheme {scheme!r} is not "
            "supported; use sqlite:///PATH or postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
        )


@contextmanager
def _sqlite_saver(url: str) -> Iterator[BaseCheckpointSaver[Any]]:
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = Path(url.removeprefix("sqlite:///")).expanduser()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Fan-out nodes write their results from worker threads; SqliteSaver locks around them.
        connection = sqlite3.connect(path, check_same_thread=False, timeout=30)
    except (OSError, sqlite3.Error) as exc:
        raise CheckpointError(f"ZETTELGRAPH_CHECKPOINTS={url}: cannot open {path}: {exc}") from exc
    try:
        saver = SqliteSaver(connection)
        # Two processes opening a new file at once race to switch it to WAL, which SQLite
        # answers with "locked" at once instead of waiting: try again for a few seconds.
        for attempt in range(SETUP_TRIES):
            try:
                saver.setup()
                break
            except sqlite3.Error as exc:
                if "locked" not in str(exc) or attempt == SETUP_TRIES - 1:
                    raise CheckpointError(f"ZETTELGRAPH_CHECKPOINTS={url}: {path}: {exc}") from exc
                time.sleep(0.1)
        yield saver
    finally:
        connection.close()


@contextmanager
def _postgres_saver(url: str) -> Iterator[BaseCheckpointSaver[Any]]:
    what = "PostgreSQL checkpoints (ZETTELGRAPH_CHECKPOINTS)"
    psycopg = require("psycopg", "postgres", what)
    postgres = require("langgraph.checkpoint.postgres", "postgres", what)
    rows = require("psycopg.rows", "postgres", what)
    try:
        # The settings PostgresSaver.from_conn_string uses (autocommit, dict rows, no prepared
        # statements, which poolers such as PgBouncer reject), plus a connect timeout.
        connection = psycopg.connect(
            url,
            autocommit=True,
            prepare_threshold=0,
            row_factory=rows.dict_row,
            connect_timeout=CONNECT_TIMEOUT_SECONDS,
        )
    except psycopg.Error as exc:
        raise CheckpointError(_postgres_failure(url, "cannot connect", exc)) from exc
    try:
        saver = postgres.PostgresSaver(connection)
        try:
            # Two processes (two machines) opening a new database at once would both run the
            # first migration, and one would fail on the other's version row: one at a time.
            # Polled, not waited for: a session waiting on the lock is a transaction the
            # holder's CREATE INDEX CONCURRENTLY waits for in turn (a deadlock).
            deadline = time.monotonic() + SETUP_WAIT_SECONDS
            while not connection.execute(
                "SELECT pg_try_advisory_lock(%s) AS taken", (SETUP_LOCK,)
            ).fetchone()["taken"]:
                if time.monotonic() > deadline:
                    raise CheckpointError(
                        f"{what}: another process has been setting up the checkpoint tables "
                        f"for {SETUP_WAIT_SECONDS} s; try again"
                    )
                time.sleep(0.1)
            try:
                saver.setup()
            finally:
                connection.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))
        except psycopg.Error as exc:
            raise CheckpointError(
                _postgres_failure(url, "cannot create the checkpoint tables", exc)
            ) from exc
        yield saver
    finally:
        connection.close()


def _postgres_failure(url: str, what: str, exc: Exception) -> str:
    detail = " ".join(str(exc).split())
    # psycopg quotes parts of a malformed URL back, the password included.
    credentials = url.split("://", 1)[1].rsplit("@", 1)[0] if "@" in url else ""
    if ":" in credentials:
        password = credentials.split(":", 1)[1]
        for secret in {password, unquote(password)} - {""}:
            detail = detail.replace(secret, "********")
    return f"ZETTELGRAPH_CHECKPOINTS={mask_url_password(url)}: {what}: {detail}"


# The newest checkpoint of every thread and what has been written on it since (a step's
# pending writes, an interrupt), in one query; each row says whether a thread changed.
_HEADS = {
    "sqlite": (
        "SELECT c.thread_id, c.checkpoint_id, count(w.idx), total(length(w.value)) "
        "FROM checkpoints c LEFT JOIN writes w ON w.thread_id = c.thread_id "
        "AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id "
        "WHERE c.checkpoint_ns = '' AND c.checkpoint_id = (SELECT max(checkpoint_id) "
        "FROM checkpoints l WHERE l.thread_id = c.thread_id AND l.checkpoint_ns = '') "
        "GROUP BY c.thread_id, c.checkpoint_id"
    ),
    "postgres": (
        "SELECT c.thread_id, c.checkpoint_id, count(w.idx) AS writes, "
        "coalesce(sum(length(w.blob)), 0) AS size "
        "FROM (SELECT DISTINCT ON (thread_id) thread_id, checkpoint_ns, checkpoint_id "
        "FROM checkpoints WHERE checkpoint_ns = '' ORDER BY thread_id, checkpoint_id DESC) c "
        "LEFT JOIN checkpoint_writes w ON w.thread_id = c.thread_id "
        "AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id "
        "GROUP BY c.thread_id, c.checkpoint_id"
    ),
}


def thread_heads(saver: BaseCheckpointSaver[Any]) -> dict[str, str] | None:
    """Every thread's id with a mark of its latest state (newest checkpoint id, number and
    size of the writes on it): the mark changes whenever the thread's state does. One query
    on SQLite and PostgreSQL, where LangGraph's `list` reads and decodes every checkpoint of
    every thread (74 ms for 5 runs, on every inbox load); None for another saver.

    Args:
        saver: an open checkpoint saver (from `open_checkpointer`).

    Returns:
        Thread id -> its mark (an opaque text to compare), or None when the saver is neither SQLite
        nor PostgreSQL.
    """
    from langgraph.checkpoint.sqlite import SqliteSaver

    if isinstance(saver, SqliteSaver):
        with saver.cursor(transaction=False) as cursor:
            rows = cursor.execute(_HEADS["sqlite"]).fetchall()
        return {str(t): f"{c}:{n}:{int(s)}" for t, c, n, s in rows}
    if type(saver).__module__.startswith("langgraph.checkpoint.postgres"):
        with saver._cursor() as cursor:  # type: ignore[attr-defined]
            cursor.execute(_HEADS["postgres"])
            found = cursor.fetchall()
        return {
            str(r["thread_id"]): f"{r['checkpoint_id']}:{r['writes']}:{r['size']}" for r in found
        }
    return None
