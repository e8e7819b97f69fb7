"""Cosine search over an in-memory float32 matrix: exact, or through an approximate index.

Vectors are L2-normalised on the way in, so a matrix-vector product gives cosine similarity.
Rows live in a buffer that doubles when full, so bulk loads do not copy the matrix per write.

From `ann_threshold` rows on, an approximate index (`ann_index.py`, built on the first
search and kept in step with every upsert and removal) proposes candidates that the matrix
then scores exactly: a scan of 1,000,000 x 512 floats reads 2 GB per query
(docs/benchmarks.md, "A million passages"), the approximate index an eighth of that in
8-bit copies, and the rescoring a few hundred rows.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Iterable, Sequence

import numpy as np
from numpy.typing import NDArray

from zettelgraph.store.ann_index import AnnIndex


def normalize(vector: NDArray[np.float32]) -> NDArray[np.float32]:
    array = np.asarray(vector, dtype=np.float32).reshape(-1)
    norm = float(np.linalg.norm(array))
    if norm == 0.0 or not np.isfinite(norm):
        return array
    return (array / norm).astype(np.float32, copy=False)


def normalize_rows(matrix: NDArray[np.float32]) -> NDArray[np.float32]:
    """Each row scaled to unit length (zero rows stay zero), as float32."""
    rows = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    usable = (norms > 0) & np.isfinite(norms)
    return (rows / np.where(usable, norms, np.float32(1.0))).astype(np.float32, copy=False)


# Below this many rows an exact scan is about as fast as the approximate index and always
# right (docs/benchmarks.md, "A million passages", measures the crossover).
ANN_THRESHOLD = 50_000
# Candidates asked of the approximate index per wanted hit (at least ANN_MIN_CANDIDATES),
# all rescored exactly.
ANN_OVERSAMPLE = 4
ANN_MIN_CANDIDATES = 200


class VectorIndex:
    """Id-addressed rows of unit vectors with top-k search: exact below `ann_threshold`
    rows, through an approximate index over the same rows above it."""

    def __init__(self, dim: int, capacity: int = 0, ann_threshold: int = ANN_THRESHOLD) -> None:
        self.dim = dim
        self.ann_threshold = ann_threshold
        self._matrix = np.zeros((capacity, dim), dtype=np.float32)
        self._ids: list[str] = []
        self._rows: dict[str, int] = {}
        # Keyed by row number; None until a search finds the index big enough.
        self._ann: AnnIndex | None = None

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._rows

    @property
    def approximate(self) -> bool:
        """Whether searches go through the approximate index (built on the first search
        past the threshold)."""
        return self._ann is not None

    def upsert(self, items: Iterable[tuple[str, NDArray[np.float32]]]) -> None:
        ids: list[str] = []
        vectors: list[NDArray[np.float32]] = []
        for node_id, vector in items:
            array = np.asarray(vector, dtype=np.float32).reshape(-1)
            if array.shape[0] != self.dim:
                raise ValueError(f"vector of {array.shape[0]} dims, index has {self.dim}")
            ids.append(node_id)
            vectors.append(array)
        if ids:
            self.upsert_matrix(ids, np.stack(vectors))

    def upsert_matrix(self, ids: Sequence[str], matrix: NDArray[np.float32]) -> None:
        """Insert or replace one row per id; row i of `matrix` belongs to `ids[i]`."""
        if matrix.ndim != 2 or matrix.shape != (len(ids), self.dim):
            raise ValueError(f"matrix of shape {matrix.shape}, expected ({len(ids)}, {self.dim})")
        # The last vector given for an id wins, as with one-by-one upserts.
        latest = {node_id: i for i, node_id in enumerate(ids)}
        source = np.fromiter(latest.values(), dtype=np.intp, count=len(latest))
        target = np.empty(len(latest), dtype=np.intp)
        replaced: list[int] = []
        for i, node_id in enumerate(latest):
            row = self._rows.get(node_id)
            if row is None:
                row = len(self._ids)
                self._ids.append(node_id)
                self._rows[node_id] = row
            else:
                replaced.append(row)
            target[i] = row
        self._grow(len(self._ids))
        self._matrix[target] = normalize_rows(matrix[source])
        if self._ann is not None:
            self._ann.remove(replaced)
            self._ann.add(target, self._matrix[target])

    def remove(self, node_id: str) -> None:
        row = self._rows.pop(node_id, None)
        if row is None:
            return
        last = len(self._ids) - 1
        if self._ann is not None:
            self._ann.remove([row])
        if row != last:
            moved = self._ids[last]
            self._matrix[row] = self._matrix[last]
            self._ids[row] = moved
            self._rows[moved] = row
            if self._ann is not None:
                self._ann.remove([last])
                self._ann.add(np.asarray([row], dtype=np.intp), self._matrix[row : row + 1])
        self._ids.pop()
        if self._ann is not None and len(self._ids) < self.ann_threshold // 2:
            # Shrunk well below the threshold (half, so a store at the edge does not rebuild
            # on every add and delete): exact again, and the approximate index's memory back.
            self._ann = None

    def search(
        self,
        vector: NDArray[np.float32],
        k: int,
        min_score: float | None = None,
        among: Collection[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The k best (id, cosine) pairs with score >= min_score, best first, ties by id;
        with `among`, only those ids compete (a filtered search). Exact below the threshold
        (and for filters admitting fewer rows than it); above, the approximate index's
        candidates."""
        count = len(self._ids)
        if count == 0 or k <= 0:
            return []
        query = normalize(vector)
        if query.shape[0] != self.dim:
            raise ValueError(f"query of {query.shape[0]} dims, index has {self.dim}")
        if not np.all(np.isfinite(query)):
            raise ValueError("query vector contains NaN or infinity")
        rows = None if among is None else self._rows_of(among)
        if rows is not None and rows.size == 0:
            return []
        size = count if rows is None else int(rows.size)
        if size >= self.ann_threshold:
            hits = self._approximate(query, k, rows)
            if hits is not None:
                return _above(hits, min_score)
        # Exact: every row (or every admitted row) scored.
        if rows is None:
            return _above(_best(self._ids, self._matrix[:count] @ query, k), min_score)
        ident = [self._ids[row] for row in rows.tolist()]
        return _above(_best(ident, self._matrix[rows] @ query, k), min_score)

    def _approximate(
        self, query: NDArray[np.float32], k: int, rows: NDArray[np.intp] | None
    ) -> list[tuple[str, float]] | None:
        """The approximate index's candidates scored exactly, or None when a filter leaves
        too few of them (the caller then scans the admitted rows)."""
        ann = self._ann
        count = len(self._ids)
        if ann is None or count > 4 * ann.built_size:
            # Built on first need; rebuilt when the rows have grown past what its groups
            # were trained on (at 4x, each group holds 4x the rows a query should scan).
            ann = self._ann = AnnIndex(self.dim, self._matrix[:count])
        wanted = max(k * ANN_OVERSAMPLE, ANN_MIN_CANDIDATES)
        if rows is not None:
            # Over-fetch in proportion to what the filter drops, up to a scan's worth.
            wanted = int(wanted * len(self._ids) / rows.size)
            if wanted > len(self._ids) // 4:
                return None
        found = ann.search(query, min(wanted, len(self._ids)))
        if rows is not None:
            found = found[np.isin(found, rows, assume_unique=True)]
            if found.size < k:
                return None
        ident = [self._ids[row] for row in found.tolist()]
        return _best(ident, self._matrix[found] @ query, k)

    def _rows_of(self, among: Collection[str]) -> NDArray[np.intp]:
        rows = sorted({self._rows[node_id] for node_id in among if node_id in self._rows})
        return np.asarray(rows, dtype=np.intp)

    def _grow(self, needed: int) -> None:
        capacity = self._matrix.shape[0]
        if needed <= capacity:
            return
        new_capacity = max(needed, capacity * 2, 256)
        grown = np.zeros((new_capacity, self.dim), dtype=np.float32)
        grown[:capacity] = self._matrix
        self._matrix = grown


def _best(ident: Sequence[str], scores: NDArray[np.float32], k: int) -> list[tuple[str, float]]:
    """The k best (ident[i], scores[i]) pairs, best first, ties by id."""
    size = len(ident)
    if k < size:
        # Everything above the k-th best score is in; rows tied with it compete by id,
        # so the cut is as deterministic as the order.
        kth = scores[np.argpartition(scores, size - k)[size - k]]
        picked = np.flatnonzero(scores > kth).tolist()
        tied = np.flatnonzero(scores == kth).tolist()
        picked += heapq.nsmallest(k - len(picked), tied, key=ident.__getitem__)
    else:
        picked = list(range(size))
    ordered = sorted(picked, key=lambda pos: (-float(scores[pos]), ident[pos]))
    return [(ident[pos], float(scores[pos])) for pos in ordered]


def _above(hits: list[tuple[str, float]], min_score: float | None) -> list[tuple[str, float]]:
    return hits if min_score is None else [hit for hit in hits if hit[1] >= min_score]
