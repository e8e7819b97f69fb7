"""`retrieval.py --passages N`: the real set padded to N passages (a million on one laptop).

The real passages and questions go in as `retrieval.py` stores them (`build_store`, embedded
by the real embedder); the padding passages are made cheaply so a million need not be
embedded (seeded; `padding`): sentences of the real passages, and a mixture of their vectors
plus Gaussian noise of norm NOISE, so the padding sits among the real vectors without
copying them. Padding passages come in Contents of 20, in ChangeSets of BATCH, without
QUOTED_IN relations (search never reads them).

Measured, per recipe, the latency of `Retriever.candidates` (embedding the question
included) over the questions, twice (the first pass on a freshly built store reads the
full-text index from disk), and its recall (R@1, R@5 of the real passage among the
padding); for vector search, recall@50 of `store.vector_search` (the approximate index past
its threshold) against an exact numpy scan of every vector, and the exact scan's own latency
through the store (`exact_search_limit` raised past N); the time of the first search on a
fresh handle (loading the vectors and building the approximate index); the file size and
this process's peak RSS.
"""

from __future__ import annotations

import os
import random
import re
import time
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from retrieval import build_store, evaluate
from store_measure import log, peak_rss_mb, summary_ms
from zettelgraph.llm.embeddings import embed_queries
from zettelgraph.models import ChangeSet, Content, NodeLabel, Quote, content_id, quote_id
from zettelgraph.retrieval.recipes import recipes_for
from zettelgraph.retrieval.search import Retriever
from zettelgraph.store.sqlite import SQLiteStore

BATCH = 10_000
NOISE = 0.5
MIXED = 0.5
K = 50


def unit(rows: NDArray[np.float32]) -> NDArray[np.float32]:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def padding(
    passages: list[dict[str, Any]], vectors: NDArray[np.float32], start: int, stop: int
) -> tuple[list[str], NDArray[np.float32]]:
    """Texts and vectors of padding passages start..stop-1 (the same for the same range):
    two sentences of one real passage and one of another, and the first one's vector plus
    half the second's plus noise, so the padding gathers around the real passages by topic
    as a library's passages gather around its books'."""
    sentences = [
        [sentence for sentence in re.split(r"(?<=[.!?])\s+", row["text"]) if len(sentence) > 20]
        or [row["text"]]
        for row in passages
    ]
    rng = random.Random(start)
    noise = np.random.default_rng(start)
    texts: list[str] = []
    rows = np.empty((stop - start, vectors.shape[1]), dtype=np.float32)
    for j in range(stop - start):
        main, other = rng.sample(range(len(passages)), 2)
        picked = [*rng.choices(sentences[main], k=2), rng.choice(sentences[other])]
        texts.append(" ".join(picked))
        rows[j] = vectors[main] + MIXED * vectors[other]
    jitter = noise.standard_normal(rows.shape, dtype=np.float32) * NOISE / np.sqrt(rows.shape[1])
    return texts, unit(unit(rows) + jitter)


def run(
    passages: list[dict[str, Any]],
    questions: list[dict[str, Any]],
    size: int,
    embeddings: str,
    folder: Path,
) -> dict[str, Any]:
    path = folder / "scale.db"
    started = time.perf_counter()
    # The real set exactly as retrieval.py stores it.
    store, embedder, gold_of = build_store(passages, f"sqlite:///{path}", embeddings)
    held = dict(store.vectors(NodeLabel.QUOTE))
    quote_of = {passage: quote for quote, passage in gold_of.items()}
    row_ids = [quote_of[row["passage_id"]] for row in passages]
    real = unit(np.stack([held[quote] for quote in row_ids]))
    everything = [real]
    for start in range(0, size - len(passages), BATCH):
        stop = min(start + BATCH, size - len(passages))
        texts, rows = padding(passages, real, start, stop)
        batch_contents = {
            i // 20: Content(id=content_id(f"Relleno {i // 20}", None), title=f"Relleno {i // 20}")
            for i in range(start, stop)
        }
        batch = [
            Quote(
                id=quote_id(batch_contents[(start + j) // 20].id, f"{start + j} {text}"),
                content_id=batch_contents[(start + j) // 20].id,
                text=text,
                position=(start + j) % 20,
            )
            for j, text in enumerate(texts)
        ]
        store.apply(
            ChangeSet(
                contents=list(batch_contents.values()),
                quotes=batch,
                vectors={q.id: rows[j] for j, q in enumerate(batch)},
            )
        )
        everything.append(rows)
        row_ids += [q.id for q in batch]
        log(f"scale: {stop + len(passages):,} passages stored")
    load_seconds = time.perf_counter() - started
    store.close()
    matrix = np.concatenate(everything)
    del everything

    store = SQLiteStore(path)  # a fresh process's view: nothing loaded yet
    try:
        texts = [row["question"] for row in questions]
        query_rows = unit(embed_queries(embedder, texts))
        first_started = time.perf_counter()
        store.vector_search(NodeLabel.QUOTE, query_rows[0], K)
        first_seconds = time.perf_counter() - first_started
        log("scale: first search done (vectors loaded, approximate index built)")
        index = store._vector_indexes()[NodeLabel.QUOTE]
        recall: list[float] = []
        approximate: list[float] = []
        for query in query_rows:
            began = time.perf_counter()
            hits = store.vector_search(NodeLabel.QUOTE, query, K)
            approximate.append(time.perf_counter() - began)
            truth = {row_ids[i] for i in np.argpartition(-(matrix @ query), K)[:K].tolist()}
            recall.append(len({h.id for h in hits} & truth) / K)
        del matrix
        exact: list[float] = []
        store.exact_search_limit = size + 1
        index.ann_threshold = size + 1
        for query in query_rows[:50]:
            began = time.perf_counter()
            store.vector_search(NodeLabel.QUOTE, query, K)
            exact.append(time.perf_counter() - began)
        index.ann_threshold = store.exact_search_limit = SQLiteStore.exact_search_limit
        retriever = Retriever(store, embedder)
        gold = {row["question_id"]: {row["passage_id"]} for row in questions}
        # The shipped recipes with this embedder's numbers; recall at this scale too, so what
        # the full-text bound costs in ranking is seen beside what it saves.
        known = recipes_for(embeddings)
        recipes = {
            name: {
                key: value
                for key, value in evaluate(
                    retriever, questions, gold_of, name, gold, recipes=known
                ).items()
                if key != "recipe"
            }
            for name in ("hybrid", "vector", "fulltext")
        }
        # Again, once every recipe has run: the first pass reads the full-text index's pages
        # from disk on a freshly built store (a laptop's first searches), the second is the
        # steady state; both are reported.
        again = {
            name: evaluate(retriever, questions, gold_of, name, gold, recipes=known)["latency_ms"]
            for name in ("hybrid", "vector", "fulltext")
        }
        log("scale: recipes timed")
    finally:
        store.close()
    return {
        "passages": size,
        "questions": len(questions),
        "load_seconds": round(load_seconds, 1),
        "first_search_seconds": round(first_seconds, 1),
        "vector_search_k50": {
            "approximate": {**summary_ms(approximate), "recall_at_50": round(np.mean(recall), 4)},
            "exact": summary_ms(exact),
        },
        "recipes": recipes,
        "recipes_latency_ms_second_pass": again,
        "file_mb": round(sum(p.stat().st_size for p in folder.glob("scale.db*")) / 1e6, 1),
        "peak_rss_mb": peak_rss_mb(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
