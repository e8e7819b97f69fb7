"""The doubt signal `like_kept`: how much a proposed concept's quote and title resemble the
items graders kept rather than those they dropped, read by a linear probe on their vectors.

Half of the small model's drops on unseen books were quotes that state no idea (a scene, a
character sketch, a line of dialogue); most of the rest were titles that misread their quote.
Neither the model's own yes/no (`check`, `idea`) nor the cosines of `doubt_signals.py` told
them apart on books no fit had seen (AUC 0.50-0.68, docs/benchmarks.md); a logistic regression
on the embedder's vectors of the quote and the title does better (AUC 0.73-0.79 on each of
five graded sets, 19 books, scored by a probe fitted on the other four; 0.78 on a set graded
after the first probe shipped).

A probe is tied to the embedder whose space it learned (`embedder`): the shipped probes
(`doubt_probe.json`, written by `benchmarks/fit_doubt_probe.py`) are looked up by its name.
The value is the probe's log-odds that the item is usable, moved by most of its run's median
(`in_run`); `doubt.py`'s model turns it into the score and the flag.

Why the move: the probe ranks one book's drafts well, but its values for a whole book sit
higher or lower from book to book, so a floor fitted on some books flagged 94% of another's
(`heldout5`, docs/benchmarks.md). Taking each value relative to its run's median (a run is one
book's quotes) removes that; taking all of it also removes the part that is real (a book whose
drafts are mostly wrong should get more flags), and a median of a few concepts is noise. So
the shift is shrunk, n / (n + run_prior) of the median for a run of n concepts: on the six
graded sets, each scored by a probe and floor fitted on the other five, the goal (80% of the
drops flagged, 80% of the unflagged usable) was met on six of six with run_prior 3, 5 or 10,
on four of six with no shift and three of six with the whole median; with two more sets, six
of eight with 5, four of eight with none. Its weakness is a book whose drafts are nearly all
wrong (a novel quoted for its scenes): the move lifts it to the others' level
(docs/benchmarks.md, "The probe's value within its run").

What the move takes away is said instead: a run whose median sits under `low_run`, as low as
that of graded books where at most 40% of the drafts were usable, is warned about as a whole
(`Probe.run_warning`). Across 28 graded books the median ranked books by their usable share
(Spearman 0.67, each book scored by a probe fitted on the others), but a floor on it did not
carry from set to set (it flagged all of one book, or of none); a warning that says how those
books fared does not decide for the reader.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from importlib import resources
from typing import Any

import numpy as np
from numpy.typing import NDArray

from zettelgraph.guards.doubt_signals import unit

SIGNAL = "like_kept"
SHIPPED = "doubt_probe.json"
# The fewest concepts whose median says something about their book: each graded book had 20
# or more but three (3-6), and a median of a few drafts is mostly noise.
MIN_RUN = 10
# A book is "low" for `low_run` when at most this share of its drafts was usable.
LOW_USABLE = 0.4

Vector = NDArray[np.float32]


def features(title: Vector, quotes: Sequence[Vector]) -> NDArray[np.float64]:
    """What the probe reads: the mean direction of the cited quotes (is it an idea?), the
    title's, and how far apart they are along each dimension (does the title say what the
    quote says?). The third part raised the AUC on each of five graded sets, each scored by a
    probe fitted on the other four (0.68-0.78 -> 0.73-0.79)."""
    t = unit(np.asarray(title, dtype=np.float64))
    quote = (
        unit(np.asarray(np.mean(np.stack(quotes), axis=0), dtype=np.float64))
        if quotes
        else np.zeros_like(t)
    )
    return np.concatenate([quote, t, np.abs(quote - t)])


def fit_logistic(
    values: NDArray[np.float64], mean: NDArray[np.float64], usable: Sequence[bool], l2: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """An L2-penalised logistic regression of `usable` on `values` (one row an item)
    standardised by `mean` and their spread (a column that does not vary gets scale 1), by
    Newton's method; the intercept is not penalised. Returns (scale, coefficients with the
    intercept first): the doubt flags' fit (`doubt.fit`) and the probe's (`fit_probe`)."""
    scale = values.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    x = np.hstack([np.ones((len(values), 1)), (values - mean) / scale])
    y = np.array([1.0 if u else 0.0 for u in usable])
    beta = np.zeros(x.shape[1])
    penalty = np.diag([0.0, *([l2] * (x.shape[1] - 1))])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ beta, -30, 30)))
        gradient = x.T @ (y - p) - penalty @ beta
        hessian = x.T @ (x * (p * (1 - p))[:, None]) + penalty + 1e-9 * np.eye(len(beta))
        step = np.linalg.solve(hessian, gradient)
        beta += step
        if float(np.abs(step).max()) < 1e-8:
            break
    return scale, beta


@dataclass(frozen=True)
class Probe:
    """log-odds(usable) = bias + weights . (features - mean) / scale, in `embedder`'s space."""

    embedder: str
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    fitted_on: str = ""
    # How many concepts' worth of belief in the probe's own scale (see the module's doc); 0
    # for a probe fitted before the shift, which reads values as they are.
    run_prior: float = 0.0
    # The median under which a run is warned about, and the usable shares of the graded
    # books under it (`low_run_floor`); None: no warning.
    low_run: float | None = None
    low_run_usable: tuple[float, ...] = ()

    def value(self, title: Vector, quotes: Sequence[Vector]) -> float:
        """`like_kept` of a concept with this title and these quotes' vectors."""
        return self.of(features(title, quotes))

    def of(self, row: NDArray[np.float64]) -> float:
        """The value for one row of `features`."""
        x = (row - np.array(self.mean)) / np.array(self.scale)
        total = self.bias + float(x @ np.array(self.weights))
        return total if math.isfinite(total) else 0.0

    def in_run(self, values: Mapping[str, float]) -> dict[str, float]:
        """The values of one run's concepts (key -> `value`), each moved by n / (n +
        run_prior) of the run's median: what the flag reads."""
        return in_run(values, self.run_prior)

    def run_warning(self, values: Sequence[float]) -> str | None:
        """What to tell the reader about a run whose concepts' values (as `value` gives
        them, before the move) sit as low as the books graders dropped most of; None for
        any other run, or one of fewer than MIN_RUN concepts."""
        if self.low_run is None or len(values) < MIN_RUN or not self.low_run_usable:
            return None
        median = float(np.median(values))
        if median >= self.low_run:
            return None
        low, high = min(self.low_run_usable), max(self.low_run_usable)
        return (
            "doubt: this book's drafts read, as a whole, like those graders dropped (scenes "
            "or characters rather than ideas, or titles that misread their quote): of the "
            f"{len(self.low_run_usable)} graded books whose drafts read this low, "
            f"{low:.0%}-{high:.0%} of drafts were usable. The flags are relative to the book, "
            "so expect wrong drafts among the unflagged too"
        )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Probe:
        return cls(
            embedder=str(data["embedder"]),
            mean=tuple(float(v) for v in data["mean"]),
            scale=tuple(float(v) for v in data["scale"]),
            weights=tuple(float(v) for v in data["weights"]),
            bias=float(data["bias"]),
            fitted_on=str(data.get("fitted_on", "")),
            run_prior=float(data.get("run_prior", 0.0)),
            low_run=None if data.get("low_run") is None else float(data["low_run"]),
            low_run_usable=tuple(float(v) for v in data.get("low_run_usable", ())),
        )


