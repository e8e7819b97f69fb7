"""Learning items (issue 13): cost and quality of card generation on a committed graph.

    python benchmarks/learning.py [--paths examples/] [--graph extract|quotes]
                                  [--llm fake|local|SPEC] [--limit N] [--latency 0]
                                  [--embeddings use-multilingual]
    python benchmarks/learning.py --calibrate [--embeddings use-multilingual]

Generation: in a fresh home, the notes are ingested and every book is extracted (one quote
per call) and approved with the `fake` LLM (so the graph is the same whatever `--llm` is;
its concepts are sentences of the prompts, not ideas, which is enough to measure cost and
the graph cards but not the quality of the LLM cards; `--graph quotes` instead commits one
concept per quote, related to its nearest neighbour in its book), then cards are generated
with `--llm` for the first `--limit` concepts (all by default), then generated again (which
must make nothing new). Printed as one JSON object:

- `items_per_concept`: cards proposed per target concept;
- `calls_per_item`: card_question calls per card proposed;
- `dropped_share`: per check, the cards it set aside over every card made (proposed +
  dropped), duplicates included as `duplicate`;
- `duplicate_share_before` / `_after`: share of new cards with a near twin (same kind, cosine
  >= ZETTELGRAPH_CARD_DUPLICATE_THRESHOLD, new or stored) before the duplicate check, and of
  the kept ones after it;
- `seconds_per_100_concepts`: generation wall time per 100 target concepts;
- `diversity_index`: distinct concepts the kept cards are about (each card's first
  concept) over kept cards: 1.0 when every card is about another concept, 0.2 when each
  concept has five; `concept_coverage`: target concepts with at least one kept card.

Calibration (`--calibrate`, `learning_calibration.py`): what each threshold of the answer
check and the duplicate check keeps and drops on a small hand-written set.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from learning_calibration import calibrate  # benchmarks/ is the script's folder, so on sys.path
from quality import emit
from zettelgraph.context import open_services
from zettelgraph.models import ChangeSet, Concept, ItemType, Relation, embedding_text, stable_id
from zettelgraph.packs.relations import SUPPORTS
from zettelgraph.services.card_generation import GenerationReport, generate_cards
from zettelgraph.services.checkpoints import open_checkpointer
from zettelgraph.services.extraction_runs import ExtractionRuns
from zettelgraph.services.ingest import ingest_paths
from zettelgraph.settings import Settings, default_embeddings
from zettelgraph.store.vector_index import normalize_rows

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def build_graph(home: Path, paths: list[Path], embeddings: str) -> dict[str, Any]:
    """Ingest `paths`, extract and approve every book with the fake LLM; what was committed."""
    # One quote per extraction call: the fake model gives one or two concepts per call, so a
    # batch of forty quotes would leave a graph too small to measure.
    settings = Settings(
        home=home,
        llm="fake",
        embeddings=embeddings,
        llm_backoff=0.0,
        extraction_batch_size=1,
    )
    services = open_services(settings)
    started = time.perf_counter()
    try:
        ingested = ingest_paths(services, paths)
        if ingested.errors:
            raise SystemExit(f"ingest failed: {ingested.errors}")
        with open_checkpointer(settings) as checkpointer:
            runs = ExtractionRuns(services, checkpointer)
            for report in ingested.reports:
                view = runs.start(report["id"])
                if view.status == "awaiting_review":
                    runs.answer(view.run_id, "approve")
        counts = services.store.counts()
    finally:
        services.close()
    return {
        "books": len(ingested.reports),
        "quotes": counts.get("Quote", 0),
        "concepts": counts.get("Concept", 0),
        "seconds": round(time.perf_counter() - started, 2),
    }


def build_quote_graph(home: Path, paths: list[Path], embeddings: str) -> dict[str, Any]:
    """Ingest `paths`, then commit one concept per quote (its first words as title, the quote
    as its statement), each related to its nearest neighbour in the same book: a graph as big
    as the notes, with relations, when the fake extraction would leave a handful of concepts."""
    settings = Settings(home=home, llm="fake", embeddings=embeddings, llm_backoff=0.0)
    services = open_services(settings)
    started = time.perf_counter()
    try:
        ingested = ingest_paths(services, paths)
        store, embedder = services.store, services.embedder
        relations: list[Relation] = []
        concepts: list[Concept] = []
        for report in ingested.reports:
            quotes = store.quotes_of(report["id"])
            made = [
                Concept(
                    id=stable_id("concept", "benchmark", q.id),
                    title=" ".join(q.text.split()[:6]).strip(" ,.;:"),
                    concept=q.text,
                    summary_short=" ".join(q.text.split()[:30]),
                    provenance={"run": "benchmark", "content_id": q.content_id},
                )
                for q in quotes
            ]
            relations += [
                Relation(source_id=q.id, target_id=c.id, type=SUPPORTS)
                for q, c in zip(quotes, made, strict=True)
            ]
            if len(made) > 1:
                unit = normalize_rows(embedder.embed([q.text for q in quotes]))
                scores = unit @ unit.T
                np.fill_diagonal(scores, -2.0)
                paired: set[frozenset[int]] = set()
                for i, concept in enumerate(made):
                    j = int(np.argmax(scores[i]))
                    if frozenset((i, j)) in paired:
                        continue
                    paired.add(frozenset((i, j)))
                    relations.append(
                        Relation(
                            source_id=concept.id,
                            target_id=made[j].id,
                            type="SIMILAR_TO" if scores[i, j] > 0.4 else "RELATES_TO",
                            properties={
                                # Each pair its own words, as a reviewed explanation has.
                                "explanation": " ".join(quotes[i].text.split()[-6:])
                                + " / "
                                + " ".join(quotes[j].text.split()[-6:]),
                                "confidence": round(float(scores[i, j]), 3),
                            },
                        )
                    )
            concepts += made
        vectors = embedder.embed([embedding_text(c) for c in concepts])
        store.apply(
            ChangeSet(
                concepts=concepts,
                relations=relations,
                vectors={c.id: vectors[i] for i, c in enumerate(concepts)},
            )
        )
        counts = store.counts()
    finally:
        services.close()
    return {
        "books": len(ingested.reports),
        "quotes": counts.get("Quote", 0),
        "concepts": counts.get("Concept", 0),
        "seconds": round(time.perf_counter() - started, 2),
    }


def measures(report: GenerationReport) -> dict[str, Any]:
    kept = report.proposed
    made = len(kept) + len(report.dropped)
    by_guard = Counter(str(d["guard"]) for d in report.dropped)
    about = {item.concept_ids[0] for item in kept}
    targets = report.targets or 1
    return {
        "targets": report.targets,
        "proposed": len(kept),
        "per_type": report.per_type,
        "per_difficulty": dict(Counter(str(i.difficulty) for i in kept)),
        "items_per_concept": round(len(kept) / targets, 3),
        "calls": report.calls,
        "calls_per_item": round(report.calls / len(kept), 3) if kept else None,
        "dropped": dict(by_guard),
        "dropped_share": {g: round(n / made, 3) for g, n in sorted(by_guard.items())},
        "duplicate_share_before": report.summary.get("duplicate_share_before"),
        "duplicate_share_after": report.summary.get("duplicate_share_after"),
        "seconds": round(report.seconds, 3),
        "seconds_per_100_concepts": round(report.seconds / targets * 100, 2),
        "diversity_index": round(len(about) / len(kept), 3) if kept else None,
        "concept_coverage": round(report.summary.get("concepts_with_cards", 0) / targets, 3),
        "usage": report.usage,
    }


def generate(home: Path, args: argparse.Namespace) -> dict[str, Any]:
    settings = Settings(
        home=home,
        llm=args.llm,
        embeddings=args.embeddings,
        llm_backoff=0.0,
        **({"llm_fast": args.llm} if args.llm else {}),
    )
    if args.llm.startswith("fake") and args.latency:
        settings = settings.model_copy(update={"llm": f"fake:latency={args.latency}"})
        settings = settings.model_copy(update={"llm_fast": settings.llm})
    services = open_services(settings)
    try:
        concepts = sorted(c.id for c in services.store.list_concepts())
        chosen = concepts[: args.limit] if args.limit else concepts
        first = generate_cards(services, concept_ids=chosen)
        again = generate_cards(services, concept_ids=chosen)
        samples = [
            {
                "type": str(i.item_type),
                "difficulty": str(i.difficulty),
                "front": i.front,
                "back": i.back,
                **({"options": i.options} if i.item_type == ItemType.MCQ else {}),
                "warnings": i.warnings,
            }
            for i in first.proposed[: args.samples]
        ]
        return {
            "first": measures(first),
            "again": {
                "proposed": len(again.proposed),
                "calls": again.calls,
                "skipped_concepts": again.skipped_concepts,
                "already_stored": again.summary.get("already_stored"),
                "seconds": round(again.seconds, 3),
            },
            "reasons": sorted({f"{d['guard']}: {d['reason'][:90]}" for d in first.dropped})[:12],
            "samples": samples,
        }
    finally:
        services.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", nargs="+", type=Path, default=[EXAMPLES])
    parser.add_argument(
        "--graph",
        choices=("extract", "quotes"),
        default="extract",
        help="the graph: fake extraction and approval, or one concept per quote",
    )
    parser.add_argument("--llm", default="fake", help="model for the cards: fake, local, ...")
    parser.add_argument("--limit", type=int, default=0, help="cards for the first N concepts")
    parser.add_argument("--latency", type=float, default=0.0, help="fake LLM seconds per call")
    parser.add_argument("--embeddings", default=default_embeddings())
    parser.add_argument("--samples", type=int, default=6, help="cards shown in the output")
    parser.add_argument("--calibrate", action="store_true", help="threshold calibration only")
    parser.add_argument("--out", type=Path, help="also write the JSON here")
    args = parser.parse_args(argv)
    context = {
        "date": dt.date.today().isoformat(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    if args.calibrate:
        emit({**calibrate(args.embeddings), **context}, args.out)
        return
    with tempfile.TemporaryDirectory(prefix="zg-learning-") as scratch:
        home = Path(scratch)
        build = build_graph if args.graph == "extract" else build_quote_graph
        graph = build(home, args.paths, args.embeddings)
        started = time.perf_counter()
        result = generate(home, args)
        output = {
            "paths": [str(p) for p in args.paths],
            "llm": args.llm,
            "limit": args.limit or None,
            "graph_from": args.graph,
            "embeddings": args.embeddings,
            "graph": graph,
            **result,
            "wall_seconds": round(time.perf_counter() - started, 2),
            **context,
        }
    emit(output, args.out)


if __name__ == "__main__":
    sys.exit(main())
