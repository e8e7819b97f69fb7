"""Doubt flags as pure data: the logistic model, its fit and floor, what it says in words,
and reading a calibration file (a broken one falls back to the shipped models, saying so)."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from zettelgraph.guards.doubt import (
    DoubtModel,
    choose,
    fit,
    flag_all,
    floor_for_recall,
    load_models,
    models_from_json,
    separation,
    shipped_models,
)
from zettelgraph.guards.doubt_probe import (
    MIN_RUN,
    Probe,
    features,
    fit_probe,
    in_run,
    low_run_floor,
    shipped_probes,
)
from zettelgraph.guards.doubt_signals import embedding_signals, text_signals, yes_probability
from zettelgraph.llm.embeddings import E5_SMALL


def synthetic(n: int, seed: int = 0) -> tuple[list[dict[str, float]], list[bool]]:
    """Usable items ground close to their quote and pass the model's check more often."""
    rng = random.Random(seed)
    rows, usable = [], []
    for _ in range(n):
        good = rng.random() < 0.5
        rows.append(
            {
                "grounding": rng.gauss(0.55 if good else 0.35, 0.1),
                "check": min(1.0, max(0.0, rng.gauss(0.7 if good else 0.45, 0.2))),
                "copy": rng.random(),  # noise
            }
        )
        usable.append(good)
    return rows, usable


def test_fit_separates_and_its_floor_catches_the_asked_share() -> None:
    rows, usable = synthetic(200)
    model = fit("concept", ("grounding", "check", "copy"), rows, usable, recall=0.8)
    assert model.weights[0] > 0 and model.weights[1] > 0  # closer, surer: more usable
    assert abs(model.weights[2]) < model.weights[0]  # noise weighs little
    assert model.quality["recall"] >= 0.8
    assert model.quality["auc"] > 0.8
    held_rows, held_usable = synthetic(200, seed=1)
    scores = [model.score(r) for r in held_rows]
    held = separation(scores, held_usable, model.floor)
    assert held["recall"] > 0.6 and held["clean"] > 0.6


def test_a_missing_signal_moves_the_score_neither_way() -> None:
    rows, usable = synthetic(100)
    model = fit("concept", ("grounding", "check"), rows, usable)
    one = {"grounding": 0.5, "check": 0.6}
    without = {"grounding": 0.5}
    at_mean = {"grounding": 0.5, "check": model.mean[1]}
    assert math.isclose(model.score(without), model.score(at_mean))
    assert model.score(one) != model.score(without)


def test_judge_says_why_in_words_only_when_doubtful() -> None:
    model = DoubtModel(
        kind="concept",
        signals=("grounding", "generic"),
        mean=(0.5, 0.3),
        scale=(0.1, 0.1),
        weights=(2.0, -2.0),
        bias=0.0,
        floor=0.4,
    )
    bad = model.judge({"grounding": 0.2, "generic": 0.6})
    assert bad["doubtful"] and set(bad["reasons"]) == {
        "far from its quote",
        "generic: it would fit most quotes of the book",
    }
    good = model.judge({"grounding": 0.8, "generic": 0.1})
    assert not good["doubtful"] and good["reasons"] == []


def test_floor_for_recall_flags_that_share_of_the_unusable() -> None:
    scores = [0.1, 0.2, 0.3, 0.4, 0.9, 0.8]
    usable = [False, False, False, False, True, True]
    floor = floor_for_recall(scores, usable, 0.75)
    assert sum(s < floor for s, u in zip(scores, usable, strict=True) if not u) == 3
    assert floor_for_recall([0.5], [True], 0.8) == 0.5  # nothing to catch: flags nothing


def test_flag_all_flags_every_item_whatever_its_signals() -> None:
    model = flag_all("relation", ("similarity", "stance"), fitted_on="24 graded, none usable")
    for signals in ({"similarity": 0.99, "stance": 1.0}, {"similarity": 0.0}, {}):
        assert model.judge(signals)["doubtful"]
    assert DoubtModel.from_dict(model.as_dict()) == model


def test_shipped_models_and_a_readers_file(tmp_path: Path) -> None:
    shipped = shipped_models()
    assert {"concept", "relation"} <= set(shipped)
    own = tmp_path / "calibration.json"
    models, warning = load_models(own)
    assert warning is None and models == shipped
    rows, usable = synthetic(60)
    mine = fit("concept", ("grounding", "check"), rows, usable)
    own.write_text(json.dumps({"concept": mine.as_dict()}), encoding="utf-8")
    models, warning = load_models(own)
    assert warning is None and models["concept@reader"] == mine
    # The reader's own comes first, for any model; the shipped ones stay for the other kind.
    assert choose(models, "concept", small=True) == mine
    assert choose(models, "relation", small=False) == shipped["relation"]
    assert models_from_json(json.dumps({"concept": mine.as_dict()}))["concept"] == mine
    own.write_text("{not json", encoding="utf-8")
    models, warning = load_models(own)
    assert models == shipped and warning and str(own) in warning


def test_the_small_models_own_calibration_applies_to_them_only() -> None:
    rows, usable = synthetic(60)
    general = fit("concept", ("grounding",), rows, usable)
    local = fit("concept", ("grounding", "check"), rows, usable)
    models = {"concept": general, "concept@local": local}
    assert choose(models, "concept", small=True) == local
    assert choose(models, "concept", small=False) == general