def in_run(values: Mapping[str, float], run_prior: float) -> dict[str, float]:
    """Each value less n / (n + run_prior) of the median of the n values (none moved when
    run_prior is 0 or there are no values)."""
    if not values or run_prior <= 0:
        return dict(values)
    n = len(values)
    shift = n / (n + run_prior) * float(np.median(list(values.values())))
    return {key: value - shift for key, value in values.items()}


def low_run_floor(books: Sequence[tuple[float, float]]) -> tuple[float | None, list[float]]:
    """From graded books' (median value, usable share), each median given by a probe not
    fitted on that book: the floor under which a run is warned about, and the usable shares
    of the books under it. Taken from the lowest median up, the books while each had at most
    LOW_USABLE of its drafts usable; the floor halfway to the next book's median. (None, [])
    when the lowest book had more."""
    ordered = sorted(books)
    low = 0
    while low < len(ordered) and ordered[low][1] <= LOW_USABLE:
        low += 1
    if low == 0:
        return None, []
    above = ordered[low][0] if low < len(ordered) else ordered[low - 1][0] + 1.0
    return (ordered[low - 1][0] + above) / 2, [share for _, share in ordered[:low]]


def fit_probe(
    embedder: str, rows: Sequence[NDArray[np.float64]], usable: Sequence[bool], *, l2: float
) -> Probe:
    """A probe fitted on graded items' `features` (standardised; `l2` on each weight: with
    1,152 features and a few hundred items, a strong penalty is what keeps it general)."""
    if len(rows) != len(usable) or not rows or all(usable) or not any(usable):
        raise ValueError("fitting a probe needs graded items of both kinds, one grade each")
    raw = np.stack(rows)
    mean = raw.mean(axis=0)
    scale, beta = fit_logistic(raw, mean, usable, l2)
    return Probe(
        embedder=embedder,
        mean=tuple(float(v) for v in mean),
        scale=tuple(float(v) for v in scale),
        weights=tuple(float(v) for v in beta[1:]),
        bias=float(beta[0]),
        fitted_on=f"{len(rows)} graded concepts",
    )


def shipped_probes() -> dict[str, Probe]:
    """The probes fitted on the project's graded runs, by embedder name."""
    path = resources.files("zettelgraph.guards").joinpath(SHIPPED)
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {name: Probe.from_dict(value) for name, value in data.items()}
