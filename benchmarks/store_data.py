"""The store benchmark's data: two vector distributions, the workload drawn from one (the
same for every backend), and the exact top k its searches are scored against.

Part of `store.py` (run that); kept apart so each module stays readable.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

import numpy as np

from zettelgraph.models import stable_id

CONCEPT_TYPES = ("RELATES_TO", "SUPPORTS", "SIMILAR_TO", "GENERALIZES")
# One commit of a concept extraction run, roughly the size the workflow writes.
COMMIT_CONCEPTS = 10


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
