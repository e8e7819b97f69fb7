"""Web app page render times: a review of 100 concepts, a graph of 2,000 and of 10,000 concepts.

    python benchmarks/web.py [--concepts 100] [--graph 2000] [--overview 10000] [--repeat 20]
    python benchmarks/web.py load [--clients 20] [--duration 45]   (`web_load.py`: pages under
                                                                  load, 20 clients at once)
    python benchmarks/web.py study [--cards 100000]   (`web_study.py`: the Study page and the
                                                      study API over a deck of 100,000 cards)

1. Review: 160 quotes are ingested and a concept-extraction run is driven to its review on the
   deterministic fake LLM, scripted so that its 4 extraction batches propose 25 concepts each
   (100 new concepts, with relations, attributions and a critique log). The Review page
   (`GET /runs/{id}`) and the run's JSON (`GET /api/runs/{id}`) are requested `--repeat` times.
2. Graph: 2,000 concepts (a tree of 1,999 GENERALIZES edges, 13 children per concept, so
   3 hops reach them all, plus 1,000 SIMILAR_TO cross links; every relation gets its
   automatic reverse) are written to the store; the
   Graph page around the root (`GET /graph?concept=ROOT&depth=3`, which embeds the graph as
   JSON for the browser to draw) and `GET /api/graph` are requested `--repeat` times.

3. Overview (`--overview 10000`, 0 to skip): the same kind of graph with 10,000 concepts, past
   the page's node budget, so `/graph` draws its communities: the whole graph, its largest
   community opened, and that one's largest part, each timed on the server and loaded
   `--loads` times in Chromium (first paint: the goal of issue 30 is p95 <= 500 ms).

Requests go through FastAPI's TestClient (the whole app: middleware, routing, store reads,
template rendering; no network). Times are server-side render times, median and p95 in ms.
With Chromium on the machine (`--chromium PATH`, default: `chromium` on the PATH), the Graph
page is also opened in headless Chromium, served by uvicorn, and timed from navigation until
the graph is drawn (`#graph.ready`): what a person waits for. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from zettelgraph.context import Services, open_services
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.models import (
    ChangeSet,
    Concept,
    Content,
    Quote,
    Relation,
    content_id,
    quote_id,
    stable_id,
)
from zettelgraph.packs.relations import QUOTED_IN
from zettelgraph.settings import Settings
from zettelgraph.web.app import create_app

WORDS = [
    *("tiempo", "memoria", "guerra", "hombre", "ciudad", "libro", "idea", "río", "montaña"),
    *("camino", "verdad", "libertad", "amistad", "justicia", "miedo", "deseo", "trabajo"),
    *("juego", "silencio", "palabra"),
]


def _word(i: int) -> str:
    """A distinct made-up word per number, so every concept's title and text differ."""
    letters = "bcdfglmnprstvz"
    out = ""
    while True:
        out += letters[i % len(letters)] + "aeiou"[i % 5]
        i //= len(letters)
        if i == 0:
            return out


def _p95(times: list[float]) -> float:
    ordered = sorted(times)
    return round(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], 1)


def _timed(client: TestClient, url: str, repeat: int) -> dict[str, Any]:
    times: list[float] = []
    size = 0
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"GET {url}: {response.status_code} {response.text[:300]}")
        size = len(response.content)
    return {"median_ms": round(statistics.median(times), 1), "p95_ms": _p95(times), "bytes": size}


def _extraction_reply(prompt: str) -> dict[str, Any]:
    """25 distinct concepts per batch, each citing two quotes of the batch."""
    import re

    ids = sorted(set(re.findall(r"\[(q\d+)\]", prompt)), key=lambda q: int(q[1:]))
    first = int(ids[0][1:])
    concepts = []
    for i in range(25):
        n = first + i
        title = f"Idea {_word(n)} {_word(n + 977)}"
        text = f"{title}: {' '.join(_word(n * 7 + j) for j in range(12))}."
        concepts.append(
            {
                "title": title,
                "concept": text,
                "analysis": f"Por qué importa {_word(n + 3)}.",
                "summary": text,
                "summary_short": title,
                "source_quote_ids": [ids[i % len(ids)], ids[(i + 1) % len(ids)]],
                "rationale": "Las citas lo dicen.",
            }
        )
    return {"candidate_concepts": concepts, "unattributed_quote_ids": [], "extraction_notes": ""}


