"""Search recipes: how a search combines full-text, vector and graph evidence.

A recipe is configuration, not code: every caller (CLI `search` and `ask`, the web app, the
benchmark) names one, and `ZETTELGRAPH_SEARCH_RECIPE` picks the default. The numbers of the
default `hybrid` recipe were chosen on the XQuAD-es dev set with `benchmarks/retrieval.py`
(see docs/benchmarks.md and docs/design.md, "Hybrid retrieval").
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from zettelgraph.thresholds import calibrated

Fusion = Literal["score", "rrf"]
# The recipes whose fusion numbers are the embedder's (`zettelgraph/thresholds.py`): a cosine
# scale moves with the embedder, so how much a vector score weighs against BM25 does too.
TUNED_PER_EMBEDDER = ("hybrid", "propositions")
# How a list's scores are put on a common scale before the weighted sum:
#   max    score / best score in the list (BM25: how close to the best match; the best is 1)
#   raw    as they are (cosine similarities are already on a fixed -1..1 scale)
#   minmax (score - worst) / (best - worst)
#   zscore (score - mean) / standard deviation
Normalization = Literal["max", "raw", "minmax", "zscore"]


class SearchRecipe(BaseModel):
    """Which searches run, how many candidates each proposes, and how they are fused."""

    model_config = ConfigDict(frozen=True)

    name: str
    fulltext_weight: float = Field(ge=0)
    vector_weight: float = Field(ge=0)
    # Passages reached through concepts: those supported by the top hits' concepts and by
    # the concepts most similar to the query.
    graph_weight: float = Field(default=0.0, ge=0)
    # Passages reached through their propositions (`zettelgraph propositions make`): a
    # passage scores the best cosine of its statements with the query, as the raw cosine.
    proposition_weight: float = Field(default=0.0, ge=0)
    candidates: int = Field(default=50, ge=1, le=1000)
    fusion: Fusion = "score"
    # Score fusion: each list's scores are normalised, then summed with the weights.
    fulltext_normalization: Normalization = "max"
    vector_normalization: Normalization = "raw"
    # Reciprocal-rank fusion: weight / (rrf_k + rank).
    rrf_k: int = Field(default=60, ge=1)
    # (Function words are dropped from every full-text query by the store's analysis, so
    # BM25 ranks by the words that carry the question: "¿Cuántos puntos ...?" -> "punt ...".)
    # Graph expansion: concepts taken as seeds, how similar a concept must be to the query,
    # and how many top passages lend their concepts.
    graph_concepts: int = Field(default=5, ge=0, le=100)
    graph_min_similarity: float = Field(default=0.35, ge=-1, le=1)
    graph_seed_passages: int = Field(default=5, ge=0, le=100)

    @property
    def weights(self) -> dict[str, float]:
        """Each method's weight in the fusion."""
        return {
            "fulltext": self.fulltext_weight,
            "vector": self.vector_weight,
            "graph": self.graph_weight,
            "propositions": self.proposition_weight,
        }

    @property
    def methods(self) -> list[str]:
        return [method for method, weight in self.weights.items() if weight > 0]


RECIPES: dict[str, SearchRecipe] = {
    recipe.name: recipe
    for recipe in (
        # USE's numbers (other embedders': `recipes_for`). Chosen on XQuAD-es: BM25 / best
        # BM25 plus the raw cosine, 0.35 : 0.65. Every BM25 weight from 0.25 to 0.45 scores
        # within 0.006 R@1 of the best (docs/design.md).
        # Re-measured with the stemmed full-text (2026-11-25): 0.25 to 0.7 all within 0.005
        # R@1 and 0.002 R@5 of the best, which is 0.35 again, so it was kept.
        SearchRecipe(name="hybrid", fulltext_weight=0.35, vector_weight=0.65, graph_weight=0.15),
        SearchRecipe(name="fulltext", fulltext_weight=1.0, vector_weight=0.0),
        SearchRecipe(name="vector", fulltext_weight=0.0, vector_weight=1.0),
        # Hybrid plus each passage's best proposition cosine (`zettelgraph propositions
        # make`); not the default: see docs/design.md, "Propositions", for what it measured.
        SearchRecipe(
            name="propositions",
            fulltext_weight=0.35,
            vector_weight=0.65,
            graph_weight=0.15,
            proposition_weight=0.65,
        ),
        # Plain reciprocal-rank fusion, the usual baseline (k = 60, equal weights).
        SearchRecipe(
            name="rrf",
            fulltext_weight=1.0,
            vector_weight=1.0,
            graph_weight=0.0,
            fusion="rrf",
        ),
    )
}


def recipes_for(embedder: str) -> dict[str, SearchRecipe]:
    """The recipes with the numbers measured for `embedder`: the hybrids' weights and vector
    scaling, and every graph step's seed floor (`RECIPES` holds USE's)."""
    numbers = calibrated(embedder)
    out: dict[str, SearchRecipe] = {}
    for name, recipe in RECIPES.items():
        update: dict[str, object] = {"graph_min_similarity": numbers.graph_seed}
        if name in TUNED_PER_EMBEDDER:
            update["fulltext_weight"] = numbers.fulltext_weight
            update["vector_weight"] = round(1 - numbers.fulltext_weight, 4)
            update["vector_normalization"] = numbers.vector_normalization
        out[name] = recipe.model_copy(update=update)
    return out


def recipe_named(name: str, embedder: str) -> SearchRecipe:
    """The recipe `name` with the numbers measured for `embedder`."""
    recipes = recipes_for(embedder)
    try:
        return recipes[name]
    except KeyError:
        known = ", ".join(recipes)
        raise ValueError(f"unknown search recipe {name!r}; known: {known}") from None
