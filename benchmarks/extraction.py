"""Concept Extraction Graph wall time against its critical-path bound, on a fake LLM with latency.

    python benchmarks/extraction.py [--quotes 10,100,1000] [--latency 0.3] [--concurrency 16]
                                    [--batch-size 40] [--existing 0] [--embeddings hash]

For each quote count N, in a fresh temporary ZETTELGRAPH_HOME:

1. Optionally stores `--existing` concepts (titles and summaries from random sentences, vectors
   from the configured embedder), so duplicate checks and relation queries have a graph to search.
2. Adds one Content with N distinct quotes (sentences of the shared public-domain novel, or
   generated sentences when the shared data is absent) straight through the store.
3. Times `ExtractionRuns.start` (up to the human review) and `answer(run, "approve")` (commit
   and vault) separately, with the fake LLM sleeping `--latency` seconds per call.
4. Computes the critical-path bound: the LLM steps run one after another (extract_concepts,
   the rewrites of flagged concepts, detect_duplicate, relation_queries, create_relations,
   every self_critique and every refine_extraction call as its own step of one call, then the
   doubt checks before the review); a step of C calls cannot take less than
   ceil(C / concurrency) * latency. A concept's rewrite tries follow one another (each answers
   the flaws of the one before), so that step takes at least its longest chain of tries; the
   doubt checks ask one question alone (whether the provider gives log-probabilities), then
   the rest together. `ratio` = wall time to review / bound (goal <= 1.3 at concurrency 16);
   `ratio_early_bound` leaves the rewrites and the doubt checks out, as the bound did before
   they existed (docs/benchmarks.md's older rows).
5. Times each step from the node updates the run streams (`on_step`), so the overhead over the
   bound can be attributed to a step.
6. Before the first size, builds what a process builds once (`--cold` skips it): the language
   detector with its models loaded, the embedder's model. `process_warmup_s` says what that
   took; without it the first size pays it inside its run.

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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ingest import quote_texts
from zettelgraph.context import Services, open_services
from zettelgraph.llm.embeddings import shared_embedder
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.models import (
    ChangeSet,
    Concept,
    Content,
    Quote,
    Relation,
    content_id,
    embedding_text,
    quote_id,
    stable_id,
)
from zettelgraph.packs.relations import QUOTED_IN
from zettelgraph.services.checkpoints import open_checkpointer
from zettelgraph.services.extraction_runs import ExtractionRuns
from zettelgraph.settings import Settings
from zettelgraph.text.language import detector_for

# Graph node -> the LLM call it makes (one per task, except duplicate checks the vectors settle).
LLM_NODES = {
    "extract_batch": "extract_concepts",
    "repair_concept": "repair_concept",
    "detect_duplicate": "detect_duplicate",
    "generate_relation_queries": "relation_queries",
    "create_relations": "create_relations",
    "self_critique": "self_critique",
    "refine": "refine_extraction",
    "incorporate_feedback": "incorporate_feedback",
}
# Nodes that fan out: all their tasks form one step. The others run one task per step.
FAN_OUT_CALLS = ("extract_concepts", "detect_duplicate", "relation_queries", "create_relations")
LOOP_CALLS = ("self_critique", "refine_extraction", "incorporate_feedback")
# The rewrites of flagged concepts: a branch per concept, its tries one after another.
CHAIN_CALL = "repair_concept"
# The doubt checks of prepare_review: the first alone, then the others at once.
CHECK_CALLS = ("check_statement", "check_idea", "check_relation")
# Real sentences of the shared novel (about 3,100); past them quote_texts generates sentences.
SENTENCE_POOL = 3000


def parse_counts(text: str) -> list[int]:
    counts = [int(part) for part in text.split(",") if part.strip()]
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError("give quote counts >= 1 as a comma list, e.g. 10,100")
    return counts


def critical_path_bound(
    usage: dict[str, dict[str, float]],
    concurrency: int,
    latency: float,
    records: list[dict[str, Any]] | None = None,
) -> tuple[float, dict[str, int]]:
    """Seconds the LLM calls alone need on the critical path, and the sequential rounds per call.

    Without `records` (the run's call records), the bound of the earlier benchmark: the
    rewrites and the doubt checks left out."""
    rounds: dict[str, int] = {}
    for name in FAN_OUT_CALLS:
        calls = int(usage.get(name, {}).get("calls", 0))
        rounds[name] = math.ceil(calls / concurrency)
    for name in LOOP_CALLS:
        rounds[name] = int(usage.get(name, {}).get("calls", 0))  # one call per step
    if records is not None:
        tries = Counter(r["subject"] for r in records if r["call"] == CHAIN_CALL)
        total = sum(tries.values())
        rounds[CHAIN_CALL] = max(max(tries.values(), default=0), math.ceil(total / concurrency))
        checks = sum(int(usage.get(name, {}).get("calls", 0)) for name in CHECK_CALLS)
        rounds["doubt_checks"] = 1 + math.ceil((checks - 1) / concurrency) if checks else 0
    return sum(rounds.values()) * latency, rounds


def request_bound(
    usage: dict[str, dict[str, float]],
    concurrency: int,
    latency: float,
    records: list[dict[str, Any]],
) -> float:
    """The bound counting repair rounds and retries as the sequential requests they are.

    A repair or retry re-asks after the first answer, in the same branch: a loop step takes one
    more latency per repair; a fan-out wave that holds a repairing branch takes one more latency
    (repairs are assumed to fall in different waves, so at most one extra latency per wave).
    """
    bound, rounds = critical_path_bound(usage, concurrency, latency, records)
    extra = 0
    for name, totals in usage.items():
        again = int(totals.get("repairs", 0)) + int(totals.get("retries", 0))
        chained = name in LOOP_CALLS or name == CHAIN_CALL
        extra += again if chained else min(again, rounds.get(name, 0))
    return bound + extra * latency


class StepClock:
    """Timestamps of node updates; consecutive updates of one node form a step."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.events: list[tuple[float, str]] = []

    def __call__(self, name: str) -> None:
        self.events.append((time.perf_counter(), name))

    def steps(self, finished: float) -> list[dict[str, Any]]:
        """Each step's wall time: from the end of the step before to its last update."""
        segments: list[dict[str, Any]] = []
        previous_end = self.started
        for at, name in self.events:
            if segments and segments[-1]["node"] == name:
                segments[-1]["tasks"] += 1
                segments[-1]["end"] = at
                continue
            if segments:
                previous_end = segments[-1]["end"]
            segments.append({"node": name, "tasks": 1, "begin": previous_end, "end": at})
        last = segments[-1]["end"] if segments else self.started
        # present_for_review stops at the interrupt, which streams no node update.
        segments.append({"node": "(review report)", "tasks": 1, "begin": last, "end": finished})
        return segments


def per_node_times(
    segments: list[dict[str, Any]], rounds: dict[str, int], latency: float
) -> dict[str, dict[str, Any]]:
    """Wall seconds per node (loop rounds summed), its share of the bound, and the excess."""
    nodes: dict[str, dict[str, Any]] = {}
    for segment in segments:
        entry = nodes.setdefault(
            segment["node"], {"steps": 0, "tasks": 0, "seconds": 0.0, "bound": 0.0}
        )
        entry["steps"] += 1
        entry["tasks"] += segment["tasks"]
        entry["seconds"] += segment["end"] - segment["begin"]
        call = LLM_NODES.get(segment["node"])
        if call in LOOP_CALLS:
            entry["bound"] += latency
        elif call is not None:
            entry["bound"] += rounds.get(call, 0) * latency
        elif segment["node"] == "prepare_review":
            entry["bound"] += rounds.get("doubt_checks", 0) * latency
    for entry in nodes.values():
        entry["excess"] = round(entry["seconds"] - entry["bound"], 3)
        entry["seconds"] = round(entry["seconds"], 3)
        entry["bound"] = round(entry["bound"], 3)
    return nodes


def add_existing_concepts(services: Services, count: int, seed: int = 0) -> None:
    """`count` concepts whose titles and summaries are random sentences, with their vectors."""
    if count <= 0:
        return
    pool = quote_texts(max(SENTENCE_POOL, 2 * count))
    rng = np.random.default_rng(seed)
    picks = rng.choice(len(pool), size=2 * count, replace=len(pool) < 2 * count)
    concepts = []
    for i in range(count):
        first, second = pool[picks[2 * i]], pool[picks[2 * i + 1]]
        title = first if len(first) <= 80 else first[:80].rsplit(" ", 1)[0]
        concepts.append(
            Concept(
                id=stable_id("benchmark-concept", str(i)),
                title=title,
                concept=f"{first} {second}",
                summary=f"{first} {second}",
                summary_short=first,
            )
        )
    embedder = services.embedder
    vectors = embedder.embed([embedding_text(c) for c in concepts])
    services.store.ensure_embedder(embedder.name, embedder.dim)
    services.store.apply(
        ChangeSet(concepts=concepts, vectors={c.id: vectors[i] for i, c in enumerate(concepts)})
    )


def add_content(services: Services, title: str, texts: list[str]) -> str:
    """A Content with its quotes and their vectors, written directly (as the tests do)."""
    cid = content_id(title, None)
    store = services.store
    store.ensure_embedder(services.embedder.name, services.embedder.dim)
    quotes = [
        Quote(id=quote_id(cid, t), content_id=cid, text=t, position=i, page=str(i // 3 + 1))
        for i, t in enumerate(texts)
    ]
    vectors = services.embedder.embed(texts)
    store.apply(
        ChangeSet(
            contents=[Content(id=cid, title=title)],
            quotes=quotes,
            relations=[Relation(source_id=q.id, target_id=cid, type=QUOTED_IN) for q in quotes],
            vectors={q.id: vectors[i] for i, q in enumerate(quotes)},
        )
    )
    return cid


def timed(function: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    result = function()
    return result, time.perf_counter() - started


def measure(count: int, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="zg-extraction-") as tmp:
        home = Path(tmp) / "home"
        settings = Settings(
            home=home,
            store=f"sqlite:///{home / 'zettelgraph.db'}",
            checkpoints=f"sqlite:///{home / 'checkpoints.db'}",
            vault=home / "vault",
            llm="fake",
            llm_fast=None,
            embeddings=args.embeddings,
            max_concurrency=args.concurrency,
            extraction_batch_size=args.batch_size,
            llm_backoff=0.0,
        )
        llm = FakeChatModel(latency=args.latency)
        services = open_services(settings, llms=ChatModels(settings, preset={"fake": llm}))
        try:
            add_existing_concepts(services, args.existing)
            cid = add_content(services, f"Benchmark {count}", quote_texts(count))
            with open_checkpointer(settings) as checkpointer:
                runs = ExtractionRuns(services, checkpointer)
                clock = StepClock()
                cpu_before, fake_before = time.process_time(), llm.cpu_seconds
                view, to_review = timed(lambda: runs.start(cid, on_step=clock))
                # CPU seconds of the whole process (every thread) up to the review: the fixed
                # cost as work done, which load inflates far less than wall time.
                cpu_to_review = time.process_time() - cpu_before
                fake_cpu = llm.cpu_seconds - fake_before
                finished = clock.started + to_review
                if view.status != "awaiting_review":
                    raise SystemExit(f"N={count}: run stopped as {view.status}: {view.warnings}")
                usage = services.usage.as_dict()
                requests = llm.calls  # model invocations, repair rounds and retries included
                state = runs.graph.get_state({"configurable": {"thread_id": view.run_id}}).values
                done, commit_seconds = timed(lambda: runs.answer(view.run_id, "approve"))
                if done.status != "committed":
                    raise SystemExit(f"N={count}: approval ended as {done.status}")
        finally:
            services.close()

    records = list(state.get("llm_calls", []))
    bound, rounds = critical_path_bound(usage, args.concurrency, args.latency, records)
    early_bound, _ = critical_path_bound(usage, args.concurrency, args.latency)
    with_repairs = request_bound(usage, args.concurrency, args.latency, records)
    calls = sum(int(u["calls"]) for u in usage.values())
    tokens_in = sum(int(u["input_tokens"]) for u in usage.values())
    tokens_out = sum(int(u["output_tokens"]) for u in usage.values())
    candidates = len(state.get("candidates", []))
    duplicate_calls = int(usage.get("detect_duplicate", {}).get("calls", 0))
    reasons: dict[str, int] = {}
    for decision in state.get("duplicate_decisions", []):
        reason = "llm" if decision.get("llm") else str(decision.get("reason"))
        reasons[reason] = reasons.get(reason, 0) + 1
    without_llm = candidates - duplicate_calls
    nodes = per_node_times(clock.steps(finished), rounds, args.latency)
    return {
        "quotes": count,
        "existing_concepts": args.existing,
        "wall_to_review_s": round(to_review, 3),
        "commit_s": round(commit_seconds, 3),
        "bound_s": round(bound, 3),
        "ratio": round(to_review / bound, 3) if bound else None,
        "ratio_goal": 1.3,
        "early_bound_s": round(early_bound, 3),
        "ratio_early_bound": round(to_review / early_bound, 3) if early_bound else None,
        "sequential_llm_rounds": rounds,
        "bound_with_repairs_s": round(with_repairs, 3),
        "ratio_with_repairs": round(to_review / with_repairs, 3) if with_repairs else None,
        "llm_calls": calls,
        "llm_calls_per_quote": round(calls / count, 3),
        "llm_requests": requests,
        "calls_by_name": {name: int(u["calls"]) for name, u in usage.items()},
        "repairs_by_name": {name: int(u["repairs"]) for name, u in usage.items() if u["repairs"]},
        "retries_by_name": {name: int(u["retries"]) for name, u in usage.items() if u["retries"]},
        "input_tokens_per_quote": round(tokens_in / count, 1),
        "output_tokens_per_quote": round(tokens_out / count, 1),
        "duplicate_checks": {
            "candidates": candidates,
            "llm_calls": duplicate_calls,
            "without_llm": without_llm,
            "without_llm_share": round(without_llm / candidates, 3) if candidates else None,
            "by_reason": reasons,
        },
        "concepts_proposed": len((view.report or {}).get("concepts", [])),
        "concepts_committed": len(done.committed.get("concepts", [])),
        "relations_committed": done.committed.get("relations", 0),
        "critique_rounds": int(state.get("phase_1_iteration", 0)),
        "warnings": len(view.warnings),
        "warnings_sample": [w[:160] for w in view.warnings[:3]],
        "steps": nodes,
        "overhead_s": round(to_review - bound, 3),
        "cpu_to_review_s": round(cpu_to_review, 3),
        # Of which the fake model building its answers: a real model's time is elsewhere.
        "fake_model_cpu_s": round(fake_cpu, 3),
    }


def warm_up(embeddings: str) -> float:
    """Seconds to build what a process builds once, and every Services opened in it shares
    (tests/workflows/test_process_objects.py): the language detector, its models loaded by a
    first detection, and the embedder's model."""
    started = time.perf_counter()
    settings = Settings(llm="fake", llm_fast=None, embeddings=embeddings)
    detector_for(settings.concept_language)("La memoria del hombre vive en el tiempo de la guerra")
    shared_embedder(settings.embeddings, settings.local_threads)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quotes", type=parse_counts, default=[10, 100, 1000])
    parser.add_argument("--latency", type=float, default=0.3, help="fake LLM seconds per call")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=40)
    parser.add_argument(
        "--existing", type=int, default=0, help="concepts stored in the graph beforehand"
    )
    parser.add_argument("--embeddings", default="hash")
    parser.add_argument(
        "--cold", action="store_true", help="no warm-up: the first size builds the detector"
    )
    args = parser.parse_args(argv)

    warmup = None if args.cold else round(warm_up(args.embeddings), 3)
    results = []
    for count in args.quotes:
        before = os.getloadavg()[0]
        result = measure(count, args)
        result["load_average_1min"] = [round(before, 2), round(os.getloadavg()[0], 2)]
        results.append(result)
    report: dict[str, Any] = {
        "benchmark": "extraction",
        "date": time.strftime("%Y-%m-%d"),
        "latency": args.latency,
        "concurrency": args.concurrency,
        "batch_size": args.batch_size,
        "existing_concepts": args.existing,
        "embeddings": args.embeddings,
        "process_warmup_s": warmup,
        "results": results,
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
    }
    json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
