"""Search in the Cypher stores (FalkorDB, Neo4j): full-text terms, text and vector search,
and the passage filter applied inside both.

Kept apart from `cypher.py` (lifecycle, lease and writes) and `cypher_reads.py` so each stays
readable. The dialects say how a vector index and a full-text index are queried
(`_index_search`, `_text_hits`) and how two vectors compare (`_cosine`); what is searched, how a
query is analysed and how a filter narrows it is decided here once.

A `PassageFilter` is applied in the queries themselves, before any LIMIT, so a search returns
k passages whenever k admitted ones match:

- Contents by id, kind and author: one query (`Content.kind`, `AUTHORED_BY` to a `Person`
  with the folded `name_key`), then `n.content_id IN $contents` on the passages (indexed);
- places (pages, slides, turns, time): a passage's location is only in its JSON record, so
  the passages of those Contents are read once and checked in Python (`scope.in_places`),
  giving an explicit id list;
- vector search is then exact over the admitted passages (no HNSW candidates to run out
  of); full-text search keeps the index's matches among them.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from zettelgraph.models import NodeLabel, PassageFilter, SearchHit
from zettelgraph.store.cypher_reads import CypherReads
from zettelgraph.store.rules import EMBEDDED_LABELS, SEARCHED_LABELS, query_tokens
from zettelgraph.store.scope import active_filter, author_keys, in_places, kind_keys
from zettelgraph.text.stemming import analyze_query

# Labels with a vector and a full-text index: the searched ones (no Section, no Answer).
INDEXED_LABELS = SEARCHED_LABELS
# Labels with a vector index: those and Propositions (searched by vector only).
VECTOR_LABELS = EMBEDDED_LABELS


@dataclass(frozen=True)
class TextTerm:
    """One term of an analysed query (`text.stemming.analyze_query`) as `\\w+` words, so
    that no dialect ever reads user text as syntax: a stem (one word), a phrase (several,
    in order) or a prefix (one word that starts the indexed ones)."""

    words: tuple[str, ...]
    prefix: bool = False

    def query(self) -> str:
        """The term as RediSearch and Lucene both read it: `"one or more words"` or
        `prefix*`. Its words are lower-case `\\w+` runs, so none is an operator (Lucene's
        AND/OR/NOT are operators only in upper case). A single word is quoted too: bare,
        RediSearch also matches what its own Spanish stemmer makes of it ("rios" found
        "rio"), which the text, stemmed already, never means; to Lucene a quoted word is
        that word."""
        if self.prefix:
            return self.words[0] + "*"
        return '"' + " ".join(self.words) + '"'


# A shorter prefix would match most words (RediSearch's own minimum is two letters).
MIN_PREFIX = 2


def text_terms(query: str) -> list[TextTerm]:
    """The terms of `query`, analysed as the indexed text was, once each."""
    terms: list[TextTerm] = []
    for term in analyze_query(query):
        words = tuple(query_tokens(term))
        if not words:
            continue
        prefix = term.endswith("*") and len(words) == 1 and len(words[0]) >= MIN_PREFIX
        terms.append(TextTerm(words, prefix))
    return list(dict.fromkeys(terms))


@dataclass(frozen=True)
class Scope:
    """The passages a filter admits: those of `contents` (None: of any Content), and of
    them only `ids` when places narrowed them further (None: all of them)."""

    contents: list[str] | None
    ids: frozenset[str] | None

    @property
    def empty(self) -> bool:
        return self.contents == [] or self.ids == frozenset()


class CypherSearch(CypherReads):
    """Text and vector search over a Cypher database; the dialects query its indexes."""

    # Up to this many vectors of a label, search scans them all (exact); above it, the
    # vector index proposes candidates that are then scored exactly.
    exact_search_limit: int = 10_000
    # Candidates asked of the vector index per wanted hit (at least `min_candidates`).
    oversample: int = 4
    min_candidates: int = 100

    # --- dialect -----------------------------------------------------------------------
    @abstractmethod
    def _cosine(self, node: str, query: str) -> str:
        """Cypher for the cosine similarity (-1..1) of `node.embedding` and vector `query`."""

    @abstractmethod
    def _index_search(
        self, label: NodeLabel, candidates: int, tail: str, params: Mapping[str, Any]
    ) -> list[list[Any]] | None:
        """`tail` (over `n`) run on the vector index's candidates for `$q`; None if no index."""

    @abstractmethod
    def _text_hits(
        self,
        label: NodeLabel,
        words: Sequence[TextTerm],
        k: int | None,
        contents: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        """(id, score) full-text matches of any of the (analysed) terms, best first: the top
        `k` (every one for None), of the Contents `contents` only when given."""

    # --- search ------------------------------------------------------------------------
    def vector_search(
        self,
        label: NodeLabel,
        vector: NDArray[np.float32],
        k: int,
        *,
        min_score: float | None = None,
        passages: PassageFilter | None = None,
    ) -> list[SearchHit]:
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        chosen = active_filter(label, passages)
        if k <= 0:
            return []
        if not np.all(np.isfinite(query)):
            raise ValueError("query vector contains NaN or infinity")
        label = NodeLabel(label)
        filtered = "WHERE score >= $min" if min_score is not None else ""
        tail = (
            f"WITH n, {self._cosine('n', '$q')} AS score {filtered} "
            "RETURN n.id, score ORDER BY score DESC, n.id LIMIT $k"
        )
        params = {"q": query, "k": k, "min": min_score}
        rows: list[list[Any]] | None = None
        if chosen is not None:
            rows = self._scoped_vector_rows(self._passage_scope(chosen), tail, params)
        elif label in VECTOR_LABELS and self._label_count(label) > self.exact_search_limit:
            candidates = max(k * self.oversample, self.min_candidates)
            rows = self._index_search(label, candidates, tail, params)
        if rows is None:
            rows = self._read(f"MATCH (n:{label}) WHERE n.embedding IS NOT NULL {tail}", params)
        return [SearchHit(id=str(i), label=label, score=float(s)) for i, s in rows]

    def text_search(
        self,
        query: str,
        k: int,
        *,
        label: NodeLabel | None = None,
        passages: PassageFilter | None = None,
    ) -> list[SearchHit]:
        terms = text_terms(query)
        chosen = active_filter(label, passages)
        if not terms or k <= 0:
            return []
        if chosen is not None:
            scope = self._passage_scope(chosen)
            return [
                SearchHit(id=node_id, label=NodeLabel.QUOTE, score=score)
                for node_id, score in self._scoped_text_hits(scope, terms, k)
            ]
        labels = [NodeLabel(label)] if label is not None else list(INDEXED_LABELS)
        hits = [
            SearchHit(id=node_id, label=each, score=score)
            for each in labels
            if each in INDEXED_LABELS
            for node_id, score in self._text_hits(each, terms, k)
        ]
        hits.sort(key=lambda hit: (-hit.score, hit.id))
        return hits[:k]

    # --- a passage filter ------------------------------------------------------------
    def _passage_scope(self, passages: PassageFilter) -> Scope:
        """The passages `passages` admits (see the module docstring)."""
        contents: list[str] | None = None
        if passages.by_content:
            clauses: list[str] = []
            if passages.content_ids:
                clauses.append("c.id IN $ids")
            if passages.kinds:
                clauses.append("toLower(c.kind) IN $kinds")
            where = f"WHERE {' AND '.join(clauses)} " if clauses else ""
            if passages.authors:
                # An author's name_key is indexed: the match starts from the Persons.
                match = "MATCH (p:Person) WHERE p.name_key IN $authors "
                match += f"MATCH (c:Content)-[:AUTHORED_BY]->(p) {where}"
            else:
                match = f"MATCH (c:Content) {where}"
            rows = self._read(
                f"{match}RETURN DISTINCT c.id",
                {
                    "ids": list(passages.content_ids),
                    "kinds": kind_keys(passages),
                    "authors": author_keys(passages),
                },
            )
            contents = sorted(str(row[0]) for row in rows)
            if not contents:
                return Scope(contents=[], ids=None)
        if not passages.places:
            return Scope(contents=contents, ids=None)
        where = "WHERE n.content_id IN $contents " if contents is not None else ""
        ids = set()
        for node_id, data in self._read(
            f"MATCH (n:Quote) {where}RETURN n.id, n.data", {"contents": contents}
        ):
            record = json.loads(data)
            if in_places(record.get("location") or {}, record.get("page"), passages.places):
                ids.add(str(node_id))
        return Scope(contents=contents, ids=frozenset(ids))

    def _scoped_vector_rows(
        self, scope: Scope, tail: str, params: Mapping[str, Any]
    ) -> list[list[Any]]:
        """`tail` (score, order, limit over `n`) run exactly over the admitted passages."""
        if scope.empty:
            return []
        if scope.ids is not None:
            return self._read(
                "UNWIND $ids AS id MATCH (n:Node {id: id}) "
                f"WHERE n:Quote AND n.embedding IS NOT NULL {tail}",
                {**params, "ids": sorted(scope.ids)},
            )
        where = "n.content_id IN $contents AND " if scope.contents is not None else ""
        return self._read(
            f"MATCH (n:Quote) WHERE {where}n.embedding IS NOT NULL {tail}",
            {**params, "contents": scope.contents},
        )

    def _scoped_text_hits(
        self, scope: Scope, words: Sequence[TextTerm], k: int
    ) -> list[tuple[str, float]]:
        """Full-text matches among the admitted passages, best first."""
        if scope.empty:
            return []
        if scope.ids is None:
            return self._text_hits(NodeLabel.QUOTE, words, k, scope.contents)
        # Places: every match of those Contents, then the admitted ones (a Python set, where a
        # Cypher `IN` over a long id list would cost matches x ids).
        hits = self._text_hits(NodeLabel.QUOTE, words, None, scope.contents)
        return [hit for hit in hits if hit[0] in scope.ids][:k]
