"""Web pages under load: 20 clients at once on `zettelgraph serve` over a graph of a few books.

    python benchmarks/web.py load [--clients 20] [--duration 45] [--warmup 5] [--seed 7]
                                  [--embeddings hash] [--keep HOME] [--workers 1]

The store is built first, in a fresh home, on the deterministic `fake` LLM (about 30 s):

1. the books of `examples/`, `benchmarks/heldout/` and `benchmarks/dev/` are ingested and,
   as `benchmarks/learning.py --graph quotes` does, one concept per passage is committed,
   related to its nearest neighbour in its book (a graph as big as the notes, with relations);
2. concept-extraction runs on three books are left waiting for review, and two more are
   approved (the checkpoint database holds open and finished runs, as after some use);
3. cards are generated for every concept, approved, and a few dozen rated over the past
   days (the study page has a deck, a history and cards due).

Then `zettelgraph serve` is started as its own process (SQLite store, checkpoints in SQLite,
the fake LLM) and `--clients` threads, each with one keep-alive connection, request pages
picked at random (every kind equally often, ids at random) for `--duration` seconds after a
`--warmup` whose requests are not counted. Each kind is one of the pages a reader opens:
the inbox `/`, a source `/sources/ID`, the sources and concepts lists, a concept, a review
`/runs/ID`, the study page, the cards page, the graph (whole, and around a concept), search
(`/ask?q=`), and the JSON API (a concept, a content, search, the runs, the graph around a
concept, the next card). Latency is the client's: from sending the request to the end of
the body, so it includes waiting for the server's threads and the store's lock.

Prints JSON: per kind and overall p50 / p95 / max in ms, requests and errors (any status
other than 200), requests per second, the store's counts, the machine's load average before
and after (other processes on the machine share its CPUs), the server's CPU seconds under
load and per request, and then, one request at a time (`--repeat` of each kind), the server's
CPU milliseconds per page: the cost of a page whatever else the machine runs.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx

from learning import build_quote_graph  # benchmarks/ is the script's folder, so on sys.path
from zettelgraph.context import open_services
from zettelgraph.models import ItemStatus
from zettelgraph.services import cards, study
from zettelgraph.services.card_generation import generate_cards
from zettelgraph.services.checkpoints import open_checkpointer
from zettelgraph.services.extraction_runs import ExtractionRuns
from zettelgraph.settings import Settings
from zettelgraph.store.falkordb_server import free_port

REPO = Path(__file__).resolve().parents[1]
BOOKS = [REPO / "examples", REPO / "benchmarks" / "heldout", REPO / "benchmarks" / "dev"]
SEARCHES = ("tiempo", "memoria", "guerra", "virtue", "life", "amor", "muerte", "honor")


def build_home(home: Path, embeddings: str) -> dict[str, Any]:
    """A home with a committed graph, runs waiting for review and a studied deck."""
    started = time.perf_counter()
    paths = [p for folder in BOOKS for p in sorted(folder.glob("*.md")) if p.name != "README.md"]
    built = build_quote_graph(home, paths, embeddings)
    settings = Settings(home=home, llm="fake", embeddings=embeddings, llm_backoff=0.0)
    services = open_services(settings)
    try:
        store = services.store
        contents = sorted(store.list_contents(), key=lambda c: c.id)
        with open_checkpointer(settings) as checkpointer:
            runs = ExtractionRuns(services, checkpointer)
            for i, content in enumerate(contents[:5]):
                view = runs.start(content.id)
                if i >= 3 and view.status == "awaiting_review":
                    runs.answer(view.run_id, "approve")
        generate_cards(services, concept_ids=sorted(c.id for c in store.list_concepts()))
        proposed = [i.id for i in cards.all_items(store) if i.status == ItemStatus.PROPOSED]
        cards.decide(services, proposed, ItemStatus.APPROVED)
        scheduler = study.scheduler_for(settings)
        now = dt.datetime.now(dt.UTC)
        for n, item_id in enumerate(proposed[:60]):
            # Rated 1-10 days ago, good or again: some come due again, some later.
            when = now - dt.timedelta(days=1 + n % 10, minutes=n)
            study.rate(store, scheduler, item_id, 3 if n % 4 else 1, now=when)
        counts = store.counts()
    finally:
        services.close()
    return {
        "books": built["books"],
        "counts": {k: v for k, v in counts.items() if v},
        "seconds": round(time.perf_counter() - started, 1),
    }


def start_server(
    home: Path, embeddings: str, port: int, workers: int = 1
) -> subprocess.Popen[bytes]:
    """`zettelgraph serve` on the home, as a user starts it; returns once it answers."""
    command = [sys.executable, "-c", "from zettelgraph.cli.app import main; main()"]
    flags = ["--home", str(home), "--llm", "fake", "--embeddings", embeddings]
    server = subprocess.Popen(
        [*command, *flags, "serve", "--port", str(port), "--workers", str(workers)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server ended: {server.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/csrf", timeout=2).status_code == 200:
                return server
        except httpx.TransportError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("the server did not answer within 60 s")


def page_kinds(base: str) -> dict[str, list[str]]:
    """Each kind of page and the URLs it is picked from, from what the server lists."""
    with httpx.Client(base_url=base, timeout=60) as client:
        contents = [row["id"] for row in client.get("/api/contents").json()]
        concepts = [row["id"] for row in client.get("/api/concepts").json()]
        waiting = [row["run_id"] for row in client.get("/api/runs").json()]
    if not (contents and concepts and waiting):
        raise SystemExit("the benchmark home has no contents, concepts or runs to request")
    some = random.Random(1).sample(concepts, min(50, len(concepts)))
    return {
        "inbox /": ["/"],
        "source /sources/ID": [f"/sources/{c}" for c in contents],
        "sources /sources": ["/sources"],
        "concepts /concepts": ["/concepts"],
        "concept /concepts/ID": [f"/concepts/{c}" for c in some],
        "review /runs/ID": [f"/runs/{r}" for r in waiting],
        "study /study": ["/study"],
        "cards /cards": ["/cards"],
        "graph /graph": ["/graph"],
        "graph /graph?concept=ID": [f"/graph?concept={c}" for c in some],
        "search /ask?q=": [f"/ask?q={q}" for q in SEARCHES],
        "api /api/concepts/ID": [f"/api/concepts/{c}" for c in some],
        "api /api/contents/ID": [f"/api/contents/{c}" for c in contents],
        "api /api/search?q=": [f"/api/search?q={q}" for q in SEARCHES],
        "api /api/runs": ["/api/runs"],
        "api /api/graph?concept=ID": [f"/api/graph?concept={c}" for c in some],
        "api /api/study/next": ["/api/study/next"],
    }


def _summary(times: list[float], errors: int) -> dict[str, Any]:
    ordered = sorted(times)
    if not ordered:
        return {"requests": 0, "errors": errors}
    return {
        "requests": len(ordered),
        "errors": errors,
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], 1),
        "max_ms": round(ordered[-1], 1),
    }


def hammer(
    base: str, kinds: dict[str, list[str]], clients: int, warmup: float, duration: float, seed: int
) -> dict[str, Any]:
    """`clients` threads requesting random pages; the latencies after the warm-up, by kind."""
    times: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    samples: list[str] = []
    guard = threading.Lock()
    start = time.monotonic()
    counted_from, stop = start + warmup, start + warmup + duration

    def client(number: int) -> None:
        pick = random.Random(seed * 1000 + number)
        names = sorted(kinds)
        with httpx.Client(base_url=base, timeout=120) as http:
            while time.monotonic() < stop:
                kind = pick.choice(names)
                url = pick.choice(kinds[kind])
                began = time.monotonic()
                try:
                    status = http.get(url).status_code
                except httpx.HTTPError as exc:
                    status, problem = 0, f"{url}: {type(exc).__name__}"
                else:
                    problem = f"{url}: {status}"
                ended = time.monotonic()
                if began < counted_from:
                    continue
                with guard:
                    times[kind].append((ended - began) * 1000)
                    if status != 200:
                        errors[kind] += 1
                        if len(samples) < 5:
                            samples.append(problem)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    every = [t for kind in times.values() for t in kind]
    return {
        "overall": {
            **_summary(every, sum(errors.values())),
            "requests_per_second": round(len(every) / duration, 1),
        },
        "pages": {kind: _summary(times[kind], errors[kind]) for kind in sorted(kinds)},
        "error_samples": samples,
    }


def server_cpu_per_page(
    base: str, kinds: dict[str, list[str]], pid: int, repeat: int
) -> dict[str, float | None]:
    """The server's CPU milliseconds per request of each kind, one request at a time: what a
    page costs whatever else the machine runs (the latencies under load depend on that)."""
    out: dict[str, float | None] = {}
    with httpx.Client(base_url=base, timeout=120) as http:
        for kind in sorted(kinds):
            urls = (kinds[kind] * repeat)[:repeat]
            http.get(urls[0])
            before = _cpu_seconds(pid)
            for url in urls:
                http.get(url)
            after = _cpu_seconds(pid)
            done = before is not None and after is not None
            out[kind] = round((after - before) * 1000 / repeat, 1) if done else None  # type: ignore[operator]
    return out


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds so far of a process and its children (the workers of
    `serve --workers N`) (Linux /proc), None elsewhere."""
    total = 0.0
    for one in [pid, *_children(pid)]:
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            if one == pid:
                return None
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _children(pid: int) -> list[int]:
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return []
    found: list[int] = []
    for task in tasks:
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--duration", type=float, default=45.0, help="seconds counted")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds not counted")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=20, help="requests per page, one at a time")
    parser.add_argument("--embeddings", default="hash")
    parser.add_argument("--workers", type=int, default=1, help="`serve --workers`")
    parser.add_argument("--keep", type=Path, help="build the home here and keep it")
    args = parser.parse_args(argv)
    report: dict[str, Any] = {
        "benchmark": "web load",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "clients": args.clients,
        "duration_s": args.duration,
    }
    tmp = Path(tempfile.mkdtemp(prefix="zg-web-load-"))
    home = args.keep or tmp / "home"
    try:
        if not (home / "zettelgraph.db").exists():
            report["store"] = build_home(home, args.embeddings)
        port = free_port()
        server = start_server(home, args.embeddings, port, args.workers)
        report["workers"] = args.workers
        try:
            base = f"http://127.0.0.1:{port}"
            kinds = page_kinds(base)
            report["load_before"] = os.getloadavg()
            cpu = _cpu_seconds(server.pid)
            report.update(hammer(base, kinds, args.clients, args.warmup, args.duration, args.seed))
            after = _cpu_seconds(server.pid)
            report["load_after"] = os.getloadavg()
            if cpu is not None and after is not None:
                report["server_cpu_s"] = round(after - cpu, 1)
                report["server_cpu_ms_per_request"] = round(
                    (after - cpu) * 1000 / max(1, report["overall"]["requests"]), 1
                )
            report["server_cpu_ms_alone"] = server_cpu_per_page(
                base, kinds, server.pid, args.repeat
            )
        finally:
            server.terminate()
            server.wait(timeout=30)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report.update(python=sys.version.split()[0], cpu_count=os.cpu_count())
    import json

    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
