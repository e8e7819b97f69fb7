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

from zettelgraph.extras import require
from zettelgraph.settings import Settings, mask_url_password

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
# A server that does not answer is reported after this many seconds instead of hanging a run.
CONNECT_TIMEOUT_SECONDS = 10
SETUP_TRIES = 50


class CheckpointError(ValueError):
    """The checkpoint database cannot be opened; the message names the setting to fix."""


@contextmanager
def open_checkpointer(settings: Settings) -> Iterator[BaseCheckpointSaver[Any]]:
    """The checkpoint saver named by ZETTELGRAPH_CHECKPOINTS, set up and ready.

    `sqlite:///PATH` (or a bare path) is a local file; `postgresql://user:pass@host:port/db`
    (or `postgres://`) uses LangGraph's PostgresSaver, creating its tables on first use.
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
            saver.setup()
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