def review_of(concepts: int, home: Path) -> tuple[Services, str]:
    """Services whose checkpoint database holds one run awaiting review with `concepts` new
    concepts; returns the services and the run id."""
    from zettelgraph.services.checkpoints import open_checkpointer
    from zettelgraph.services.extraction_runs import ExtractionRuns

    # No refinement round: the fake model's patches would drop or merge some of the 100.
    settings = Settings(
        home=home, llm="fake", embeddings="hash", llm_backoff=0.0, critique_max_iterations=0
    )
    fake = FakeChatModel(replies={"extract_concepts": [_extraction_reply]})
    services = open_services(settings, llms=ChatModels(settings, preset={"fake": fake}))
    store = services.store
    store.ensure_embedder(services.embedder.name, services.embedder.dim)
    cid = content_id("Benchmark", None)
    texts = [
        f"Cita {i}: {' '.join(WORDS[(i + j) % len(WORDS)] for j in range(9))} {_word(i)}."
        for i in range(concepts * 40 // 25)
    ]
    quotes = [
        Quote(id=quote_id(cid, t), content_id=cid, text=t, position=i, page=str(i + 1))
        for i, t in enumerate(texts)
    ]
    vectors = services.embedder.embed(texts)
    store.apply(
        ChangeSet(
            contents=[Content(id=cid, title="Benchmark")],
            quotes=quotes,
            relations=[Relation(source_id=q.id, target_id=cid, type=QUOTED_IN) for q in quotes],
            vectors={q.id: vectors[i] for i, q in enumerate(quotes)},
        )
    )
    with open_checkpointer(settings) as checkpointer:
        run = ExtractionRuns(services, checkpointer).start(cid)
    if run.status != "awaiting_review":
        raise SystemExit(f"the run is {run.status}, not awaiting review")
    return services, run.run_id


def graph_of(n: int, home: Path) -> tuple[Services, str]:
    settings = Settings(home=home, llm="fake", embeddings="hash")
    services = open_services(settings)
    store = services.store
    store.ensure_embedder(services.embedder.name, services.embedder.dim)
    concepts = [
        Concept(
            id=stable_id("concept", "bench", str(i)),
            title=f"Concepto {_word(i)}",
            concept=f"Concepto {_word(i)} {_word(i + 1)}.",
            summary_short=f"Resumen de {_word(i)}.",
        )
        for i in range(n)
    ]
    relations = [
        Relation(source_id=concepts[(i - 1) // 13].id, target_id=concepts[i].id, type="GENERALIZES")
        for i in range(1, n)
    ]
    relations += [
        Relation(
            source_id=concepts[i].id, target_id=concepts[(i * 7 + 11) % n].id, type="SIMILAR_TO"
        )
        for i in range(0, n, 2)
        if (i * 7 + 11) % n != i
    ]
    vectors = services.embedder.embed([c.title for c in concepts])
    store.apply(
        ChangeSet(
            concepts=concepts,
            relations=relations,
            vectors={c.id: vectors[i] for i, c in enumerate(concepts)},
        )
    )
    return services, concepts[0].id


def _cpu_ms() -> float:
    """CPU time so far of this process (the server, the client) and every process under it
    (Playwright's driver, Chromium's browser, GPU and renderer processes), from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    parent: dict[int, int] = {}
    used: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        parent[int(entry.name)] = int(fields[1])
        used[int(entry.name)] = int(fields[11]) + int(fields[12])  # utime + stime
    ours = {os.getpid()}
    grew = True
    while grew:
        found = {pid for pid, up in parent.items() if up in ours} - ours
        ours |= found
        grew = bool(found)
    return sum(used.get(pid, 0) for pid in ours) * 1000 / ticks


def browser_draw(
    services: Services, url_paths: list[str], chromium: str, repeat: int
) -> list[dict[str, Any]]:
    """For each page, in headless Chromium: milliseconds from navigation until the graph is
    drawn (`#graph.ready`, after the page's load event) and until the graph is first painted
    (`data-painted-ms`, cytoscape's first render by the browser's own clock), `repeat` loads
    each."""
    import socket
    import threading

    import uvicorn
    from playwright.sync_api import sync_playwright

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(services.settings, services=services),
            host="127.0.0.1",
            port=port,
            log_level="warning",
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    out: list[dict[str, Any]] = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            # The CPU a load costs (server, browser, renderer): what it takes whatever else
            # the machine runs, where the wall times grow with the machine's load.

            for url_path in url_paths:
                drawn: list[float] = []
                painted: list[float] = []
                worked: list[float] = []
                for _ in range(repeat):
                    before = _cpu_ms()
                    started = time.perf_counter()
                    page.goto(f"http://127.0.0.1:{port}{url_path}")
                    page.wait_for_selector("#graph[data-painted-ms]", timeout=120_000)
                    drawn.append((time.perf_counter() - started) * 1000)
                    painted.append(float(page.get_attribute("#graph", "data-painted-ms") or 0))
                    worked.append(_cpu_ms() - before)
                out.append(
                    {
                        "median_ms": round(statistics.median(drawn), 1),
                        "p95_ms": _p95(drawn),
                        "first_paint_median_ms": round(statistics.median(painted), 1),
                        "first_paint_p95_ms": _p95(painted),
                        "cpu_median_ms": round(statistics.median(worked), 1),
                        "cpu_p95_ms": _p95(worked),
                        "runs": repeat,
                    }
                )
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    return out


def overview(n: int, home: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The whole graph of `n` concepts (`graph_of`), past the page's budget: its communities
    (`/graph`), the largest community opened (`/graph?community=ANCHOR`) and one of its parts
    (the second level, drawn node by node when it fits). The first `/graph` after the graph
    is written pays the reads and the communities (`cold_ms`); later ones reuse them until
    the store changes."""
    import re

    services, _ = graph_of(n, home)
    out: dict[str, Any] = {"concepts": n, "budget": services.settings.graph_budget}
    try:
        with TestClient(create_app(services=services), base_url="http://127.0.0.1") as client:
            started = time.perf_counter()
            first = client.get("/graph")
            out["cold_ms"] = round((time.perf_counter() - started) * 1000, 1)
            pages = ["/graph"]
            for _ in range(2):  # the largest community, then its largest part
                found = re.search(r'id="graph-data">(.*?)</script>', first.text, re.S)
                data = json.loads(found.group(1)) if found else {}
                if not data.get("communities"):
                    break
                pages.append(data["nodes"][0]["href"])
                first = client.get(pages[-1])
            for path in pages:
                found = re.search(r'id="graph-data">(.*?)</script>', client.get(path).text, re.S)
                data = json.loads(found.group(1)) if found else {"nodes": [], "edges": []}
                out[path] = {
                    "communities": bool(data.get("communities")),
                    "nodes": len(data["nodes"]),
                    "edges": len(data["edges"]),
                    "server": _timed(client, path, args.repeat),
                }
        if args.chromium:
            for path, timing in zip(
                pages, browser_draw(services, pages, args.chromium, args.loads), strict=True
            ):
                out[path]["browser"] = timing
    finally:
        services.close()
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["load"]:
        import web_load  # benchmarks/ is the script's folder, so on sys.path

        return web_load.main(argv[1:])
    if argv[:1] == ["study"]:
        import web_study  # benchmarks/ is the script's folder, so on sys.path

        return print_report(web_study.run(argv[1:]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concepts", type=int, default=100)
    parser.add_argument("--graph", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--overview", type=int, default=10000, help="0: no overview run")
    parser.add_argument("--loads", type=int, default=10, help="browser loads per overview page")
    parser.add_argument("--chromium", default=shutil.which("chromium"))
    args = parser.parse_args(argv)
    report: dict[str, Any] = {"benchmark": "web", "date": time.strftime("%Y-%m-%d")}
    with tempfile.TemporaryDirectory() as tmp:
        services, run_id = review_of(args.concepts, Path(tmp) / "review")
        try:
            with TestClient(create_app(services=services), base_url="http://127.0.0.1") as client:
                shown = client.get(f"/api/runs/{run_id}").json()["report"]
                report["review"] = {
                    "concepts": len(shown["concepts"]),
                    "relations": len(shown["relations"]),
                    "page": _timed(client, f"/runs/{run_id}", args.repeat),
                    "api": _timed(client, f"/api/runs/{run_id}", args.repeat),
                }
        finally:
            services.close()
        services, root = graph_of(args.graph, Path(tmp) / "graph")
        try:
            with TestClient(create_app(services=services), base_url="http://127.0.0.1") as client:
                query = f"concept={root}&depth=3&limit={args.graph}"
                data = client.get(f"/api/graph?{query}").json()
                report["graph"] = {
                    "nodes": len(data["nodes"]),
                    "edges": len(data["edges"]),
                    "page": _timed(client, f"/graph?{query}", args.repeat),
                    "api": _timed(client, f"/api/graph?{query}", args.repeat),
                }
            if args.chromium:
                [report["graph"]["browser_until_drawn"]] = browser_draw(
                    services, [f"/graph?{query}"], args.chromium, 5
                )
        finally:
            services.close()
        if args.overview:
            report["overview"] = overview(args.overview, Path(tmp) / "overview", args)
    return print_report(report)


def print_report(report: dict[str, Any]) -> int:
    """Print `report` as JSON, with the Python version, the machine's cores and its load."""
    report.update(
        python=platform.python_version(),
        cpu_count=os.cpu_count(),
        load_average=Path("/proc/loadavg").read_text().split()[:3],
    )
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
