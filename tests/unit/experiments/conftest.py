"""A real SQLite store per test, wrapped in the builders of `experiment_corpus`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from experiment_corpus import Corpus

from zettelgraph.store import open_store


@pytest.fixture
def corpus(tmp_path: Path) -> Iterator[Corpus]:
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        yield Corpus(store)
    finally:
        store.close()
