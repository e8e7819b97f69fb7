"""The duplicate-threshold calibration in benchmarks/calibrate_duplicates.py."""

from __future__ import annotations

import csv
import importlib.util
import json
import math
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "calibrate_duplicates.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("calibrate_duplicates", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = load_script()
calibrate = bench.calibrate


def recall_at(sims: list[float], scores: list[float], t: float, dup: float = 4.5) -> float:
    kept = [s >= t for s, score in zip(sims, scores, strict=True) if score >= dup]
    return sum(kept) / len(kept)


def test_exact_threshold_drops_only_the_allowed_duplicates() -> None:
    # Ten duplicates at 0.50, 0.55, ..., 0.95; non-duplicates must not matter, even high ones.
    dup_sims = [round(0.50 + 0.05 * i, 2) for i in range(10)]
    sims = [*dup_sims, 0.99, 0.98, 0.10]
    scores = [5.0] * 10 + [4.49, 3.0, 0.0]
    assert calibrate(sims, scores, duplicate_score=4.5, recall=0.9) == 0.55
    assert calibrate(sims, scores, duplicate_score=4.5, recall=0.8) == 0.6
    # 9.5 of 10 kept means 10 kept: the lowest duplicate sets the threshold.
    assert calibrate(sims, scores, duplicate_score=4.5, recall=0.95) == 0.5
    assert recall_at(sims, scores, 0.55) == 0.9


def test_score_equal_to_duplicate_score_is_a_duplicate() -> None:
    sims = [0.4, 0.8]
    scores = [4.5, 5.0]
    assert calibrate(sims, scores, duplicate_score=4.5, recall=1.0) == 0.4
    assert calibrate(sims, scores, duplicate_score=4.51, recall=1.0) == 0.8


def test_threshold_is_rounded_down_to_three_decimals() -> None:
    sims = [0.6789, 0.9123]
    scores = [5.0, 5.0]
    assert calibrate(sims, scores, duplicate_score=4.5, recall=1.0) == 0.678
    assert calibrate(sims, scores, duplicate_score=4.5, recall=0.5) == 0.912


def test_full_recall_gives_the_minimum_duplicate_similarity_rounded_down() -> None:
    sims = [0.8123, 0.7456, 0.9999, 0.2]
    scores = [4.6, 4.8, 5.0, 1.0]
    assert calibrate(sims, scores, duplicate_score=4.5, recall=1.0) == 0.745


@pytest.mark.parametrize("recall", [0.01, 0.5, 0.99, 1.0])
def test_all_duplicates_with_identical_similarity(recall: float) -> None:
    sims = [0.75] * 7 + [0.9]
    scores = [5.0] * 7 + [1.0]
    threshold = calibrate(sims, scores, duplicate_score=4.5, recall=recall)
    assert threshold == 0.75
    assert recall_at(sims, scores, threshold) == 1.0


def test_target_recall_is_not_raised_by_float_noise() -> None:
    # 0.99 * 100 is 99.00000000000001 in floats; that must still allow one miss out of 100.
    sims = [i / 100 for i in range(100)]
    scores = [5.0] * 100
    assert calibrate(sims, scores, duplicate_score=4.5, recall=0.99) == 0.01
    # 128 duplicates (the STSb-es dev count at >= 4.5): 0.99 allows exactly one miss.
    sims = [0.5 + i / 1000 for i in range(128)]
    assert calibrate(sims, [5.0] * 128, duplicate_score=4.5, recall=0.99) == 0.501


def test_a_similarity_on_a_three_decimal_value_is_kept_exactly() -> None:
    for k in range(1001):
        value = k / 1000
        assert calibrate([value], [5.0], duplicate_score=4.5, recall=1.0) == value


def test_threshold_never_exceeds_a_float32_similarity() -> None:
    # float32(0.7) is 0.699999988...: a threshold of 0.7 would drop that duplicate.
    sims = np.asarray([0.7, 0.95], dtype=np.float32)
    threshold = calibrate(list(sims), [5.0, 5.0], duplicate_score=4.5, recall=1.0)
    assert threshold == 0.699
    assert float(sims[0]) >= threshold


@given(
    st.lists(
        st.tuples(st.floats(-1.0, 1.0), st.sampled_from([0.0, 2.0, 4.0, 4.5, 5.0])),
        min_size=1,
        max_size=60,
    ),
    st.floats(0.01, 1.0),
)
def test_threshold_is_the_largest_three_decimal_value_meeting_the_target(
    pairs: list[tuple[float, float]], recall: float
) -> None:
    sims = [s for s, _ in pairs]
    scores = [score for _, score in pairs]
    if not any(score >= 4.5 for score in scores):
        with pytest.raises(ValueError):
            calibrate(sims, scores, duplicate_score=4.5, recall=recall)
        return
    threshold = calibrate(sims, scores, duplicate_score=4.5, recall=recall)
    assert threshold == round(threshold, 3)
    assert recall_at(sims, scores, threshold) >= recall - 1e-9
    assert recall_at(sims, scores, round(threshold + 0.001, 3)) < recall - 1e-9


def test_no_duplicates_raises_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"no duplicate pairs: no pair has score >= 4\.5"):
        calibrate([0.9, 0.8], [4.0, 1.0], duplicate_score=4.5, recall=0.99)
    with pytest.raises(ValueError, match="no duplicate pairs"):
        calibrate([], [], duplicate_score=4.5, recall=0.99)


@pytest.mark.parametrize("recall", [0.0, -0.1, 1.01, math.nan])
def test_recall_out_of_range_is_rejected(recall: float) -> None:
    with pytest.raises(ValueError, match="recall must be in"):
        calibrate([0.9], [5.0], duplicate_score=4.5, recall=recall)


def test_length_mismatch_is_rejected() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        calibrate([0.9, 0.8], [5.0], duplicate_score=4.5, recall=0.99)


def test_script_reports_json_on_a_small_csv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "pairs.csv"
    rows = [
        ("el gato duerme en la casa", "el gato duerme en la casa", 5.0),
        ("el gato duerme en la casa", "el gato duerme en casa", 4.8),
        ("un perro corre por el parque", "un perro corre en el parque", 4.6),
        ("un perro corre por el parque", "la bolsa sube hoy", 0.0),
        ("la bolsa sube hoy", "llueve en Madrid", 1.0),
        ("una mujer toca la guitarra", "un hombre toca la guitarra", 2.4),
    ]
    with data.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["sentence1", "sentence2", "score"])
        writer.writerows(rows)

    assert bench.main(["--data", str(data), "--embeddings", "hash", "--recall", "1.0"]) == 0
    result = json.loads(capsys.readouterr().out)

    assert result["n_pairs"] == 6
    assert result["n_duplicates"] == 3
    assert result["embedder"] == "hash"
    assert result["recall_at_threshold"] == 1.0
    assert result["threshold"] <= result["duplicate_cosine_quantiles"]["min"]
    assert [row["threshold"] for row in result["table"]][:2] == [0.3, 0.35]
    assert result["table"][-1]["threshold"] == 0.9
    for key in (
        "share_all_below_threshold",
        "share_non_duplicates_below_threshold",
        "share_score_below_2_below_threshold",
        "date",
        "cpu_count",
    ):
        assert key in result


def test_script_exits_2_without_duplicates(tmp_path: Path) -> None:
    data = tmp_path / "pairs.csv"
    data.write_text("sentence1,sentence2,score\nuno,dos,1.0\n", encoding="utf-8")
    assert bench.main(["--data", str(data), "--embeddings", "hash"]) == 2
