"""The approximate index behind large vector indexes (`vector_index.py`).

An inverted-file index from `faiss` (IVF: the vectors grouped under k-means centroids; a
query scans only the groups of its nearest centroids), keyed by the row numbers of the
index's matrix. It only proposes candidates: the caller scores them exactly against its
float32 rows, so the index keeps 8-bit copies of the vectors (a quarter of the memory) and
the over-fetch and the number of groups scanned, not the quantisation, decide the recall.
Why faiss's IVF over HNSW graphs (usearch, hnswlib, faiss's own) and sqlite-vec:
docs/design.md, "Vector search at a million passages".
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from zettelgraph.system.openmp import sleeping_threads

with sleeping_threads():
    # faiss's bundled OpenMP reads the wait policy when it loads: its threads search beside
    # the full text's (system/openmp.py).
    import faiss

# Training samples per centroid (faiss warns below 39); the share of the groups a query
# scans, and the fewest rows it scans. On store.py's clustered 512-dim vectors, recall@50
# after rescoring: 0.994 at 1,000,000 scanning 1/32 of the groups, 0.936 at 200,000 scanning
# 20,000 rows, 0.980 scanning 50,000 (docs/benchmarks.md, "A million passages").
SAMPLES_PER_GROUP = 40
SCANNED_SHARE = 1 / 16
MIN_SCANNED = 50_000
# faiss's IVF parallel_mode for the groups one query scans, split among the threads.
PARALLEL_OVER_GROUPS = 1


class AnnIndex:
    """Row number -> vector, with approximate top-n row numbers for a query. Built once over
    the rows it is first given (`build`), then kept up to date row by row."""

    def __init__(self, dim: int, rows: NDArray[np.float32]) -> None:
        self.dim = dim
        # sqrt(n) groups: a query then scans about sqrt(n) * SCANNED_SHARE groups of sqrt(n)
        # rows each; capped so training stays a bounded sample.
        groups = max(1, min(math.isqrt(len(rows)), len(rows) // SAMPLES_PER_GROUP, 2048))
        self._quantizer = faiss.IndexFlatIP(dim)
        self._index = faiss.IndexIVFScalarQuantizer(
            self._quantizer, dim, groups, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT
        )
        sample = rows
        if len(rows) > groups * SAMPLES_PER_GROUP:
            picked = np.random.default_rng(0).choice(len(rows), groups * SAMPLES_PER_GROUP, False)
            sample = rows[np.sort(picked)]
        self._index.train(np.ascontiguousarray(sample))
        self.nprobe = max(1, math.ceil(groups * SCANNED_SHARE))
        # A search is one query: faiss's default spreads a batch's queries over threads and
        # so scans one query's groups on one core; this spreads the groups instead (the
        # index's search 3.3 / 4.1 ms p50 / p95 against 6.4 / 7.9 on two cores, a million
        # passages; docs/benchmarks.md, "A million passages").
        self._index.parallel_mode = PARALLEL_OVER_GROUPS
        self.built_size = len(rows)
        self.add(np.arange(len(rows), dtype=np.int64), rows)

    def __len__(self) -> int:
        return int(self._index.ntotal)

    def add(self, rows: NDArray[np.intp], vectors: NDArray[np.float32]) -> None:
        if rows.size:
            self._index.add_with_ids(
                np.ascontiguousarray(vectors, dtype=np.float32), rows.astype(np.int64)
            )

    def remove(self, rows: list[int]) -> None:
        if rows:
            # faiss's Python layer takes an id array here (its stubs know only IDSelector).
            self._index.remove_ids(np.asarray(rows, dtype=np.int64))  # type: ignore[arg-type]

    def search(self, query: NDArray[np.float32], n: int) -> NDArray[np.intp]:
        """Up to n row numbers near `query`, nearest first (approximately)."""
        # At least MIN_SCANNED rows, and twice the groups that n rows fill on average: with
        # only a share of the groups, a small index's 50 nearest spread over more groups
        # than a query reaches (recall@50 0.42 at 21,000 clustered vectors scanning 5 of
        # 144 groups).
        groups = self._index.nlist
        per_group = max(len(self), 1) / groups
        floor = math.ceil(max(MIN_SCANNED, 2 * n) / per_group)
        self._index.nprobe = min(groups, max(self.nprobe, floor))
        _, found = self._index.search(query.reshape(1, -1), max(n, 1))
        rows = found[0]
        return np.asarray(rows[rows >= 0], dtype=np.intp)
