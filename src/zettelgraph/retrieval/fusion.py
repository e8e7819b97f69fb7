"""Fusing ranked lists from several searches into one ranking.

Two ways, chosen by the recipe:
- score fusion: each list's scores are put on a common scale (see `recipes.Normalization`),
  then summed with the recipe's weights; a passage missing from a list gets that list's
  floor (0, or the lowest z for z-scores);
- reciprocal-rank fusion: sum of weight / (k + rank), which ignores score magnitudes.

Score fusion keeps how much better the first hit is than the second, which is the signal
that makes a confident BM25 match win over a vaguely similar vector; RRF throws that away,
which is why plain RRF loses R@1 to BM25 alone on XQuAD-es (docs/design.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from zettelgraph.retrieval.recipes import SearchRecipe

Ranked = Sequence[tuple[str, float]]  # (passage id, raw score), best first


@dataclass
class Fused:
    id: str
    score: float
    methods: list[str] = field(default_factory=list)
    method_scores: dict[str, float] = field(default_factory=dict)


def normalised(items: Ranked, how: str) -> tuple[dict[str, float], float]:
    """Normalised scores and the value a passage absent from the list gets (`how`: raw,
    zscore, max or minmax, a recipe's normalisation)."""
    scores = [score for _, score in items]
    if how == "raw":
        return dict(items), 0.0
    if how == "zscore" and len(scores) > 1:
        mean = sum(scores) / len(scores)
        std = math.sqrt(sum((s - mean) ** 2 for s in scores) / len(scores)) or 1.0
        out = {pid: (score - mean) / std for pid, score in items}
        return out, min(out.values())
    high = max(scores)
    if how == "max":
        return {pid: score / high if high > 0 else 0.0 for pid, score in items}, 0.0
    low = min(scores)
    span = high - low
    # A single hit (or a list of equal scores) is a full match, not a zero one.
    return {pid: (score - low) / span if span > 0 else 1.0 for pid, score in items}, 0.0


def fuse(
    lists: Mapping[str, Ranked],
    weights: Mapping[str, float],
    recipe: SearchRecipe,
) -> list[Fused]:
    """One ranking, best first; ties broken by id so results are deterministic.

    The graph list already holds strengths on a 0..1 scale and is used as it is: stretching
    it would turn one weak graph hit into a full-strength one.
    """
    scales = {
        "fulltext": recipe.fulltext_normalization,
        "vector": recipe.vector_normalization,
        "graph": "raw",
        "propositions": recipe.vector_normalization,
    }
    fused: dict[str, Fused] = {}
    for method, items in lists.items():
        weight = weights.get(method, 0.0)
        if not items or weight <= 0:
            continue
        for pid, raw in items:
            entry = fused.setdefault(pid, Fused(id=pid, score=0.0))
            entry.methods.append(method)
            entry.method_scores[method] = raw
    for method, items in lists.items():
        weight = weights.get(method, 0.0)
        if not items or weight <= 0:
            continue
        if recipe.fusion == "rrf":
            for rank, (pid, _) in enumerate(items, start=1):
                fused[pid].score += weight / (recipe.rrf_k + rank)
            continue
        scores, floor = normalised(items, scales.get(method, "minmax"))
        for pid, entry in fused.items():
            entry.score += weight * scores.get(pid, floor)
    return sorted(fused.values(), key=lambda entry: (-entry.score, entry.id))
