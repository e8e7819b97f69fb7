"""Exact cosine search over an in-memory float32 matrix.

Vectors are L2-normalised on the way in, so a matrix-vector product gives cosine similarity.
Rows live in a buffer that doubles when full, so bulk loads do not copy the matrix per write.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Iterable, Sequence

import numpy as np
from numpy.typing import NDArray


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


class VectorIndex:
    """Id-addressed rows of unit vectors with exact top-k search."""

    def __init__(self, dim: int, capacity: int = 0) -> None:
        self.dim = dim
        self._matrix = np.zeros((capacity, dim), dtype=np.float32)
        self._ids: list[str] = []
        self._rows: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._rows

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
        for i, node_id in enumerate(latest):
            row = self._rows.get(node_id)
            if row is None:
                row = len(self._ids)
                self._ids.append(node_id)
                self._rows[node_id] = row
            target[i] = row
        self._grow(len(self._ids))
        self._matrix[target] = normalize_rows(matrix[source])

    def remove(self, node_id: str) -> None:
        row = self._rows.pop(node_id, None)
        if row is None:
            return
        last = len(self._ids) - 1
        if row != last:
            moved = self._ids[last]
            self._matrix[row] = self._matrix[last]
            self._ids[row] = moved
            self._rows[moved] = row
        self._ids.pop()

    def search(
        self,
        vector: NDArray[np.float32],
        k: int,
        min_score: float | None = None,
        among: Collection[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The k best (id, cosine) pairs with score >= min_score, best first, ties by id;
        with `among`, only those ids compete (exact over that subset: a filtered search)."""
        count = len(self._ids)
        if count == 0 or k <= 0:
            return []
        query = normalize(vector)
        if query.shape[0] != self.dim:
            raise ValueError(f"query of {query.shape[0]} dims, index has {self.dim}")
        if not np.all(np.isfinite(query)):
            raise ValueError("query vector contains NaN or infinity")
        # Scores by position; ident[position] is that row's id.
        ident: list[str] = self._ids
        if among is None:
            scores = self._matrix[:count] @ query
        else:
            rows = sorted({self._rows[node_id] for node_id in among if node_id in self._rows})
            ident = [self._ids[row] for row in rows]
            scores = self._matrix[np.asarray(rows, dtype=np.intp)] @ query
        size = len(ident)
        if size == 0:
            return []
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
        hits = [(ident[pos], float(scores[pos])) for pos in ordered]
        if min_score is not None:
            hits = [hit for hit in hits if hit[1] >= min_score]
        return hits

    def _grow(self, needed: int) -> None:
        capacity = self._matrix.shape[0]
        if needed <= capacity:
            return
        new_capacity = max(needed, capacity * 2, 256)
        grown = np.zeros((new_capacity, self.dim), dtype=np.float32)
        grown[:capacity] = self._matrix
        self._matrix = grown
