"""Charts of an experiment where a picture says more than the table: how often the term
occurs per group (per 10,000 words, so long and short documents compare) and how far its
contexts drift from one group to the next. PNG for the vault and the web page, SVG for print.

matplotlib's object API on the Agg canvas (no pyplot): no global figure state, so two
experiments may draw at once, and no display is needed. Output is byte-stable for the same
data (no dates in the metadata, a fixed SVG hash salt), so re-running an experiment does not
rewrite a vault attachment that did not change.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

matplotlib.rcParams["svg.hashsalt"] = "zettelgraph"

Chart = dict[str, bytes]  # "png" / "svg" -> file bytes


def _render(figure: Figure) -> Chart:
    FigureCanvasAgg(figure)
    figure.tight_layout()
    out: Chart = {}
    for fmt, metadata in (("png", {"Software": None}), ("svg", {"Date": None})):
        buffer = io.BytesIO()
        figure.savefig(buffer, format=fmt, dpi=110, metadata=metadata)
        out[fmt] = buffer.getvalue()
    return out


def _short(label: str, limit: int = 22) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def frequency_chart(term: str, grouping: str, groups: Sequence[tuple[str, float]]) -> Chart:
    """Bars: occurrences of `term` per 10,000 words in each group, in the groups' order."""
    figure = Figure(figsize=(6.4, 3.4))
    axes = figure.add_subplot()
    labels = [_short(g) for g, _ in groups]
    axes.bar(range(len(groups)), [v for _, v in groups], color="#4c72b0")
    axes.set_xticks(range(len(groups)), labels, rotation=30 if len(groups) > 4 else 0, ha="right")
    axes.set_ylabel("per 10,000 words")
    axes.set_title(f"“{term}” by {grouping}")
    axes.spines[["top", "right"]].set_visible(False)
    return _render(figure)


def drift_chart(
    term: str, grouping: str, groups: Sequence[tuple[str, float | None, float]]
) -> Chart:
    """Lines: each group's distance (cosine, 0 = same use) from the previous group and from
    the term's use over all groups."""
    figure = Figure(figsize=(6.4, 3.4))
    axes = figure.add_subplot()
    xs = list(range(len(groups)))
    previous = [(x, d) for x, (_, d, _) in zip(xs, groups, strict=True) if d is not None]
    if previous:
        axes.plot(*zip(*previous, strict=True), marker="o", label="from the previous group")
    axes.plot(xs, [o for _, _, o in groups], marker="s", linestyle="--", label="from all groups")
    axes.set_xticks(xs, [_short(g) for g, _, _ in groups], rotation=30 if len(xs) > 4 else 0)
    axes.set_ylabel("cosine distance")
    axes.set_title(f"Drift of “{term}” by {grouping}")
    axes.legend(frameon=False, fontsize="small")
    axes.spines[["top", "right"]].set_visible(False)
    return _render(figure)
