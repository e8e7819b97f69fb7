"""Fusion of ranked lists: score fusion keeps margins, RRF only ranks, graph lists are used
as they are."""

from __future__ import annotations

import pytest

from zettelgraph.retrieval.fusion import fuse
from zettelgraph.retrieval.recipes import RECIPES, SearchRecipe, recipe_named


def _recipe(**changes: object) -> SearchRecipe:
    return RECIPES["hybrid"].model_copy(update=changes)


def test_minmax_score_fusion_keeps_a_confident_fulltext_winner() -> None:
    lists = {
        "fulltext": [("a", 30.0), ("b", 5.0), ("c", 4.0)],
        "vector": [("b", 0.61), ("a", 0.60), ("c", 0.2)],
    }
    minmax = _recipe(fulltext_normalization="minmax", vector_normalization="minmax")
    fused = fuse(lists, {"fulltext": 0.6, "vector": 0.4}, minmax)
    assert [f.id for f in fused] == ["a", "b", "c"]
    assert fused[0].methods == ["fulltext", "vector"]
    assert fused[0].method_scores == {"fulltext": 30.0, "vector": 0.60}
    # a: 0.6 * 1 + 0.4 * (0.60 - 0.2) / 0.41
    assert fused[0].score == pytest.approx(0.6 + 0.4 * 0.4 / 0.41)


def test_rrf_ignores_margins() -> None:
    lists = {"fulltext": [("a", 30.0), ("b", 5.0)], "vector": [("b", 0.9), ("a", 0.1)]}
    fused = fuse(lists, {"fulltext": 1.0, "vector": 1.0}, recipe_named("rrf", "use-multilingual"))
    assert fused[0].score == pytest.approx(fused[1].score)
    assert [f.id for f in fused] == ["a", "b"]  # a tie is broken by id


def test_a_passage_missing_from_a_list_gets_the_floor() -> None:
    lists = {"fulltext": [("a", 2.0), ("b", 1.0)], "vector": [("c", 0.9), ("b", 0.5)]}
    minmax = _recipe(fulltext_normalization="minmax", vector_normalization="minmax")
    fused = {f.id: f for f in fuse(lists, {"fulltext": 0.5, "vector": 0.5}, minmax)}
    assert fused["a"].score == pytest.approx(0.5)
    assert fused["c"].score == pytest.approx(0.5)
    assert fused["b"].methods == ["fulltext", "vector"]


def test_zscore_normalisation() -> None:
    lists = {"fulltext": [("a", 3.0), ("b", 1.0)]}
    fused = fuse(lists, {"fulltext": 1.0}, _recipe(fulltext_normalization="zscore"))
    assert [round(f.score, 6) for f in fused] == [1.0, -1.0]


def test_default_hybrid_divides_bm25_by_its_best_and_keeps_raw_cosines() -> None:
    lists = {"fulltext": [("a", 8.0), ("b", 2.0)], "vector": [("b", 0.5), ("a", 0.1)]}
    fused = {f.id: f.score for f in fuse(lists, {"fulltext": 0.35, "vector": 0.65}, _recipe())}
    assert fused["a"] == pytest.approx(0.35 * 1.0 + 0.65 * 0.1)
    assert fused["b"] == pytest.approx(0.35 * 0.25 + 0.65 * 0.5)


def test_graph_scores_are_not_stretched() -> None:
    lists = {"fulltext": [("a", 1.0)], "graph": [("g", 0.2)]}
    fused = {f.id: f for f in fuse(lists, {"fulltext": 1.0, "graph": 1.0}, _recipe())}
    assert fused["g"].score == pytest.approx(0.2)  # a lone weak graph hit stays weak


def test_zero_weight_lists_are_ignored_and_unknown_recipes_refused() -> None:
    fused = fuse({"vector": [("a", 1.0)]}, {"vector": 0.0}, _recipe())
    assert fused == []
    with pytest.raises(ValueError, match="known: hybrid"):
        recipe_named("nope", "use-multilingual")
    assert RECIPES["hybrid"].methods == ["fulltext", "vector", "graph"]


def test_each_embedder_gets_the_fusion_measured_for_it() -> None:
    """USE keeps the shipped recipe; e5's compressed cosines are scaled per query (minmax),
    with its own weights and graph seed floor; an uncalibrated embedder gets USE's."""
    use = recipe_named("hybrid", "use-multilingual")
    assert use == RECIPES["hybrid"]
    e5 = recipe_named("hybrid", "e5-small")
    assert (e5.fulltext_weight, e5.vector_weight, e5.vector_normalization) == (
        0.45,
        0.55,
        "minmax",
    )
    assert e5.graph_min_similarity > use.graph_min_similarity
    assert recipe_named("propositions", "e5-small").vector_normalization == "minmax"
    # Single-method recipes keep their weights; only the graph floor follows the embedder.
    assert recipe_named("fulltext", "e5-small").fulltext_weight == 1.0
    assert recipe_named("hybrid", "ollama:nomic-embed-text") == use
