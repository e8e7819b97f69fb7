"""`open_store` picks the backend from the URL and turns a bad one into a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from zettelgraph.store import open_store
from zettelgraph.store.base import StoreError
from zettelgraph.store.sqlite import SQLiteStore


def test_sqlite_urls_and_bare_paths(tmp_path: Path) -> None:
    for url in (f"sqlite:///{tmp_path / 'a.db'}", str(tmp_path / "b.db")):
        store = open_store(url)
        try:
            assert isinstance(store, SQLiteStore)
        finally:
            store.close()


def test_an_unknown_scheme_lists_the_supported_ones() -> None:
    with pytest.raises(StoreError, match=r"falkordb://.*neo4j://.*ZETTELGRAPH_STORE"):
        open_store("mongodb://127.0.0.1/x")


def test_an_unreachable_neo4j_says_so_without_the_password() -> None:
    with pytest.raises(StoreError, match="cannot reach Neo4j") as failure:
        open_store("neo4j://neo4j:s3cret@127.0.0.1:1")
    assert "s3cret" not in str(failure.value)
