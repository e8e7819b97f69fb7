"""Re-embed every quote, proposition and concept with the configured embedder, and rebuild
the full-text index from the analysed text (`zettelgraph reindex`)."""

from __future__ import annotations

from dataclasses import dataclass

from zettelgraph.context import Services
from zettelgraph.models import NodeLabel, embedding_text
from zettelgraph.store.base import StoreError


class ReindexError(StoreError):
    """The store holds vectors that cannot be re-embedded: nothing was changed."""


@dataclass
class ReindexResult:
    texts: int
    embedder: str
    dim: int
    counts: dict[str, int]
    # Nodes re-analysed into the full-text index.
    fulltext: int = 0


def reindex(services: Services) -> ReindexResult:
    """Swap every stored vector for one from the configured embedder, in one transaction.

    Args:
        services: the open services (store and configured embedder).

    Returns:
        A `ReindexResult`: how many texts were embedded, the embedder's name and dimension, the
        store's counts per label and how many nodes were re-indexed for full-text search.

    Raises:
        ReindexError: some vectors belong to nodes whose text cannot be found; nothing was changed.
    """
    store = services.store
    texts: dict[str, str] = {}
    for content in store.list_contents():
        quotes = store.quotes_of(content.id)
        texts.update({q.id: embedding_text(q) for q in quotes})
        propositions = store.propositions_of([q.id for q in quotes])
        texts.update({p.id: embedding_text(p) for p in propositions})
    texts.update({c.id: embedding_text(c) for c in store.list_concepts()})
    # Nodes that had a vector but are not reachable above could not be re-embedded.
    missing = [node_id for node_id, _ in store.vectors() if node_id not in texts]
    if missing:
        raise ReindexError(
            f"{len(missing)} vectors belong to nodes that cannot be re-embedded: {missing[:3]}"
        )
    ids = list(texts)
    vectors = services.embedder.embed([texts[i] for i in ids]) if ids else None
    dim = services.embedder.dim
    store.replace_vectors(
        services.embedder.name,
        dim,
        {} if vectors is None else {node_id: vectors[i] for i, node_id in enumerate(ids)},
    )
    # Every backend indexes an analysed copy of each text: rebuilt, a store written before
    # the analysis changed is searched the way new text is indexed.
    fulltext = store.rebuild_fulltext()
    counts = {str(label): store.counts()[str(label)] for label in NodeLabel}
    return ReindexResult(
        texts=len(ids), embedder=services.embedder.name, dim=dim, counts=counts, fulltext=fulltext
    )
