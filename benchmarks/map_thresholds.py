"""Carry a cosine threshold set by hand for one embedder over to another, by rank on the same
sentence pairs.

Some thresholds were set by hand for USE (the batch merge at 0.90, the relation floor at 0.25,
the gloss check at 0.5, the graph seeds of search at 0.35) and have no labelled data of their
own. Another embedder's cosines live on another scale (e5-small's STS pairs are all above
0.7), so the number cannot be copied. What can be kept is the decision: the share of STS-es
dev pairs the threshold puts at or above it. For each FROM value this prints the TO
embedder's cosine that puts the same share of the same pairs at or above it, and the mean
human score (0-5) of the pairs within 2% of it on each side, so one can check both cut at a
like meaning. Prints one JSON object.

    python benchmarks/map_thresholds.py --from use-multilingual --to e5-small 0.9 0.25 0.5
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibrate_duplicates import DEFAULT_DATA, floor_threshold, load_pairs, pair_cosines

NEAR = 0.02  # share of the pairs on each side of a threshold whose human scores are averaged


def matched(source: NDArray[np.float64], target: NDArray[np.float64], value: float) -> float:
    """The target cosine with the same share of pairs at or above it as `value` has in
    `source`, rounded down to 3 decimals (rounding down keeps at least as many pairs)."""
    share_above = float(np.mean(source >= value))
    if share_above <= 0.0:
        return floor_threshold(float(target.max()) + 1e-3)
    ranked = np.sort(target)[::-1]
    return floor_threshold(float(ranked[max(0, round(share_above * len(ranked)) - 1)]))


def score_near(sims: NDArray[np.float64], scores: NDArray[np.float64], value: float) -> float:
    """Mean human score of the pairs ranked within NEAR of the threshold's place."""
    order = np.argsort(sims)
    place = int(np.searchsorted(sims[order], value))
    half = max(1, round(NEAR * len(sims)))
    window = order[max(0, place - half) : place + half]
    return round(float(np.mean(scores[window])), 2) if len(window) else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("values", nargs="+", type=float, help="thresholds of the FROM embedder")
    parser.add_argument("--from", dest="source", default="use-multilingual")
    parser.add_argument("--to", dest="target", default="e5-small")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args(argv)
    if not args.data.is_file():
        print(f"no data file at {args.data}; pass --data", file=sys.stderr)
        return 2
    from zettelgraph.llm.embeddings import build_embedder

    left, right, score_list = load_pairs(args.data)
    scores = np.asarray(score_list, dtype=np.float64)
    sims = {
        name: pair_cosines(build_embedder(name), left, right) for name in (args.source, args.target)
    }
    rows: list[dict[str, Any]] = []
    for value in args.values:
        carried = matched(sims[args.source], sims[args.target], value)
        rows.append(
            {
                args.source: value,
                args.target: carried,
                "share_at_or_above": round(float(np.mean(sims[args.source] >= value)), 4),
                f"share_at_or_above_{args.target}": round(
                    float(np.mean(sims[args.target] >= carried)), 4
                ),
                f"human_score_near_{args.source}": score_near(sims[args.source], scores, value),
                f"human_score_near_{args.target}": score_near(sims[args.target], scores, carried),
            }
        )
    report = {
        "pairs": len(scores),
        "data": str(args.data),
        "thresholds": rows,
        "date": dt.date.today().isoformat(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
