"""The reviewed graph as card making reads it: concepts, their quotes and relations, the cards
already made. Reads are cached for one node's work; nothing here writes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
from numpy.typing import NDArray

from zettelgraph.guards.grounding import concept_text
from zettelgraph.llm.embeddings import Embedder, is_semantic
from zettelgraph.models import (
    Concept,
    Difficulty,
    ItemStatus,
    ItemType,
    LearningItem,
    NodeLabel,
    Quote,
    embedding_text,
)
from zettelgraph.packs.relations import SUPPORTS, RelationVocabulary
from zettelgraph.store.base import GraphStore, every_node
from zettelgraph.store.vector_index import normalize_rows
from zettelgraph.workflows.learning_items.items import Edge
from zettelgraph.workflows.learning_items.state import Kind, QuoteView


def stored_items(store: GraphStore) -> Iterator[LearningItem]:
    """Every learning item in the store, page by page."""
    return every_node(store, NodeLabel.LEARNING_ITEM, LearningItem)


def kind_of(item: LearningItem) -> Kind:
    """The kind of card an item is: a relation card of two hops is a chain."""
    if item.item_type == ItemType.RELATION:
        return "chain" if item.difficulty == Difficulty.HARD else "relation"
    return str(item.item_type)  # type: ignore[return-value]


def live(item: LearningItem) -> bool:
    """Whether an item counts: proposed or approved (a dropped one is not a card)."""
    return item.status != ItemStatus.DROPPED


def quote_view(quote: Quote) -> QuoteView:
    return {
        "id": quote.id,
        "text": quote.text,
        "page": quote.page,
        "content_id": quote.content_id,
    }


class GraphReader:
    """Cached reads of concepts, their quotes (the closest first), relations and vectors."""

    def __init__(
        self, store: GraphStore, embedder: Embedder, vocabulary: RelationVocabulary
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.vocabulary = vocabulary
        self._concepts: dict[str, Concept | None] = {}
        self._quotes: dict[str, list[Quote]] = {}
        self._edges: dict[str, list[Edge]] = {}
        self._vectors: dict[str, NDArray[np.float32]] = {}

    def concept(self, concept_id: str) -> Concept | None:
        if concept_id not in self._concepts:
            self._concepts[concept_id] = self.store.get_concept(concept_id)
        return self._concepts[concept_id]

    def quotes(self, concept: Concept) -> list[Quote]:
        """The quotes that support `concept`, the one closest to it first (reading order when
        the embedder does not measure meaning)."""
        if concept.id not in self._quotes:
            supports = self.store.relations(concept.id, relation_type=SUPPORTS, direction="in")
            # Concept -> concept SUPPORTS edges come in too; only Quotes are its quotes.
            quotes = self.store.get_quotes([r.source_id for r in supports])
            quotes.sort(key=lambda q: (q.content_id, q.position, q.id))
            if len(quotes) > 1 and is_semantic(self.embedder):
                vectors = normalize_rows(
                    self.embedder.embed(
                        [concept_text(concept.model_dump()), *(q.text for q in quotes)]
                    )
                )
                scores = vectors[1:] @ vectors[0]
                order = sorted(range(len(quotes)), key=lambda i: (-float(scores[i]), i))
                quotes = [quotes[i] for i in order]
            self._quotes[concept.id] = quotes
        return self._quotes[concept.id]

    def content_ids(self, concept: Concept) -> list[str]:
        """The books a concept comes from: its run's content, then its quotes'."""
        first = concept.provenance.get("content_id")
        ids = [first] if isinstance(first, str) else []
        return list(dict.fromkeys([*ids, *(q.content_id for q in self.quotes(concept))]))

    def edges(self, concept_id: str) -> list[Edge]:
        """Reviewed relations from `concept_id` to other concepts, the automatic reverses
        included (each read from this end), the most confident first."""
        if concept_id not in self._edges:
            edges = []
            for relation in self.store.relations(concept_id, direction="out"):
                if relation.type not in self.vocabulary.types:
                    continue
                if relation.target_id == concept_id or self.concept(relation.target_id) is None:
                    continue
                edges.append(
                    _edge(
                        relation.source_id,
                        relation.target_id,
                        relation.type,
                        relation.properties,
                        self.vocabulary,
                    )
                )
            edges.sort(key=lambda e: (-e.confidence, not e.given, e.target, e.type))
            self._edges[concept_id] = edges
        return self._edges[concept_id]

    def supported_by(self, quote_id: str) -> set[str]:
        """The concepts a quote supports."""
        return {
            r.target_id
            for r in self.store.relations(quote_id, relation_type=SUPPORTS, direction="out")
        }

    def vector(self, concept: Concept) -> NDArray[np.float32]:
        """The concept's vector as the store has it (its embedding text, same embedder)."""
        if concept.id not in self._vectors:
            vector = self.embedder.embed([embedding_text(concept)])[0]
            self._vectors[concept.id] = normalize_rows(vector.reshape(1, -1))[0]
        return self._vectors[concept.id]

    def nearest(self, concept: Concept, k: int) -> list[Concept]:
        """The other concepts closest to `concept` by meaning, best first."""
        hits = self.store.vector_search(NodeLabel.CONCEPT, self.vector(concept), k + 1)
        found = [self.concept(h.id) for h in hits if h.id != concept.id]
        return [c for c in found if c is not None][:k]


def _edge(
    source: str,
    target: str,
    relation_type: str,
    properties: dict[str, Any],
    vocabulary: RelationVocabulary,
) -> Edge:
    confidence = properties.get("confidence")
    return Edge(
        source=source,
        target=target,
        type=relation_type,
        explanation=str(properties.get("explanation") or "").strip(),
        confidence=float(confidence) if isinstance(confidence, int | float) else 0.0,
        given="inferred_reverse_of" not in properties,
        vocabulary=vocabulary,
    )
