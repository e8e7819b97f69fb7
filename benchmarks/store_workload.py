"""The store benchmark's workload through the GraphStore protocol, the same on every
backend: bulk load, top-k vector search, 2-hop neighbourhoods and concept-extraction commits.

Part of `store.py` (run that); kept apart so each module stays readable.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from store_data import COMMIT_CONCEPTS, CONCEPT_TYPES, Workload, concept_id, recall
from store_measure import log, recall_summary, summary_ms, timed
from zettelgraph.models import ChangeSet, Concept, Content, NodeLabel, Quote, Relation, stable_id
from zettelgraph.store import GraphStore

MODEL = "bench-random"  # the embedder the stores are told the vectors come from
COMMIT_QUOTES = 200  # quotes of the Content the commits attribute


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
