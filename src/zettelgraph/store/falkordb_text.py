"""BM25 inside FalkorDB: full-text matches scored by the server, over a bounded set.

FalkorDB (4.16, and 4.20 per its issue 1208) cannot rank full-text matches itself: the score
`db.idx.fulltext.queryNodes` yields is the number of query terms a node matched, and a
`scorer` option given to `createNodeIndex` is accepted and ignored. Ranking every match in
Python cost 215 ms p95 at 10,080 passages, most of it in sending every match's text and
tokenising it. So, per search:

1. Collection statistics (how many nodes, their mean length) and each term's document
   frequency are read once per *text generation*, a counter every write of searched text
   raises (`generation_statement`), and kept by the store handle (`TextStatistics`). A term's
   document frequency is a `count(node)` over its matches, which the server runs without
   materialising the nodes (about 1 µs a match; 10,430 matches of one term at 100,000
   passages took 40 ms at load 10).
2. Candidates are the matches of the rarest terms (`candidate_terms`): rarest first until they
   hold at least k matches, then only while they stay within `budget` matches. A passage
   that holds none of those terms, only common ones, is not scored. If fewer than k scored
   passages come back, the search is run again over every term, so a search still returns k
   whenever k match.
3. The server computes BM25 over those candidates in Cypher (`score_query`): a term's
   frequency in a node is the number of pieces `split` cuts its analysed text into, minus
   one, and only the top k rows come back.

The scores are the exact BM25 of the candidates, with Lucene's idf and the constants SQLite's
FTS5 and Lucene use; what the bound costs in quality is measured in docs/benchmarks.md.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from zettelgraph.models import NodeLabel
from zettelgraph.store.cypher_search import TextTerm
from zettelgraph.store.cypher_statements import Statement
from zettelgraph.store.text_terms import TEXT_CANDIDATES, candidate_terms

# BM25's usual constants, the ones SQLite's FTS5 and Lucene (Neo4j) use.
BM25_K1 = 1.2
BM25_B = 0.75

# The meta node whose counter says which text statistics are current.
GENERATION_KEY = "text_generation"


def generation_statement() -> Statement:
    """Raise the text generation: part of every write that changes searched text."""
    return Statement(
        f"UNWIND $rows AS row MERGE (m:ZettelgraphMeta {{key: '{GENERATION_KEY}'}}) "
        "SET m.generation = coalesce(m.generation, 0) + 1",
        [{}],
    )


def needle(term: TextTerm) -> str:
    """What `split` cuts a node's text at, once per occurrence of `term`. The text is searched
    with every word between two spaces of its own (`score_query`), so a stem or a phrase is
    matched as whole words and a prefix only at the start of a word."""
    if term.prefix:
        return " " + term.words[0]
    return " " + "  ".join(term.words) + " "


def idf(found_in: int, documents: int) -> float:
    """Lucene's idf, ln(1 + (N - n + 0.5) / (n + 0.5)): never negative, even for a term
    most nodes hold (FTS5's own can be)."""
    return math.log(1 + (documents - found_in + 0.5) / (found_in + 0.5))


def score_query(label: NodeLabel, filtered: bool, limited: bool) -> str:
    """Cypher that scores the matches of `$q` by BM25 in the server: `$terms` holds each
    query term's [idf, needle], `$avgdl` the mean length; `$contents` narrows the matches
    when `filtered`, `$k` keeps the best when `limited`."""
    where = "WHERE node.content_id IN $contents " if filtered else ""
    return (
        f"CALL db.idx.fulltext.queryNodes('{label}', $q) YIELD node WITH node {where}"
        # Two spaces between words: adjacent occurrences are then all cut at.
        "WITH node, ' ' + replace(node.text_stems, ' ', '  ') + ' ' AS text, "
        f"{BM25_K1} * (1 - {BM25_B} + {BM25_B} * node.text_length / $avgdl) AS norm "
        "WITH node, reduce(s = 0.0, t IN [t IN $terms | [t[0], size(split(text, t[1])) - 1]] "
        f"| s + t[0] * t[1] * {BM25_K1 + 1} / (t[1] + norm)) AS score "
        f"RETURN node.id, score ORDER BY score DESC, node.id{' LIMIT $k' if limited else ''}"
    )


@dataclass
class TextStatistics:
    """What BM25 needs from a whole label, for one text generation: how many nodes it has,
    their mean length in words, and each term's document frequency (read on first use)."""

    generation: object
    collection: dict[NodeLabel, tuple[int, float]] = field(default_factory=dict)
    found_in: dict[tuple[NodeLabel, str], int] = field(default_factory=dict)

    def documents(
        self, label: NodeLabel, read: Callable[[NodeLabel], tuple[int, float]]
    ) -> tuple[int, float]:
        if label not in self.collection:
            self.collection[label] = read(label)
        return self.collection[label]

    def frequencies(
        self,
        label: NodeLabel,
        queries: Sequence[str],
        count: Callable[[NodeLabel, list[str]], dict[str, int]],
    ) -> list[int]:
        missing = [q for q in dict.fromkeys(queries) if (label, q) not in self.found_in]
        if missing:
            counted = count(label, missing)
            for query in missing:
                self.found_in[label, query] = counted.get(query, 0)
        return [self.found_in[label, query] for query in queries]


class ServerBM25:
    """FalkorDB's `_text_hits` (see the module docstring)."""

    # Matches of the rarest terms scored per search once k are reached (docs/benchmarks.md):
    # at 10,000 passages, 500 kept the exact best passage for 98% of 150 questions.
    text_candidates = TEXT_CANDIDATES
    _statistics: TextStatistics | None = None

    @abstractmethod
    def _read(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]: ...

    def _text_statistics(self) -> TextStatistics:
        """The statistics of the current text generation (`falkordb_text`)."""
        rows = self._read(
            f"MATCH (m:ZettelgraphMeta {{key: '{GENERATION_KEY}'}}) RETURN m.generation"
        )
        generation = rows[0][0] if rows else None
        if self._statistics is None or self._statistics.generation != generation:
            self._statistics = TextStatistics(generation)
        return self._statistics

    def _collection(self, label: NodeLabel) -> tuple[int, float]:
        ((documents, mean_length),) = self._read(
            f"MATCH (n:{label}) WHERE n.text_length IS NOT NULL RETURN count(n), avg(n.text_length)"
        )
        return int(documents), float(mean_length or 0.0) or 1.0

    def _found_in(self, label: NodeLabel, queries: list[str]) -> dict[str, int]:
        # One count per term: the server counts matches without materialising them.
        rows = self._read(
            f"UNWIND $queries AS q CALL db.idx.fulltext.queryNodes('{label}', q) "
            "YIELD node RETURN q, count(node)",
            {"queries": queries},
        )
        return {str(query): int(count) for query, count in rows}

    def _text_hits(
        self,
        label: NodeLabel,
        words: Sequence[TextTerm],
        k: int | None,
        contents: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        # Scored by BM25 in the server over the rarest terms' matches (`falkordb_text`); a
        # filter applies before the LIMIT.
        statistics = self._text_statistics()
        documents, mean_length = statistics.documents(label, self._collection)
        queries = [term.query() for term in words]
        found_in = statistics.frequencies(label, queries, self._found_in)
        chosen = candidate_terms(found_in, k, self.text_candidates)
        if not chosen:
            return []
        params = {
            "terms": [[idf(n, documents), needle(t)] for n, t in zip(found_in, words, strict=True)],
            "avgdl": mean_length,
            "contents": list(contents or []),
            "k": k,
        }
        query = score_query(label, contents is not None, k is not None)
        rows = self._read(query, {**params, "q": "|".join(queries[i] for i in chosen)})
        if k is not None and len(rows) < k and len(chosen) < sum(1 for n in found_in if n):
            # Fewer than k among the rarest terms' matches: every term's, as promised.
            every = candidate_terms(found_in, None, self.text_candidates)
            rows = self._read(query, {**params, "q": "|".join(queries[i] for i in every)})
        return [(str(node_id), float(score)) for node_id, score in rows]
