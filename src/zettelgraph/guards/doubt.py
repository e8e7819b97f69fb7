"""Doubt flags: how likely a proposed concept misreads its quotes, or a relation's type does
not hold, from signals the model and the embedder give; calibrated on items graded by meaning.

A `DoubtModel` is a logistic regression over standardised signals: the score is the chance
the item is usable (a grader keeps or fixes it), and an item under the model's `floor` is
doubtful. The floor is chosen on the graded items so that a given share of the items graders
drop fall under it (`recall`). A signal the caller could not measure (a provider without
log-probabilities, say) is read as its mean: it then moves the score neither way.

The shipped models (`doubt_models.json`) come from `benchmarks/calibrate_doubt.py` over the
grades in `benchmarks/grades/`, and the small models' concept flag (`concept@local`, on the
probe of `doubt_probe.py`) from `benchmarks/fit_doubt_probe.py`; `zettelgraph calibrate`
fits a reader's own from their decisions (`services/calibration.py`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal, NotRequired

import numpy as np
from typing_extensions import TypedDict

from zettelgraph.guards.doubt_probe import SIGNAL as LIKE_KEPT
from zettelgraph.guards.doubt_probe import fit_logistic

Kind = Literal["concept", "relation"]

# What each signal says when it pulls an item's score down, in the reader's words.
LOW_MEANS: dict[str, str] = {
    "grounding": "far from its quote",
    "margin": "as close to other quotes of the book as to its own",
    "title_grounding": "its title is far from its quote",
    "check": "the model doubts it says what the quote says",
    "idea": "its quote may tell events or describe someone rather than state an idea",
    "gloss_agreement": "it does not say what a plain reading of the quote says",
    "similarity": "the two ideas are far apart",
    "confidence": "the model was not sure of it",
    "stance": "the two statements do not agree or disagree as the type says",
    "names_both": "its explanation does not name both ideas",
    LIKE_KEPT: "it reads like items graders dropped: a scene or a character rather than an "
    "idea, or a title that misreads its quote",
}
HIGH_MEANS: dict[str, str] = {
    "generic": "generic: it would fit most quotes of the book",
    "copy": "it mostly repeats its quote",
    "foreign_quote": "it translates a quote in another language",
    "opposing": "an opposing type, which a small model often gets wrong",
}


class Doubt(TypedDict):
    """How sure the checks are that an item says what its quotes say (a concept) or that its
    type holds (a relation): `score` in [0, 1], `doubtful` under the calibrated floor."""

    score: float
    doubtful: bool
    reasons: list[str]  # what pulled the score down, in the reader's words
    signals: dict[str, float]  # the measurements the score came from
    # A fingerprint of the text it judged: a new text or quote list means a new doubt.
    of: NotRequired[str]


@dataclass(frozen=True)
class DoubtModel:
    """Score = sigmoid(bias + sum(weight * (signal - mean) / scale)); doubtful under floor."""

    kind: Kind
    signals: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    floor: float
    # What it was fitted on, and how well it separated them there (for `calibrate`).
    fitted_on: str = ""
    quality: dict[str, float] = field(default_factory=dict)

    def score(self, signals: Mapping[str, float]) -> float:
        total = self.bias + sum(w * self._standard(i, signals) for i, w in enumerate(self.weights))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, total))))

    def _standard(self, index: int, signals: Mapping[str, float]) -> float:
        value = signals.get(self.signals[index])
        if value is None or not math.isfinite(value):
            return 0.0
        return (float(value) - self.mean[index]) / self.scale[index]

    def reasons(self, signals: Mapping[str, float], most: int = 2) -> list[str]:
        """The signals that pulled the score down the most, said in words."""
        pulls = sorted(
            (w * self._standard(i, signals), name)
            for i, (w, name) in enumerate(zip(self.weights, self.signals, strict=True))
        )
        out = []
        for pull, name in pulls[:most]:
            if pull >= -0.25:
                break
            weight = self.weights[self.signals.index(name)]
            words = (LOW_MEANS if weight > 0 else HIGH_MEANS).get(name)
            if words:
                out.append(words)
        return out

    def judge(self, signals: Mapping[str, float]) -> Doubt:
        """The `Doubt` of an item with these signals."""
        score = self.score(signals)
        doubtful = score < self.floor
        return {
            "score": round(score, 3),
            "doubtful": doubtful,
            "reasons": self.reasons(signals) if doubtful else [],
            "signals": {k: round(float(v), 4) for k, v in signals.items()},
        }

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DoubtModel:
        return cls(
            kind=data["kind"],
            signals=tuple(data["signals"]),
            mean=tuple(float(x) for x in data["mean"]),
            scale=tuple(float(x) for x in data["scale"]),
            weights=tuple(float(x) for x in data["weights"]),
            bias=float(data["bias"]),
            floor=float(data["floor"]),
            fitted_on=str(data.get("fitted_on", "")),
            quality={k: float(v) for k, v in dict(data.get("quality", {})).items()},
        )


def fit(
    kind: Kind,
    signal_names: Sequence[str],
    rows: Sequence[Mapping[str, float]],
    usable: Sequence[bool],
    *,
    recall: float = 0.8,
    l2: float = 1.0,
    fitted_on: str = "",
) -> DoubtModel:
    """A logistic regression of `usable` on the signals (Newton's method, L2-penalised: a few
    dozen graded items must not make a weight run off), with the floor set so that at least
    `recall` of the unusable items score under it."""
    if len(rows) != len(usable) or not rows:
        raise ValueError("fitting needs as many grades as items, and at least one")
    names = tuple(signal_names)
    raw = np.array(
        [[float(row.get(name, math.nan)) for name in names] for row in rows], dtype=float
    )
    # A signal never measured (no semantic embedder, no log-probabilities) gets mean 0 and,
    # all its values filled with it, scale 1 and no say in the fit.
    measured = np.isfinite(raw)
    counts = measured.sum(axis=0)
    sums = np.where(measured, raw, 0.0).sum(axis=0)
    mean = np.divide(sums, counts, out=np.zeros(len(names)), where=counts > 0)
    filled = np.where(np.isfinite(raw), raw, mean)
    scale, beta = fit_logistic(filled, mean, usable, l2)
    model = DoubtModel(
        kind=kind,
        signals=names,
        mean=tuple(float(v) for v in mean),
        scale=tuple(float(v) for v in scale),
        weights=tuple(float(v) for v in beta[1:]),
        bias=float(beta[0]),
        floor=0.5,
        fitted_on=fitted_on,
    )
    scores = [model.score(row) for row in rows]
    floor = floor_for_recall(scores, usable, recall)
    quality = separation(scores, usable, floor)
    return DoubtModel(**{**asdict(model), "floor": floor, "quality": quality})


def flag_all(kind: Kind, signal_names: Sequence[str], *, fitted_on: str = "") -> DoubtModel:
    """A model that flags every item: for graded items of which none was usable (a small
    model's typed relations, 0 of 24 graded keep), where no floor can let a good one through
    because there is none to learn from. Every score is 0.5, under a floor of 1."""
    names = tuple(signal_names)
    zeros = tuple(0.0 for _ in names)
    return DoubtModel(
        kind=kind,
        signals=names,
        mean=zeros,
        scale=tuple(1.0 for _ in names),
        weights=zeros,
        bias=0.0,
        floor=1.0,
        fitted_on=fitted_on,
        quality={"recall": 1.0, "flagged": 1.0},
    )


def floor_for_recall(scores: Sequence[float], usable: Sequence[bool], recall: float) -> float:
    """The lowest floor under which at least `recall` of the unusable items fall."""
    bad = sorted(s for s, u in zip(scores, usable, strict=True) if not u)
    if not bad:
        return min(scores, default=0.0)  # nothing to catch: flag nothing
    needed = math.ceil(recall * len(bad))
    # Just above the needed-th lowest unusable score, so that one is flagged too.
    return float(np.nextafter(bad[needed - 1], math.inf))


def separation(scores: Sequence[float], usable: Sequence[bool], floor: float) -> dict[str, float]:
    """How a floor separates graded items: the share of unusable ones flagged (recall), the
    share of the unflagged that are usable (clean), the share flagged, and the ROC AUC."""
    flagged = [s < floor for s in scores]
    bad = [not u for u in usable]
    n_bad = sum(bad)
    unflagged = [u for u, f in zip(usable, flagged, strict=True) if not f]
    good_scores = [s for s, u in zip(scores, usable, strict=True) if u]
    bad_scores = [s for s, u in zip(scores, usable, strict=True) if not u]
    pairs = len(good_scores) * len(bad_scores)
    auc = (
        sum((g > b) + 0.5 * (g == b) for g in good_scores for b in bad_scores) / pairs
        if pairs
        else math.nan
    )
    return {
        "items": float(len(scores)),
        "recall": sum(f and b for f, b in zip(flagged, bad, strict=True)) / n_bad
        if n_bad
        else math.nan,
        "clean": sum(unflagged) / len(unflagged) if unflagged else math.nan,
        "flagged": sum(flagged) / len(flagged) if flagged else math.nan,
        "auc": float(auc),
    }


SHIPPED = "doubt_models.json"
# Where a model applies, after its kind in the calibration files: `concept@local` is fitted on
# the small local models' items and used with them, `concept@reader` is the reader's own
# (`zettelgraph calibrate`), which comes before any other.
LOCAL, READER = "local", "reader"
# The small models' model without the probe (`doubt_probe.py`), for a setup without its
# embedder.
LOCAL_FALLBACK = "local-fallback"


def choose(
    models: Mapping[str, DoubtModel],
    kind: Kind,
    *,
    small: bool,
    unmeasured: Collection[str] = (),
) -> DoubtModel:
    """The model to flag `kind` items with: the reader's own, else the one fitted on the
    small local models when the run uses one (or, when that one needs a signal this setup
    cannot measure, `unmeasured`, the fallback fitted without it), else the shipped general
    one."""
    local = (f"{kind}@{LOCAL}", f"{kind}@{LOCAL_FALLBACK}") if small else ()
    for key in (f"{kind}@{READER}", *local, kind):
        model = models.get(key)
        if model is not None and not set(model.signals) & set(unmeasured):
            return model
    raise KeyError(f"no doubt model for {kind}")


def shipped_models() -> dict[str, DoubtModel]:
    """The models fitted on the project's graded runs, by kind (and `kind@local`)."""
    text = resources.files("zettelgraph.guards").joinpath(SHIPPED).read_text(encoding="utf-8")
    return models_from_json(text)


def models_from_json(text: str) -> dict[str, DoubtModel]:
    """The models a calibration file holds, by their key (`concept`, `relation@local` ...)."""
    data = json.loads(text)
    return {
        key: DoubtModel.from_dict(value)
        for key, value in data.items()
        if key.partition("@")[0] in ("concept", "relation")
    }


def load_models(own: Path) -> tuple[dict[str, DoubtModel], str | None]:
    """The shipped models and the reader's own (`zettelgraph calibrate`, as `kind@reader`),
    and a warning when the reader's file cannot be used: a flag is a hint, and a broken
    calibration must not stop a review."""
    models = shipped_models()
    if not own.is_file():
        return models, None
    try:
        mine = models_from_json(own.read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return models, (
            f"{own} cannot be read ({exc}); the doubt flags use the shipped calibration. "
            "Run `zettelgraph calibrate` again, or delete the file"
        )
    models.update({f"{key.partition('@')[0]}@{READER}": model for key, model in mine.items()})
    return models, None
