"""Ingest throughput against the embedder's raw throughput, plus vector search at 100k concepts.

    python benchmarks/ingest.py [--quotes 10000] [--concepts 100000] [--embeddings use-multilingual]

1. Builds a book-note file of N distinct quotes (sentences of the shared public-domain novel, or
   generated sentences when the shared data is absent).
2. Times the embedder alone on those texts (a fresh instance, no cache).
3. Times the whole Quote Parse Graph on the file (read, parse, summary with the zero-latency fake
   LLM, author, embed through a fresh cache, one store transaction) on a fresh SQLite store.
4. Reports `ratio` = pipeline quotes/s / raw embedder texts/s (goal >= 0.8), and runs
   `vector_search.py` for the median top-50 latency over M stored concepts (goal < 15 ms).

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import vector_search
from zettelgraph.context import open_services
from zettelgraph.llm.embeddings import build_embedder
from zettelgraph.settings import Settings, default_embeddings
from zettelgraph.workflows.quote_parse.graph import build_quote_parse_graph

SOURCE = (
    Path(__file__).resolve().parents[2] / "shared/data/booknotes/napoleon_en_chamartin.source.txt"
)


def quote_texts(count: int) -> list[str]:
    """`count` distinct sentences of 20-400 characters."""
    texts: list[str] = []
    if SOURCE.is_file():
        words = " ".join(SOURCE.read_text(encoding="utf-8").split())
        for sentence in re.split(r"(?<=[.!?])\s+", words):
            # Dialogue starts with a dash, which notes leave off (and which reads as a bullet).
            sentence = sentence.lstrip("-—– ")
            if 20 <= len(sentence) <= 400 and sentence[0].isalpha():
                texts.append(sentence)
    texts = list(dict.fromkeys(texts))
    rng = np.random.default_rng(0)
    vocabulary = "la idea del libro muestra que el hombre vive con memoria tiempo y guerra"
    vocabulary_words = vocabulary.split()
    while len(texts) < count:
        words = rng.choice(vocabulary_words, size=int(rng.integers(8, 30)))
        texts.append(f"{' '.join(words).capitalize()} ({len(texts)}).")
    return texts[:count]


def write_notes(path: Path, texts: list[str]) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write("---\ntitle: Benchmark\nauthor: Bench Mark\n---\n\n# Citas\n")
        for i, text in enumerate(texts):
            if i % 500 == 0:
                out.write(f"\n## Parte {i // 500 + 1}\n")
            out.write(f"\n{text}\n{i // 3 + 1}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quotes", type=int, default=10_000)
    parser.add_argument("--concepts", type=int, default=100_000)
    parser.add_argument("--embeddings", default=default_embeddings())
    args = parser.parse_args(argv)

    texts = quote_texts(args.quotes)
    with tempfile.TemporaryDirectory() as tmp:
        notes = Path(tmp) / "notes.md"
        write_notes(notes, texts)

        raw = build_embedder(args.embeddings)
        started = time.perf_counter()
        raw.embed(texts)
        raw_seconds = time.perf_counter() - started

        settings = Settings(home=Path(tmp) / "home", llm="fake", embeddings=args.embeddings)
        services = open_services(settings)
        try:
            graph = build_quote_parse_graph(services)
            started = time.perf_counter()
            result = graph.invoke({"file_path": str(notes)})
            pipeline_seconds = time.perf_counter() - started
            stored = services.store.counts()
        finally:
            services.close()
        if result["quotes_total"] != len(texts) or stored["vectors"] != len(texts):
            raise SystemExit(f"expected {len(texts)} quotes, stored {stored}")

        search = vector_search.measure(
            Path(tmp) / "search.db",
            vector_search.parse_args(["--n", str(args.concepts)]),
        )

    raw_rate = len(texts) / raw_seconds
    pipeline_rate = len(texts) / pipeline_seconds
    report: dict[str, Any] = {
        "benchmark": "ingest",
        "date": time.strftime("%Y-%m-%d"),
        "embedder": args.embeddings,
        "quotes": len(texts),
        "raw_embed_seconds": round(raw_seconds, 3),
        "raw_embed_rate_per_s": round(raw_rate, 1),
        "pipeline_seconds": round(pipeline_seconds, 3),
        "pipeline_rate_per_s": round(pipeline_rate, 1),
        "ratio": round(pipeline_rate / raw_rate, 3),
        "ratio_goal": 0.8,
        "vector_search": {
            key: search[key] for key in ("n", "dim", "k", "median_ms", "p95_ms", "exact")
        },
        "vector_search_goal_ms": 15,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
    }
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
