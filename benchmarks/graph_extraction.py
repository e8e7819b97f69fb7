"""Graph extraction: referential integrity under injected faults, and a smoke run offline.

    python benchmarks/graph_extraction.py [--passages 10,100,1000] [--latency 0.3]
        [--concurrency 16] [--batch-size 10] [--existing 20] [--fault-rate 0.1] [--tools]
    python benchmarks/graph_extraction.py --llm local --pack narrative --paths examples/

Fake model (the default; the passages and the faulty model are `graph_faults.py`'s), for
each passage count N in a fresh temporary ZETTELGRAPH_HOME:

1. Stores `--existing` people of the name pool as entities, so the prompts show known
   entities with short ids and the model refers to them by id.
2. Adds one Content with N synthetic passages ("A conoce a B en P durante E.").
3. Scripts the fake's `extract_graph` answer from each prompt: the passages' people, place and
   event, and per passage the relationships A KNOWS B, A PARTICIPATED_IN E, E LOCATED_IN P (by
   id for a known person). Each relationship call is then spoilt with probability
   `--fault-rate` each (drawn from a generator seeded by the passage): an invented name, a
   wrong endpoint type (KNOWS to a Place), an unknown relationship type, a reference to an id
   the prompt never gave.
4. Runs the workflow up to the review (the fake sleeping `--latency` per call), checks that
   every injected fault is reported as a drop with its reason, approves, and counts the
   relationships in the store whose endpoints are not two entities of types the pack allows
   (`broken_edges_persisted`, must be 0).
5. Wall time against the critical-path bound: one fan-out step of C extraction calls cannot
   take less than ceil(C / concurrency) * latency (as in `benchmarks/extraction.py`).

`--llm local`: ingests `--paths` (with the fake model, so only the extraction is timed), then
runs graph extraction with the offline model on every content, approves it, and reports what the
model proposed, what was kept and why the rest was dropped.

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from extraction import add_content  # benchmarks/ is the script's folder, so on sys.path
from graph_faults import FAULTS, FaultyExtractor, add_people, broken_edges, passages
from zettelgraph.context import open_services
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.packs.loader import active_schema
from zettelgraph.packs.relations import QUOTED_IN
from zettelgraph.services.checkpoints import open_checkpointer
from zettelgraph.services.graph_runs import GraphRuns
from zettelgraph.services.ingest import ingest_paths
from zettelgraph.settings import Settings


def parse_counts(text: str) -> list[int]:
    counts = [int(part) for part in text.split(",") if part.strip()]
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError("give passage counts >= 1 as a comma list, e.g. 10,100")
    return counts


def proposed(runs: GraphRuns, run_id: str) -> dict[str, int]:
    """What the model proposed in the run's last round: tool calls by kind."""
    values = runs.graph.get_state({"configurable": {"thread_id": run_id}}).values
    current = values.get("extraction_round", 0)
    results = [r for r in values.get("batch_results", []) if r.get("round", 0) == current]
    return {
        "entity_calls": sum(len(r["entities"]) for r in results),
        "relationship_calls": sum(len(r["relationships"]) for r in results),
        "rejected_calls": sum(len(r.get("rejected", [])) for r in results),
    }


def measure_faults(count: int, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="zg-graph-") as tmp:
        home = Path(tmp) / "home"
        spec = "fake:tools=1" if args.tools else "fake"
        settings = Settings(
            home=home,
            llm=spec,
            embeddings=args.embeddings,
            max_concurrency=args.concurrency,
            extraction_batch_size=args.batch_size,
            llm_backoff=0.0,
        )
        extractor = FaultyExtractor(args.fault_rate)
        llm = FakeChatModel(
            latency=args.latency, replies={"extract_graph": [extractor]}, tool_calling=args.tools
        )
        services = open_services(settings, llms=ChatModels(settings, preset={spec: llm}))
        schema = active_schema(settings, [args.pack])
        try:
            add_people(services, args.existing)
            cid = add_content(services, f"Benchmark {count}", passages(count))
            with open_checkpointer(settings) as checkpointer:
                runs = GraphRuns(services, checkpointer)
                started = time.perf_counter()
                view = runs.start(cid, packs=[args.pack])
                to_review = time.perf_counter() - started
                if view.status != "awaiting_review":
                    raise SystemExit(f"N={count}: run stopped as {view.status}: {view.warnings}")
                report = view.report or {}
                asked = proposed(runs, view.run_id)
                usage = services.usage.as_dict().get("extract_graph", {})
                started = time.perf_counter()
                done = runs.answer(view.run_id, "approve")
                commit_seconds = time.perf_counter() - started
                broken = broken_edges(services.store, schema)
                stored_relations = len(
                    [r for r in services.store.relations(None) if r.type != QUOTED_IN]
                )
        finally:
            services.close()
    calls = int(usage.get("calls", 0))
    rounds = math.ceil(calls / args.concurrency)
    bound = rounds * args.latency
    again = int(usage.get("repairs", 0)) + int(usage.get("retries", 0))
    dropped = Counter(report.get("dropped_by_reason", {}))
    return {
        "passages": count,
        "existing_entities": args.existing,
        "wall_to_review_s": round(to_review, 3),
        "commit_s": round(commit_seconds, 3),
        "bound_s": round(bound, 3),
        "ratio": round(to_review / bound, 3) if bound else None,
        "bound_with_repairs_s": round(bound + min(again, rounds) * args.latency, 3),
        "llm_calls": calls,
        "llm_calls_per_passage": round(calls / count, 3),
        "input_tokens_per_passage": round(int(usage.get("input_tokens", 0)) / count, 1),
        "output_tokens_per_passage": round(int(usage.get("output_tokens", 0)) / count, 1),
        "proposed": asked,
        "injected": dict(extractor.injected),
        "injected_share": round(sum(extractor.injected.values()) / asked["relationship_calls"], 3)
        if asked["relationship_calls"]
        else None,
        "dropped_by_reason": dict(dropped),
        "every_fault_reported": all(
            dropped.get(reason, 0) == extractor.injected.get(kind, 0)
            for kind, reason in FAULTS.items()
        ),
        "entities_kept": report.get("counts", {}).get("entities_new", 0)
        + report.get("counts", {}).get("entities_existing", 0),
        "relationships_kept": report.get("counts", {}).get("relationships", 0),
        "relationships_already_stored": report.get("counts", {}).get("already_stored", 0),
        "committed": {
            "entities_new": len(done.committed.get("entities_new", [])),
            "entities_updated": len(done.committed.get("entities_updated", [])),
            "relationships": done.committed.get("relationships", 0),
        },
        "stored_relations_with_reverses": stored_relations,
        "broken_edges_persisted": len(broken),
        "broken_sample": broken[:3],
    }


