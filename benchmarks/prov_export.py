"""W3C PROV export of a large graph: time and size per format.

    python benchmarks/prov_export.py [--concepts 10000]

A synthetic reviewed graph is written to a temporary SQLite store through
`store.apply(ChangeSet(...))`, one change set per book as a run commits it: books of 100
concepts, two quotes per concept (each a SUPPORTS attribution), every concept RELATES_TO the
next one of its book and GENERALIZES one of the book before (both with their automatic
reverse), each book extracted by its own run whose concepts name four LLM calls, approved by
the reader. Then `zettelgraph export prov --all` is timed part by part: reading the scope from
the store, building the PROV document, and writing each format from it. Prints one JSON
object; `measure(concepts)` returns it, for other benchmarks.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from zettelgraph.models import (
    ChangeSet,
    Concept,
    Content,
    Person,
    Quote,
    Relation,
    content_id,
    person_id,
    quote_id,
    stable_id,
)
from zettelgraph.packs.relations import AUTHORED_BY, QUOTED_IN, SUPPORTS
from zettelgraph.provenance import FORMATS
from zettelgraph.provenance.document import build_document
from zettelgraph.provenance.formats import serialize, triples
from zettelgraph.provenance.scope import everything
from zettelgraph.store import GraphStore, open_store

PER_BOOK = 100
CALLS = ["extract_concepts", "detect_duplicate", "create_relations", "self_critique"]
T0 = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)


def _book(number: int, size: int, previous: list[str]) -> tuple[ChangeSet, list[str]]:
    """One book's contents, quotes, concepts and relations, as its run commits them."""
    author = Person(id=person_id(f"Author {number}"), name=f"Author {number}")
    book = Content(
        id=content_id(f"Book {number}", author.name),
        title=f"Book {number}",
        created_at=T0 + timedelta(days=number),
        metadata={"year": 1900 + number % 120},
    )
    run = f"run-{number:012x}"
    approved = T0 + timedelta(days=number, hours=2)
    quotes: list[Quote] = []
    concepts: list[Concept] = []
    relations = [Relation(source_id=book.id, target_id=author.id, type=AUTHORED_BY)]
    for i in range(size):
        pair = []
        for j in range(2):
            text = f"Passage {j} of idea {i} in book {number}: " + "words of the book " * 8
            quote = Quote(
                id=quote_id(book.id, text),
                content_id=book.id,
                text=text,
                position=2 * i + j,
                page=str(2 * i + j + 1),
            )
            quotes.append(quote)
            pair.append(quote.id)
        concept = Concept(
            id=stable_id("concept", run, f"c{i}"),
            created_at=approved,
            title=f"Idea {i} of book {number}",
            concept=f"The idea {i} that book {number} puts forward, in one paragraph.",
            summary_short=f"Idea {i} of book {number}.",
            provenance={
                "run": run,
                "content_id": book.id,
                "quotes": pair,
                "llm_calls": CALLS,
                "model": "openai:gpt-4.1-mini",
                "rationale": "The quotes say it.",
                "approved_at": approved.isoformat(),
                "feedback_rounds": 0,
                "critique_iterations": 1,
            },
        )
        concepts.append(concept)
        common = {"run": run, "llm_calls": ["create_relations"], "model": "openai:gpt-4.1-mini"}
        decided = {"approved_at": approved.isoformat(), **common}
        relations += [Relation(source_id=q, target_id=book.id, type=QUOTED_IN) for q in pair]
        relations += [
            Relation(source_id=q, target_id=concept.id, type=SUPPORTS, properties=decided)
            for q in pair
        ]
        if i:
            relations.append(
                Relation(
                    source_id=concept.id,
                    target_id=concepts[i - 1].id,
                    type="RELATES_TO",
                    properties={"explanation": "Both ideas are in one chapter.", **decided},
                )
            )
        if previous:
            relations.append(
                Relation(
                    source_id=concept.id,
                    target_id=previous[i % len(previous)],
                    type="GENERALIZES",
                    properties={"explanation": "It names the broader case.", **decided},
                )
            )
    changes = ChangeSet(
        contents=[book], persons=[author], quotes=quotes, concepts=concepts, relations=relations
    )
    return changes, [c.id for c in concepts]


def write_graph(store: GraphStore, concepts: int) -> None:
    previous: list[str] = []
    for number, start in enumerate(range(0, concepts, PER_BOOK)):
        changes, previous = _book(number, min(PER_BOOK, concepts - start), previous)
        store.apply(changes)


def _peak_mb() -> float:
    # ru_maxrss is kilobytes on Linux, bytes on macOS.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


def measure(concepts: int) -> dict[str, Any]:
    """Export a synthetic graph of `concepts` concepts; seconds and bytes per part."""
    with tempfile.TemporaryDirectory(prefix="prov-bench-") as folder:
        store = open_store(f"sqlite:///{Path(folder) / 'graph.db'}")
        try:
            started = time.perf_counter()
            write_graph(store, concepts)
            setup = time.perf_counter() - started
            counts = store.counts()
            started = time.perf_counter()
            selection = everything(store)
            read = time.perf_counter() - started
        finally:
            store.close()
    started = time.perf_counter()
    document = build_document(selection, reader="reader")
    build = time.perf_counter() - started
    del selection  # as the export service does: the document holds what it needs
    formats: dict[str, dict[str, float | int]] = {}
    for name in FORMATS:
        started = time.perf_counter()
        text = serialize(document, name)
        seconds = time.perf_counter() - started
        formats[name] = {
            "seconds": round(seconds, 3),
            # What `export prov --all` takes from the store to the text.
            "export_seconds": round(read + build + seconds, 3),
            "bytes": len(text.encode("utf-8")),
        }
        del text
    # A count, not an rdflib graph: holding 700,000 triples in one would double peak memory.
    count = sum(1 for _ in triples(document))
    return {
        "benchmark": "prov_export",
        "concepts": concepts,
        "graph": {k: v for k, v in counts.items() if v},
        "setup_seconds": round(setup, 3),
        "read_seconds": round(read, 3),
        "build_seconds": round(build, 3),
        "records": len(document.get_records()),
        "triples": count,
        "formats": formats,
        "peak_rss_mb": _peak_mb(),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concepts", type=int, default=10_000, help="Concepts in the graph.")
    args = parser.parse_args(argv)
    if args.concepts < 1:
        parser.error("--concepts must be at least 1")
    print(json.dumps(measure(args.concepts), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
