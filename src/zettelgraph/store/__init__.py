"""Graph stores behind one protocol; `open_store` picks one from a URL."""

from __future__ import annotations

from pathlib import Path

from zettelgraph.relations import DEFAULT_VOCABULARY, RelationVocabulary
from zettelgraph.store.base import GraphStore, StoreError


def open_store(url: str, vocabulary: RelationVocabulary = DEFAULT_VOCABULARY) -> GraphStore:
    """Open the store named by `url` (`sqlite:///path`, or a bare file path)."""
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
    elif "://" not in url:
        path = Path(url)
    else:
        scheme = url.split("://", 1)[0]
        raise StoreError(
            f"store URL scheme {scheme!r} is not supported yet; use sqlite:///PATH "
            "(ZETTELGRAPH_STORE)"
        )
    from zettelgraph.store.sqlite import SQLiteStore

    return SQLiteStore(path.expanduser(), vocabulary)


__all__ = ["GraphStore", "StoreError", "open_store"]