def test_signals_from_text_vectors_and_logprobs() -> None:
    import numpy as np

    signals = text_signals(
        statement_text="Cada uno es hijo de sus obras.",
        quote_texts=["Cada uno es hijo de sus obras."],
        foreign=True,
    )
    assert signals == {"copy": 1.0, "foreign_quote": 1.0}
    a = np.array([1.0, 0.0], dtype=np.float32)
    b = np.array([0.0, 1.0], dtype=np.float32)
    measured = embedding_signals(statement=a, title=a, cited=[a], others=[b])
    assert measured["grounding"] == 1.0 and measured["margin"] == 1.0 and measured["generic"] == 0.0
    top = [{"token": "Sí", "logprob": math.log(0.6)}, {"token": " no", "logprob": math.log(0.2)}]
    assert math.isclose(yes_probability(top) or 0.0, 0.75)
    assert yes_probability([{"token": "tal", "logprob": -0.1}]) is None


def test_a_flag_that_needs_an_unmeasured_signal_gives_way_to_the_fallback() -> None:
    rows, usable = synthetic(60)
    probe = fit("concept", ("like_kept",), [{"like_kept": r["grounding"]} for r in rows], usable)
    fallback = fit("concept", ("grounding",), rows, usable)
    general = fit("concept", ("copy",), rows, usable)
    models = {"concept@local": probe, "concept@local-fallback": fallback, "concept": general}
    assert choose(models, "concept", small=True) == probe
    assert choose(models, "concept", small=True, unmeasured=("like_kept",)) == fallback
    assert choose(models, "concept", small=False, unmeasured=("like_kept",)) == general


def test_the_probe_learns_a_direction_of_the_vectors_and_reads_it_back() -> None:
    rng = np.random.default_rng(0)
    direction = rng.normal(size=8)
    rows, usable = [], []
    for _ in range(200):
        good = bool(rng.random() < 0.6)
        title = rng.normal(size=8) + (1.5 if good else -1.5) * direction
        quote = rng.normal(size=8)
        rows.append(features(title.astype(np.float32), [quote.astype(np.float32)]))
        usable.append(good)
    probe = fit_probe("toy", rows, usable, l2=1.0)
    values = [probe.of(r) for r in rows]
    assert separation(values, usable, 0.0)["auc"] > 0.9
    again = Probe.from_dict(json.loads(json.dumps(probe.as_dict())))
    assert again == probe and again.of(rows[0]) == probe.of(rows[0])
    # Two quotes are read as their mean direction, and a probe needs both kinds of grade.
    assert features(rows[0][:8].astype(np.float32), []).shape == (24,)
    with pytest.raises(ValueError, match="both kinds"):
        fit_probe("toy", rows[:3], [True] * 3, l2=1.0)


def test_a_runs_values_are_moved_by_most_of_their_median() -> None:
    values = {"c1": 1.0, "c2": 2.0, "c3": 6.0, "c4": 3.0}  # median 2.5
    moved = in_run(values, 4.0)  # 4 / (4 + 4) of it: 1.25
    assert moved == pytest.approx({"c1": -0.25, "c2": 0.75, "c3": 4.75, "c4": 1.75})
    # The order within the run is kept; a few values are moved less (their median is noise).
    assert sorted(moved, key=moved.__getitem__) == sorted(values, key=values.__getitem__)
    assert in_run({"c1": 2.0}, 4.0) == pytest.approx({"c1": 2.0 - 2.0 / 5})
    # No prior: values as they are, as a probe written before the shift reads them.
    assert in_run(values, 0.0) == values and in_run({}, 4.0) == {}
    old = {k: v for k, v in shipped_probes()[E5_SMALL].as_dict().items() if k != "run_prior"}
    assert Probe.from_dict(old).in_run(values) == values


def test_the_low_run_floor_lies_above_the_books_graders_dropped_most_of() -> None:
    # (median value, usable share): read from the lowest median up while each book had at
    # most 40% usable, the floor halfway to the next book's median.
    books = [(0.9, 0.8), (-0.8, 0.1), (-0.2, 0.6), (-0.4, 0.35), (0.1, 0.3)]
    floor, shares = low_run_floor(books)
    assert floor == pytest.approx(-0.3) and shares == [0.1, 0.35]
    # No floor when the lowest book was mostly usable; every book low: above the highest.
    assert low_run_floor([(-1.0, 0.5), (0.0, 0.1)]) == (None, [])
    assert low_run_floor([(-1.0, 0.1), (0.0, 0.2)]) == (pytest.approx(0.5), [0.1, 0.2])


def test_a_run_that_reads_low_as_a_whole_is_warned_about_once_it_is_long_enough() -> None:
    probe = replace(shipped_probes()[E5_SMALL], low_run=-0.3, low_run_usable=(0.08, 0.38, 0.14))
    low = [-1.0] * (MIN_RUN - 1) + [2.0]  # median -1.0
    said = probe.run_warning(low)
    assert said is not None and "3 graded books" in said and "8%-38%" in said
    assert probe.run_warning(low[1:]) is None  # a median of fewer concepts is noise
    assert probe.run_warning([0.0] * MIN_RUN) is None  # not under the floor
    assert replace(probe, low_run=None).run_warning(low) is None
    again = Probe.from_dict(json.loads(json.dumps(probe.as_dict())))
    assert again == probe
    old = {k: v for k, v in probe.as_dict().items() if not k.startswith("low_run")}
    assert Probe.from_dict(old).run_warning(low) is None  # a probe written before it


def test_the_shipped_probe_fits_e5_smalls_vectors() -> None:
    probes = shipped_probes()
    probe = probes[E5_SMALL]
    assert probe.embedder == E5_SMALL and len(probe.weights) == 3 * 384
    assert probe.run_prior == 5.0  # fit_doubt_probe.py's RUN_PRIOR
    # Fitted with its warning: the graded books under it had at most 40% usable drafts.
    assert probe.low_run is not None and probe.low_run_usable
    assert max(probe.low_run_usable) <= 0.4
    assert len(probe.mean) == len(probe.scale) == len(probe.weights)
    assert "like_kept" in shipped_models()["concept@local"].signals
