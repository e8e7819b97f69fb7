"""Calibrate the cosine cut-off below which a candidate concept is declared novel without an LLM.

The concept-extraction workflow only asks the LLM about existing concepts whose cosine
similarity to the candidate is at least T; a candidate whose best similarity is under T is
novel by fiat. T must keep recall of true duplicates at or above a target, so it is calibrated
on sentence pairs with human similarity scores (STSb, Spanish dev split): a pair scored at or
above --duplicate-score is a true duplicate, and T is the largest threshold, rounded down to
3 decimals, that leaves at most (1 - recall) of those pairs under it. Prints one JSON object.

    python benchmarks/calibrate_duplicates.py --recall 0.99 --duplicate-score 4.5
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import math
import os
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from zettelgraph.settings import default_embeddings

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared/data/stsb_es/dev.csv"
LOW_SCORE = 2.0  # STS guidelines: under 2 means "not equivalent", at most the same topic
TABLE_THRESHOLDS = [round(0.30 + 0.05 * i, 2) for i in range(13)]  # 0.30 .. 0.90


def floor_threshold(value: float, decimals: int = 3) -> float:
    """The largest float with `decimals` decimals that is <= value (as floats compare)."""
    step: int = 10**decimals
    result = math.floor(value * step) / step
    # value * step can land just off an integer; fix the result up with float comparisons,
    # which are what the workflow uses (`similarity >= T`).
    up = round(result + 1 / step, decimals)
    if up <= value:
        result = up
    while result > value:
        result = round(result - 1 / step, decimals)
    return round(result, decimals)


def calibrate(
    similarities: Sequence[float],
    scores: Sequence[float],
    *,
    duplicate_score: float,
    recall: float,
) -> float:
    """The largest threshold T, rounded down to 3 decimals, with duplicate recall >= `recall`.

    A pair is a true duplicate when its score is >= `duplicate_score`; it is recalled when its
    similarity is >= T. Rounding down only adds recall.
    """
    if len(similarities) != len(scores):
        raise ValueError(
            f"similarities and scores differ in length ({len(similarities)} != {len(scores)})"
        )
    if not 0.0 < recall <= 1.0:
        raise ValueError(f"recall must be in (0, 1], got {recall}")
    duplicates = sorted(
        float(sim)
        for sim, score in zip(similarities, scores, strict=True)
        if score >= duplicate_score
    )
    if not duplicates:
        raise ValueError(
            f"no duplicate pairs: no pair has score >= {duplicate_score} among {len(scores)} "
            "pairs, so recall is undefined; lower duplicate_score or use other data"
        )
    if any(math.isnan(sim) for sim in duplicates):
        raise ValueError("similarities of duplicate pairs contain NaN")
    n = len(duplicates)
    # At least `required` duplicates must be at or above T. round() absorbs float noise such as
    # 0.99 * 100 == 99.00000000000001, which would otherwise demand 100.
    required = math.ceil(round(recall * n, 9))
    allowed_below = n - required
    # Exactly the duplicates sorted before index `allowed_below` may fall under T; any T above
    # duplicates[allowed_below] would lose one more.
    return floor_threshold(duplicates[allowed_below])


def recall_at(
    similarities: NDArray[np.float64], is_duplicate: NDArray[np.bool_], t: float
) -> float:
    return float(np.mean(similarities[is_duplicate] >= t))


def share_below(
    similarities: NDArray[np.float64], mask: NDArray[np.bool_], t: float
) -> float | None:
    """Share of the masked pairs with similarity under t (None when the mask is empty)."""
    return float(np.mean(similarities[mask] < t)) if mask.any() else None


def load_pairs(path: Path) -> tuple[list[str], list[str], list[float]]:
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    return (
        [row["sentence1"] for row in rows],
        [row["sentence2"] for row in rows],
        [float(row["score"]) for row in rows],
    )


def pair_cosines(
    embedder: Any, left: list[str], right: list[str], *, as_queries: bool = False
) -> NDArray[np.float64]:
    """Cosine similarity per pair; each distinct sentence is embedded once, in batches, as the
    workflow embeds stored texts (`embed`), or as search queries with `as_queries`."""
    from zettelgraph.llm.embeddings import embed_queries

    texts = list(dict.fromkeys([*left, *right]))
    embed = (lambda batch: embed_queries(embedder, batch)) if as_queries else embedder.embed
    vectors = np.concatenate(
        [embed(texts[start : start + 256]) for start in range(0, len(texts), 256)]
    ).astype(np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors /= np.where(norms > 0, norms, 1.0)
    row = {text: i for i, text in enumerate(texts)}
    a = vectors[[row[text] for text in left]]
    b = vectors[[row[text] for text in right]]
    return np.asarray(np.sum(a * b, axis=1), dtype=np.float64)


def report(
    sims: NDArray[np.float64], scores: NDArray[np.float64], args: argparse.Namespace
) -> dict[str, Any]:
    threshold = calibrate(
        sims.tolist(), scores.tolist(), duplicate_score=args.duplicate_score, recall=args.recall
    )
    is_dup = scores >= args.duplicate_score
    dup_sims = sims[is_dup]
    return {
        "n_pairs": len(sims),
        "n_duplicates": int(is_dup.sum()),
        "duplicate_score": args.duplicate_score,
        "target_recall": args.recall,
        "threshold": threshold,
        "recall_at_threshold": recall_at(sims, is_dup, threshold),
        "duplicates_below_threshold": int((dup_sims < threshold).sum()),
        "share_all_below_threshold": float(np.mean(sims < threshold)),
        "share_non_duplicates_below_threshold": share_below(sims, ~is_dup, threshold),
        f"share_score_below_{LOW_SCORE:g}_below_threshold": share_below(
            sims, scores < LOW_SCORE, threshold
        ),
        "duplicate_cosine_quantiles": {
            "min": round(float(dup_sims.min()), 4),
            "p1": round(float(np.quantile(dup_sims, 0.01)), 4),
            "p5": round(float(np.quantile(dup_sims, 0.05)), 4),
            "median": round(float(np.median(dup_sims)), 4),
        },
        "table": [
            {
                "threshold": t,
                "recall": round(recall_at(sims, is_dup, t), 4),
                "skip_share": round(float(np.mean(sims < t)), 4),
            }
            for t in TABLE_THRESHOLDS
        ],
        "spearman_cosine_score": round(spearman(sims, scores), 4),
        "embedder": args.embeddings,
        "data": str(args.data),
        "date": dt.date.today().isoformat(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
    }


def spearman(x: NDArray[np.float64], y: NDArray[np.float64]) -> float:
    def ranks(values: NDArray[np.float64]) -> NDArray[np.float64]:
        order = np.argsort(values, kind="stable")
        sorted_values = values[order]
        result = np.empty(len(values))
        start = 0
        while start < len(values):  # average ranks over ties
            stop = start
            while stop + 1 < len(values) and sorted_values[stop + 1] == sorted_values[start]:
                stop += 1
            result[order[start : stop + 1]] = (start + stop) / 2
            start = stop + 1
        return result

    return float(np.corrcoef(ranks(x), ranks(y))[0, 1])


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, help="CSV with sentence1,sentence2,score"
    )
    parser.add_argument("--embeddings", default=default_embeddings(), help="embedder spec")
    parser.add_argument(
        "--duplicate-score", type=float, default=4.5, help="pairs scored >= this are duplicates"
    )
    parser.add_argument("--recall", type=float, default=0.99, help="target duplicate recall")
    parser.add_argument(
        "--as-queries",
        action="store_true",
        help="embed both sides as search queries (e5's `query: `) instead of as stored texts",
    )
    parser.add_argument("--pairs", type=int, default=0, help="only the first N pairs")
    parser.add_argument(
        "--translate-with",
        help="a model (ZETTELGRAPH_LLM, e.g. local) that first puts each pair's first sentence "
        "into English: the threshold for a quote and a concept in different languages",
    )
    parser.add_argument(
        "--translations",
        type=Path,
        default=Path.home() / ".cache" / "zettelgraph-benchmarks" / "stsb_es_to_en.json",
        help="where the translations are kept between runs (outside the repository: the "
        "sentences keep their own licences)",
    )
    return parser.parse_args(argv)


def translated(texts: list[str], model: str, cache: Path) -> list[str]:
    """`texts` in English, by `model`, each translated once (kept in `cache`)."""
    from langchain_core.messages import HumanMessage

    from zettelgraph.llm.factory import ChatModels
    from zettelgraph.settings import Settings

    done: dict[str, str] = json.loads(cache.read_text("utf-8")) if cache.is_file() else {}
    missing = [text for text in dict.fromkeys(texts) if f"{model}\t{text}" not in done]
    if missing:
        models = ChatModels(Settings(llm=model))
        try:
            for i, text in enumerate(missing, start=1):
                ask = f"Translate into English. Answer with the translation only.\n\n{text}"
                answer = models.main.invoke([HumanMessage(ask)]).content
                done[f"{model}\t{text}"] = str(answer).strip().strip('"')
                if i % 50 == 0 or i == len(missing):
                    cache.parent.mkdir(parents=True, exist_ok=True)
                    cache.write_text(json.dumps(done, ensure_ascii=False), "utf-8")
                    print(f"translated {i} of {len(missing)}", file=sys.stderr)
        finally:
            models.close()
    return [done[f"{model}\t{text}"] for text in texts]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.data.is_file():
        print(f"no data file at {args.data}; pass --data", file=sys.stderr)
        return 2
    from zettelgraph.llm.embeddings import build_embedder

    left, right, score_list = load_pairs(args.data)
    if args.pairs:
        left, right, score_list = left[: args.pairs], right[: args.pairs], score_list[: args.pairs]
    if args.translate_with:
        # Across languages: an English quote cited by a Spanish concept. STS-es has no English
        # side, so the first sentence of each pair is put into English by a model first.
        left = translated(left, args.translate_with, args.translations)
    embedder = build_embedder(args.embeddings)
    started = time.perf_counter()
    sims = pair_cosines(embedder, left, right, as_queries=args.as_queries)
    embed_seconds = time.perf_counter() - started
    try:
        result = report(sims, np.asarray(score_list, dtype=np.float64), args)
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    result["embedder"] = embedder.name
    result["embedded_as"] = "queries" if args.as_queries else "stored texts"
    result["pairs"] = (
        f"English (translated by {args.translate_with}) vs Spanish"
        if args.translate_with
        else "Spanish vs Spanish"
    )
    result["embed_seconds"] = round(embed_seconds, 2)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
