"""Query text for FalkorDB: parameters as its query header reads them, and BM25 ranking of
full-text matches (why both: `falkordb.py`'s docstring)."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from zettelgraph.store.cypher_search import TextTerm

# BM25's usual constants, the ones SQLite's FTS5 and Lucene (Neo4j) use.
BM25_K1 = 1.2
BM25_B = 0.75


def literal(value: Any) -> str:
    """A parameter value as FalkorDB's query header reads it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        number = float(value)
        if not math.isfinite(number):
            raise ValueError(f"cannot store the number {number}")
        return repr(number)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, np.ndarray):
        # json.dumps writes each float with repr: exact for the float32 values it came from.
        return json.dumps(value.astype(np.float64).tolist())
    if isinstance(value, list | tuple):
        return "[" + ",".join(literal(item) for item in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"`{key}`:{literal(item)}" for key, item in value.items()) + "}"
    raise TypeError(f"cannot send a {type(value).__name__} to FalkorDB")


def with_params(query: str, params: Mapping[str, Any] | None) -> str:
    if not params:
        return query
    header = " ".join(f"{name}={literal(value)}" for name, value in params.items())
    return f"CYPHER {header} {query}"


def bm25(
    terms: Sequence[TextTerm],
    matches: Sequence[tuple[str, str]],
    found_in: Sequence[int],
    documents: int,
    mean_length: float,
) -> list[tuple[str, float]]:
    """(id, BM25 score) of each (id, analysed text) in `matches`, best first (ties by id).

    `found_in[i]` is how many documents of the whole index hold `terms[i]`, `documents` how
    many there are and `mean_length` their mean length in words. The idf is Lucene's,
    ln(1 + (N - n + 0.5) / (n + 0.5)), never negative for a term most documents hold.
    """
    mean_length = mean_length or 1.0
    idf = [math.log(1 + (documents - n + 0.5) / (n + 0.5)) for n in found_in]
    scored = []
    for node_id, text in matches:
        tokens = text.split()  # `text_stems` is its words joined by one space
        counts = Counter(tokens)
        norm = BM25_K1 * (1 - BM25_B + BM25_B * len(tokens) / mean_length)
        score = 0.0
        for weight, term in zip(idf, terms, strict=True):
            count = term.count_in(tokens, counts)
            score += weight * count * (BM25_K1 + 1) / (count + norm)
        scored.append((node_id, score))
    scored.sort(key=lambda hit: (-hit[1], hit[0]))
    return scored
