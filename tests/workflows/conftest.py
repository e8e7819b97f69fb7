"""The backends the workflow tests run on: the embedded default, then real servers."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["sqlite", "falkordb+postgres"])
def backend_urls(request: pytest.FixtureRequest) -> dict[str, str]:
    """`store` and `checkpoints` settings: none for the SQLite files in the test's home, or a
    FalkorDB graph and a PostgreSQL database of the test's own, both dropped afterwards."""
    if request.param == "sqlite":
        return {}
    return {
        "store": request.getfixturevalue("falkordb_graph_url"),
        "checkpoints": request.getfixturevalue("postgres_database_url"),
    }