def smoke(args: argparse.Namespace) -> dict[str, Any]:
    """The offline model on real notes: what it proposed, what was kept, and why not."""
    with tempfile.TemporaryDirectory(prefix="zg-graph-local-") as tmp:
        home = Path(tmp) / "home"
        base: dict[str, Any] = {"home": home, "embeddings": args.embeddings}
        if args.batch_size:
            base["extraction_batch_size"] = args.batch_size
        reader = open_services(Settings(llm="fake", **base))
        try:
            ingested = ingest_paths(reader, [Path(p) for p in args.paths])
        finally:
            reader.close()
        settings = Settings(llm=args.llm, **base)
        schema = active_schema(settings, [args.pack])
        services = open_services(settings)
        results = []
        started_all = time.perf_counter()
        try:
            with open_checkpointer(settings) as checkpointer:
                runs = GraphRuns(services, checkpointer)
                for content in ingested.reports:
                    started = time.perf_counter()
                    view = runs.start(content["id"], packs=[args.pack])
                    seconds = time.perf_counter() - started
                    report = view.report or {}
                    asked = proposed(runs, view.run_id) if view.report else {}
                    done = (
                        runs.answer(view.run_id, "approve")
                        if view.status == "awaiting_review"
                        else view
                    )
                    counts = report.get("counts", {})
                    kept = counts.get("relationships", 0) + counts.get("already_stored", 0)
                    results.append(
                        {
                            "title": content["title"],
                            "passages": report.get("passages", 0),
                            "status": done.status,
                            "seconds_to_review": round(seconds, 1),
                            **asked,
                            "entities_kept": counts.get("entities_new", 0)
                            + counts.get("entities_existing", 0),
                            "relationships_kept": kept,
                            "share_of_relationships_kept": round(
                                kept / asked["relationship_calls"], 3
                            )
                            if asked.get("relationship_calls")
                            else None,
                            "dropped_by_reason": report.get("dropped_by_reason", {}),
                            "entities": [
                                f"{e['name']} ({e['type']})" for e in report.get("entities", [])
                            ],
                            "relationships": [
                                f"{r['source']} {r['type']} {r['target']}"
                                for r in report.get("relationships", [])
                            ],
                            "dropped_sample": [
                                d["message"][:200] for d in report.get("dropped", [])[:5]
                            ],
                            "committed_relationships": done.committed.get("relationships", 0),
                            "failed_calls": [w[:300] for w in view.warnings if " failed" in w],
                        }
                    )
            broken = broken_edges(services.store, schema)
            usage = services.usage.as_dict()
        finally:
            services.close()
    relationship_calls = sum(r.get("relationship_calls", 0) for r in results)
    kept = sum(r["relationships_kept"] for r in results)
    return {
        "contents": results,
        "wall_s": round(time.perf_counter() - started_all, 1),
        "entity_calls": sum(r.get("entity_calls", 0) for r in results),
        "entities_kept": sum(r["entities_kept"] for r in results),
        "relationship_calls": relationship_calls,
        "relationships_kept": kept,
        "share_of_relationships_kept": round(kept / relationship_calls, 3)
        if relationship_calls
        else None,
        "broken_edges_persisted": len(broken),
        "usage": usage,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default="fake", help="fake (fault injection) or local (smoke)")
    parser.add_argument("--pack", default="narrative")
    parser.add_argument("--paths", nargs="*", default=["examples/"])
    parser.add_argument("--passages", type=parse_counts, default=[10, 100, 1000])
    parser.add_argument("--latency", type=float, default=0.3, help="fake LLM seconds per call")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=None)
    parser.add_argument("--existing", type=int, default=20, help="people stored beforehand")
    parser.add_argument("--fault-rate", type=float, default=0.1, help="per fault kind")
    parser.add_argument("--tools", action="store_true", help="the fake answers bound tools")
    parser.add_argument("--embeddings", default=None)
    args = parser.parse_args(argv)
    report: dict[str, Any] = {
        "benchmark": "graph_extraction",
        "date": time.strftime("%Y-%m-%d"),
        "llm": args.llm,
        "pack": args.pack,
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
    }
    if args.llm.startswith("local"):
        args.embeddings = args.embeddings or "use-multilingual"
        report.update(paths=args.paths, batch_size=args.batch_size, smoke=smoke(args))
    else:
        args.embeddings = args.embeddings or "hash"
        args.batch_size = args.batch_size or 10
        report.update(
            latency=args.latency,
            concurrency=args.concurrency,
            batch_size=args.batch_size,
            fault_rate_per_kind=args.fault_rate,
            mode="tools" if args.tools else "json",
            results=[measure_faults(count, args) for count in args.passages],
        )
    json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
