"""Hybrid search over passages (book-note quotes and document chunks), with citations.

    query -> full-text (BM25) candidates + vector candidates -> fused
          -> graph expansion: concepts the top passages support and concepts close to the
             query, and the passages that support those concepts -> fused again
          -> top k passages, each with its Content, author, location, parent section
             (the passage in context), the concepts it supports, and which methods found it

No LLM is called: search is fast, offline and deterministic. A `PassageFilter` (contents,
kinds, authors, places) is applied by the store inside the full-text and vector searches,
so each still proposes its candidates among the admitted passages; passages reached
through concepts are checked against it here (docs/design.md, "Filtered search").
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from zettelgraph.llm.embeddings import Embedder, embed_queries
from zettelgraph.models import (
    Concept,
    Content,
    NodeLabel,
    PassageFilter,
    Quote,
    Relation,
    SearchResult,
)
from zettelgraph.models.locations import quote_place
from zettelgraph.packs.relations import SUPPORTS
from zettelgraph.retrieval.fusion import Fused, Ranked, fuse
from zettelgraph.retrieval.recipes import SearchRecipe
from zettelgraph.store.base import GraphStore
from zettelgraph.store.rules import query_tokens
from zettelgraph.store.scope import admits


@dataclass
class Retriever:
    """Search with injected collaborators: the store to search and the embedder of its vectors."""

    store: GraphStore
    embedder: Embedder

    def candidates(
        self, query: str, recipe: SearchRecipe, passages: PassageFilter | None = None
    ) -> list[Fused]:
        """Every passage any method found among those `passages` admits, fused and ranked
        (the benchmark reads this)."""
        lists: dict[str, Ranked] = {}
        weights = recipe.weights
        if passages is not None and not passages.active:
            passages = None
        wants_vector = (
            recipe.vector_weight > 0 or recipe.graph_weight > 0 or recipe.proposition_weight > 0
        )
        with ThreadPoolExecutor(max_workers=1) as pool:
            # The full-text search runs while the question is embedded: both wait on C code
            # that lets go of the GIL (SQLite or a server's socket, the embedder's engine), so
            # a hybrid search costs about the longer of the two, not their sum (at a million
            # passages, e5's 30 ms embedding beside SQLite's 20-50 ms search).
            text = (
                pool.submit(self.fulltext, query, recipe, passages)
                if recipe.fulltext_weight > 0
                else None
            )
            vector = embed_queries(self.embedder, [query])[0] if wants_vector else None
            hits = (
                self.store.vector_search(
                    NodeLabel.QUOTE, vector, recipe.candidates, passages=passages
                )
                if recipe.vector_weight > 0 and vector is not None
                else None
            )
            if text is not None:
                lists["fulltext"] = text.result()
        if hits is not None:
            lists["vector"] = [(hit.id, hit.score) for hit in hits]
        if recipe.proposition_weight > 0 and vector is not None:
            lists["propositions"] = self.propositions(vector, recipe, passages)
        fused = fuse(lists, weights, recipe)
        if recipe.graph_weight > 0 and vector is not None:
            graph = self.graph(fused, vector, recipe, passages)
            if graph:
                lists["graph"] = graph
                fused = fuse(lists, weights, recipe)
        return fused

    def fulltext(
        self, query: str, recipe: SearchRecipe, passages: PassageFilter | None = None
    ) -> Ranked:
        # The store analyses the query as it analysed the passages: the question's language
        # guessed, its function words dropped, the rest stemmed (text.stemming.analyze_query).
        hits = self.store.text_search(
            query, recipe.candidates, label=NodeLabel.QUOTE, passages=passages
        )
        return [(hit.id, hit.score) for hit in hits]

    def propositions(
        self, vector: NDArray[np.float32], recipe: SearchRecipe, passages: PassageFilter | None
    ) -> Ranked:
        """Passages whose statements are closest to the query, each scored by its best one."""
        # A passage has several statements: three times the candidates still leaves about
        # `candidates` passages after keeping each passage's best.
        hits = self.store.vector_search(NodeLabel.PROPOSITION, vector, 3 * recipe.candidates)
        if not hits:
            return []
        passage_of = {p.id: p.passage_id for p in self.store.get_propositions([h.id for h in hits])}
        best: dict[str, float] = {}
        for hit in hits:
            passage_id = passage_of.get(hit.id)
            if passage_id is not None and hit.score > best.get(passage_id, -2.0):
                best[passage_id] = hit.score
        if passages is not None:
            admitted = self._admitted(self.store.get_quotes(list(best)), passages)
            best = {q.id: best[q.id] for q in admitted}
        ranked = sorted(best.items(), key=lambda item: (-item[1], item[0]))
        return ranked[: recipe.candidates]

    def graph(
        self,
        fused: list[Fused],
        vector: NDArray[np.float32],
        recipe: SearchRecipe,
        passages: PassageFilter | None = None,
    ) -> Ranked:
        """Passages reached through concepts, scored by how strongly their concept was reached.

        Seeds are the concepts closest to the query (scored by that similarity) and the
        concepts the top passages support (scored by the passage's share of the top score).
        """
        seeds: dict[str, float] = {}
        if recipe.graph_concepts > 0:
            for hit in self.store.vector_search(
                NodeLabel.CONCEPT,
                vector,
                recipe.graph_concepts,
                min_score=recipe.graph_min_similarity,
            ):
                seeds[hit.id] = max(seeds.get(hit.id, 0.0), hit.score)
        top = fused[: recipe.graph_seed_passages]
        best = top[0].score if top and top[0].score > 0 else 1.0
        # One read per step, not one per passage and per concept: on a server store each read
        # is a round trip, and fifteen of them were most of a hybrid search's time.
        score_of = {entry.id: max(entry.score, 0.0) / best for entry in top}
        for relation in self._supports(list(score_of), "out"):
            if relation.source_id in score_of:
                strength = score_of[relation.source_id]
                seeds[relation.target_id] = max(seeds.get(relation.target_id, 0.0), strength)
        reached: dict[str, float] = {}
        for relation in self._supports(list(seeds), "in"):
            if relation.target_id in seeds:
                source, strength = relation.source_id, seeds[relation.target_id]
                reached[source] = max(reached.get(source, 0.0), strength)
        # Concept -> Concept SUPPORTS edges also arrive here: keep passages only, and of
        # those the ones the filter admits (before the cut, so the list stays full).
        quotes = self.store.get_quotes(list(reached))
        if passages is not None:
            quotes = self._admitted(quotes, passages)
        kept = {q.id for q in quotes}
        ranked = [(pid, score) for pid, score in reached.items() if pid in kept]
        ranked.sort(key=lambda item: (-item[1], item[0]))
        return ranked[: recipe.candidates]

    def _supports(self, node_ids: list[str], direction: str) -> list[Relation]:
        """The SUPPORTS relations leaving ("out") or reaching ("in") any of `node_ids`."""
        if not node_ids:
            return []
        relations = self.store.relations_of(node_ids, direction=direction)
        return [r for r in relations if r.type == SUPPORTS]

    def _admitted(self, quotes: list[Quote], passages: PassageFilter) -> list[Quote]:
        """The quotes the filter admits, each Content (and its author) read once."""
        kinds: dict[str, str] = {}
        authors: dict[str, str | None] = {}
        for content_id in {q.content_id for q in quotes}:
            content: Content | None = self.store.get_content(content_id)
            kinds[content_id] = content.kind if content else ""
            author = self.store.author_of(content_id) if passages.authors else None
            authors[content_id] = author.name if author else None
        return [
            q
            for q in quotes
            if admits(
                passages,
                content_id=q.content_id,
                kind=kinds[q.content_id],
                author=authors[q.content_id],
                location=q.location,
                page=q.page,
            )
        ]

    def search(
        self, query: str, k: int, recipe: SearchRecipe, passages: PassageFilter | None = None
    ) -> list[SearchResult]:
        """The top `k` passages (among those `passages` admits) with citations, best first."""
        if not query_tokens(query):
            return []
        top = self.candidates(query, recipe, passages)[:k]
        return self.results(top)

    def results(self, ranked: list[Fused]) -> list[SearchResult]:
        quotes = {q.id: q for q in self.store.get_quotes([entry.id for entry in ranked])}
        section_ids = [q.parent_id for q in quotes.values() if q.parent_id]
        sections = {s.id: s for s in self.store.get_sections(section_ids)}
        contents: dict[str, Any] = {}
        authors: dict[str, str | None] = {}
        out: list[SearchResult] = []
        for entry in ranked:
            quote = quotes.get(entry.id)
            if quote is None:
                continue
            if quote.content_id not in contents:
                contents[quote.content_id] = self.store.get_content(quote.content_id)
                person = self.store.author_of(quote.content_id)
                authors[quote.content_id] = person.name if person else None
            content = contents[quote.content_id]
            section = sections.get(quote.parent_id or "")
            out.append(
                SearchResult(
                    n=len(out) + 1,
                    passage_id=quote.id,
                    text=quote.text,
                    score=entry.score,
                    methods=entry.methods,
                    method_scores=entry.method_scores,
                    content_id=quote.content_id,
                    content_title=content.title if content else "",
                    content_kind=content.kind if content else "",
                    author=authors[quote.content_id],
                    location=quote.location,
                    location_label=quote_place(quote),
                    section_id=section.id if section else None,
                    section_title=(section.title if section else quote.section) or None,
                    context=section.text if section else None,
                    concepts=self._concepts_of(quote.id),
                )
            )
        return out

    def _concepts_of(self, passage_id: str) -> list[dict[str, str]]:
        out: list[dict[str, str]] = []
        for relation in self.store.relations(passage_id, relation_type=SUPPORTS):
            concept: Concept | None = self.store.get_concept(relation.target_id)
            if concept is not None:
                out.append({"id": concept.id, "title": concept.title})
        return out
