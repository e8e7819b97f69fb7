"""Shared fixtures: every test runs with its own ZETTELGRAPH_HOME and no user configuration;
server backends come from the session fixtures in `tests/servers.py`."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Plain module imports of the fixtures: `tests/` is on sys.path (pytest's rootdir-relative
# import of this conftest), and a fixture imported into conftest is visible to every test.
from document_files import (
    book_pdf,
    deck_pptx,
    encrypted_pdf,
    field_guide_docx,
    image_only_pdf,
    labelled_pdf,
    localized_docx,
    make_pdf,
    owner_only_pdf,
)
from servers import falkordb_graph_url, falkordb_url, postgres_database_url, postgres_url

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
EXAMPLES = REPO / "examples"

__all__ = [
    "book_pdf",
    "deck_pptx",
    "encrypted_pdf",
    "falkordb_graph_url",
    "falkordb_url",
    "field_guide_docx",
    "image_only_pdf",
    "labelled_pdf",
    "localized_docx",
    "make_pdf",
    "owner_only_pdf",
    "postgres_database_url",
    "postgres_url",
]


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private home, and no ZETTELGRAPH_* variables from the developer's shell."""
    for name in list(os.environ):
        if name.startswith("ZETTELGRAPH_"):
            monkeypatch.delenv(name)
    home = tmp_path / "zg-home"
    monkeypatch.setenv("ZETTELGRAPH_HOME", str(home))
    yield home


@pytest.fixture
def shared_data() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"shared data folder {SHARED} is not present next to the repository")
    return SHARED / "data"
