"""Shared fixtures: every test runs with its own ZETTELGRAPH_HOME and no user configuration;
server backends come from the session fixtures in `tests/servers.py`."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

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

# Property tests assert what holds, never how fast: a per-example deadline fails them on a
# loaded machine (a 289 ms example against the 200 ms default, under a parallel run).
hypothesis_settings.register_profile("zettelgraph", deadline=None)
hypothesis_settings.load_profile("zettelgraph")

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


# The modules of the tests marked `local_llm` (the offline llama.cpp model, tens of seconds per
# call on a laptop's cores): pytest-xdist runs them all on one worker, one after another,
# while the other workers run the rest of the suite, so two model servers never compete for
# the same cores. Listed by path because the scheduler sees only test ids; collection checks
# the list against the marker.
LOCAL_MODEL_MODULES = (
    "tests/integration/test_local_llm.py",
    "tests/integration/test_openai_compatible.py",
)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist load`, but every local-model test in one unit of work. (xdist's own
    `--dist loadgroup` marks groups by renaming test ids, which pytest 9 no longer allows.)"""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class LocalModelOnOneWorker(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "local model" if nodeid.startswith(LOCAL_MODEL_MODULES) else nodeid

    return LocalModelOnOneWorker(config, log)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        listed = item.nodeid.startswith(LOCAL_MODEL_MODULES)
        if bool(item.get_closest_marker("local_llm")) != listed:
            raise pytest.UsageError(
                f"{item.nodeid}: a test marked local_llm must be in one of "
                f"LOCAL_MODEL_MODULES (tests/conftest.py), and only those"
            )


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
