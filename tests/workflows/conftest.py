"""The backends the workflow tests run on: the embedded default, then real servers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness import Harness, MakeHarness


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


@pytest.fixture
def make_harness(tmp_path: Path, backend_urls: dict[str, str]) -> Iterator[MakeHarness]:
    """Harnesses on each backend (`tests/workflows/conftest.py`), closed after the test."""
    made: list[Harness] = []

    def make(replies: dict[str, list[Any]] | None = None, **settings: Any) -> Harness:
        made.append(Harness(tmp_path / f"home{len(made)}", replies, **backend_urls, **settings))
        return made[-1]

    yield make
    for h in made:
        h.close()


@pytest.fixture
def harness(make_harness: MakeHarness) -> Harness:
    return make_harness()
