"""Which of a query's terms have their full-text matches scored, on every backend.

Ranking every passage that holds any of a question's terms costs as many scores as the most
common term has passages: at a million passages, hundreds of thousands for a word like
"año". Only the matches of the rarest terms are scored (rarest first until they hold k
matches, then while they stay within a budget), and a search that finds fewer than k among
them is run again over every term. FalkorDB's BM25 (`falkordb_text.py`) and SQLite's FTS5
search (`sqlite_search.py`) both choose their terms here; what the bound costs in quality is
in docs/benchmarks.md.
"""

from __future__ import annotations

from collections.abc import Sequence

# Matches scored at most once k are found.
TEXT_CANDIDATES = 500


def candidate_terms(found_in: Sequence[int], k: int | None, budget: int) -> list[int]:
    """The positions of the terms whose matches are scored, rarest first: every term that
    matches anything when `k` is None (every match is wanted), else until they hold at
    least `k` matches and then while they stay within `budget`."""
    order = sorted((n, i) for i, n in enumerate(found_in) if n > 0)
    if k is None:
        return [i for _, i in order]
    chosen: list[int] = []
    total = 0
    for n, i in order:
        if total >= k and total + n > budget:
            break
        chosen.append(i)
        total += n
    return chosen


def rarest_pair(found_in: Sequence[int], budget: int) -> list[int]:
    """The positions of the two rarest terms when even the rarest alone matches more than
    `budget` nodes (every term of the question is common), else none: their conjunction is
    matched first, as search engines try AND before OR, and holds far fewer matches than
    either term (at a million passages the ranked matches went from 5,000-17,000 to the
    conjunction's, and SQLite's p95 from 50 to 34 ms; docs/benchmarks.md)."""
    order = sorted((n, i) for i, n in enumerate(found_in) if n > 0)
    if len(order) < 2 or order[0][0] <= budget:
        return []
    return [order[0][1], order[1][1]]
