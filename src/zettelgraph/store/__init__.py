"""Graph stores behind one protocol; `open_store` picks one from a URL."""

from __future__ import annotations

from pathlib import Path

from zettelgraph.packs.relations import DEFAULT_VOCABULARY, RelationVocabulary
from zettelgraph.store.base import GraphStore, StoreError

SCHEMES = "sqlite:///PATH, falkordb://HOST:PORT[/GRAPH], neo4j://USER:PASSWORD@HOST:PORT[/DATABASE]"


def open_store(url: str, vocabulary: RelationVocabulary = DEFAULT_VOCABULARY) -> GraphStore:
    """Open the store named by `url`: SQLite (a bare path too), FalkorDB or Neo4j."""
    scheme = url.split("://", 1)[0] if "://" in url else ""
    if scheme in ("falkordb", "falkordbs"):
        from zettelgraph.store.falkordb import FalkorDBStore

        return FalkorDBStore(url, vocabulary)
    if scheme in ("neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc"):
        from zettelgraph.store.neo4j import Neo4jStore

        return Neo4jStore(url, vocabulary)
    path = sqlite_path(url)
    if path is None:
        raise StoreError(
            f"store URL scheme {scheme!r} is not supported; use one of {SCHEMES} "
            "(ZETTELGRAPH_STORE)"
        )
    from zettelgraph.store.sqlite import SQLiteStore

    return SQLiteStore(path, vocabulary)


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite store URL (`sqlite:///PATH` or a bare path, `~` expanded); None
    for any other URL."""
    if url.startswith("sqlite:///"):
        return Path(url.removeprefix("sqlite:///")).expanduser()
    if "://" not in url:
        return Path(url).expanduser()
    return None


__all__ = ["SCHEMES", "GraphStore", "StoreError", "open_store", "sqlite_path"]
