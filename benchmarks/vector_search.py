"""Exact top-k vector search latency of the embedded SQLite store.

Loads N random unit "concept" vectors into a real SQLiteStore file (through `apply`, in
batches, the way the workflows write), then times `vector_search` on a freshly opened store:
the first call loads the matrix from the file and is reported as `load_seconds`; the rest
are reported as median and p95 latency. Prints one JSON object to stdout.

    python benchmarks/vector_search.py --n 100000 --dim 512 --k 50 --queries 200
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from zettelgraph.models import ChangeSet, Concept, NodeLabel, SearchHit, stable_id
from zettelgraph.store.sqlite import SQLiteStore

BATCH = 5_000
MODEL = "benchmark-random"
EXACT_CHECKS = 5


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="number of concept vectors")
    parser.add_argument("--dim", type=int, default=512, help="vector dimensions")
    parser.add_argument("--k", type=int, default=50, help="results per query")
    parser.add_argument("--queries", type=int, default=200, help="timed queries")
    parser.add_argument(
        "--path",
        type=Path,
        default=None,
        help="store file to create (default: a file in a temporary directory, removed after)",
    )
    parser.add_argument("--seed", type=int, default=0)
    return parser.parse_args(argv)


def random_units(rng: np.random.Generator, rows: int, dim: int) -> np.ndarray[Any, Any]:
    matrix = rng.standard_normal((rows, dim), dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix


def concept_id(i: int) -> str:
    return stable_id("benchmark-concept", str(i))


def load(
    store: SQLiteStore, n: int, dim: int, rng: np.random.Generator
) -> tuple[float, np.ndarray[Any, Any]]:
    """Write n concepts with vectors in batches; returns the seconds it took and the vectors."""
    written = np.empty((n, dim), dtype=np.float32)
    started = time.perf_counter()
    for start in range(0, n, BATCH):
        stop = min(start + BATCH, n)
        vectors = random_units(rng, stop - start, dim)
        written[start:stop] = vectors
        concepts = [
            Concept(
                id=concept_id(i),
                title=f"Concepto {i}",
                concept=f"Idea de prueba número {i}.",
            )
            for i in range(start, stop)
        ]
        store.apply(
            ChangeSet(
                concepts=concepts,
                vectors={c.id: vectors[j] for j, c in enumerate(concepts)},
            )
        )
    return time.perf_counter() - started, written


def check_exact(
    hits: list[SearchHit],
    written: np.ndarray[Any, Any],
    rows_by_id: dict[str, int],
    query: np.ndarray[Any, Any],
    k: int,
) -> bool:
    """Same scores as a brute-force float64 scan, and each hit carries its own true score."""
    truth = written.astype(np.float64) @ query.astype(np.float64)
    best = np.sort(truth)[::-1][:k]
    got = np.array([hit.score for hit in hits])
    rows = [rows_by_id[hit.id] for hit in hits]
    return (
        len(hits) == len(best)
        and bool(np.allclose(got, best, atol=1e-5, rtol=0))
        and bool(np.allclose(got, truth[rows], atol=1e-5, rtol=0))
    )


def measure(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    rng = np.random.default_rng(args.seed)
    writer = SQLiteStore(path)
    try:
        writer.ensure_embedder(MODEL, args.dim)
        insert_seconds, written = load(writer, args.n, args.dim, rng)
    finally:
        writer.close()

    queries = random_units(rng, args.queries + 1, args.dim)
    store = SQLiteStore(path)  # fresh handle: the matrix is not loaded yet
    try:
        started = time.perf_counter()
        first = store.vector_search(NodeLabel.CONCEPT, queries[0], args.k)
        load_seconds = time.perf_counter() - started
        assert len(first) == min(args.k, args.n), "the warm-up search returned too few hits"

        latencies: list[float] = []
        results: list[list[SearchHit]] = []
        for query in queries[1:]:
            started = time.perf_counter()
            hits = store.vector_search(NodeLabel.CONCEPT, query, args.k)
            latencies.append(time.perf_counter() - started)
            results.append(hits)
    finally:
        store.close()

    # Exactness is part of the promise: verify a few answers against a brute-force scan.
    rows_by_id = {concept_id(i): i for i in range(args.n)}
    checked = min(EXACT_CHECKS, args.queries)
    exact = all(
        check_exact(results[i], written, rows_by_id, queries[i + 1], args.k) for i in range(checked)
    )

    latencies.sort()
    p95 = latencies[min(len(latencies) - 1, int(np.ceil(0.95 * len(latencies))) - 1)]
    return {
        "n": args.n,
        "dim": args.dim,
        "k": args.k,
        "queries": args.queries,
        "insert_seconds": round(insert_seconds, 3),
        "insert_rate_per_s": round(args.n / insert_seconds, 1),
        "load_seconds": round(load_seconds, 4),
        "median_ms": round(statistics.median(latencies) * 1000, 3),
        "p95_ms": round(p95 * 1000, 3),
        "exact": exact,
        "exact_checked_queries": checked,
        "file_mb": round(path.stat().st_size / 1e6, 1),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "sqlite": __import__("sqlite3").sqlite_version,
        "cpu_count": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.queries < 1 or args.n < 1:
        print("--n and --queries must be at least 1", file=sys.stderr)
        return 2
    if args.path is not None:
        if args.path.exists():
            print(f"{args.path} exists; give a new path", file=sys.stderr)
            return 2
        result = measure(args.path, args)
    else:
        with tempfile.TemporaryDirectory(prefix="zettelgraph-bench-") as tmp:
            result = measure(Path(tmp) / "bench.db", args)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
