"""Screenshots of the web app for the docs, taken from a real home.

    python docs/screenshots.py --home HOME [--out docs/images] [--chromium /usr/bin/chromium]

The app is served on a free loopback port over HOME; `--pages` picks what is saved as PNG:
`review` (the waiting run with the most new concepts), `review-390px` (the same run on a phone's
screen, at its first item), `concept` (the concept with the most
relations), `graph` (its Graph view), `cards` (the proposed cards), `study` (the next
card of a study session, its answer shown) and `experiment` (the newest completed experiment,
full page). The docs' images were made from the README's
first command on the default offline model: `zettelgraph --home HOME run examples/`, then
`--pages review`, then `zettelgraph --home HOME review RUN_ID --approve` (the Walden run),
then `--pages concept,graph`; the card pages after `zettelgraph --home HOME --llm local
cards generate` (`--pages cards`) and `cards approve --all` (`--pages study`); the
experiment page after the README's experiment (`--pages experiment`).
"""

from __future__ import annotations

import argparse
import shutil
import socket
import threading
import time
from pathlib import Path

import uvicorn

from zettelgraph.context import open_services
from zettelgraph.services.browse import concept_rows, inbox
from zettelgraph.services.checkpoints import open_checkpointer
from zettelgraph.services.extraction_runs import ExtractionRuns
from zettelgraph.settings import Settings
from zettelgraph.web.app import create_app


def _targets(settings: Settings) -> tuple[str | None, str | None]:
    """The waiting run with the most concepts, and the concept with the most relations."""
    services = open_services(settings)
    try:
        with open_checkpointer(settings) as checkpointer:
            waiting = inbox(ExtractionRuns(services, checkpointer))
        concepts = concept_rows(services.store)
    finally:
        services.close()
    run = max(waiting, key=lambda row: row["concepts"])["run_id"] if waiting else None
    busiest = (
        max(concepts, key=lambda row: (row["relations"], row["quotes"]))["id"] if concepts else None
    )
    return run, busiest


def _completed_experiment(settings: Settings) -> str | None:
    from zettelgraph.services.experiments import ExperimentRuns

    services = open_services(settings)
    try:
        with open_checkpointer(settings) as checkpointer:
            done = [
                view.id
                for view in ExperimentRuns(services, checkpointer).experiments()
                if view.status == "completed"
            ]
    finally:
        services.close()
    return done[0] if done else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "images")
    parser.add_argument("--chromium", default=shutil.which("chromium"))
    parser.add_argument("--pages", default="review,concept,graph")
    args = parser.parse_args(argv)
    if not args.chromium:
        parser.error("no chromium found: apt-get install chromium, or pass --chromium PATH")
    pages = set(args.pages.split(","))
    settings = Settings(home=args.home)
    run_id, concept_id = _targets(settings)
    if pages & {"review", "review-390px"} and run_id is None:
        parser.error("no run is waiting for review in HOME")
    if pages & {"concept", "graph"} and concept_id is None:
        parser.error("HOME has no concept yet: approve a run first")

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"

    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=args.chromium, args=["--no-sandbox"]
            )
            page = browser.new_page(viewport={"width": 1200, "height": 1000})
            if "review" in pages:
                page.goto(f"{base}/runs/{run_id}")
                page.screenshot(path=str(args.out / "review.png"))
            if "review-390px" in pages:
                # The item-by-item review on a phone: the first item, its controls and quote.
                phone = browser.new_page(viewport={"width": 390, "height": 844})
                phone.goto(f"{base}/runs/{run_id}#item-c1")
                phone.screenshot(path=str(args.out / "review-390px.png"))
                phone.close()
            if "concept" in pages:
                page.goto(f"{base}/concepts/{concept_id}")
                page.screenshot(path=str(args.out / "concept.png"))
            if "graph" in pages:
                page.goto(f"{base}/graph?concept={concept_id}&depth=2")
                page.wait_for_selector("#graph.ready")
                page.wait_for_timeout(500)
                page.screenshot(path=str(args.out / "graph.png"))
            if "cards" in pages:
                page.goto(f"{base}/cards?status=proposed")
                page.screenshot(path=str(args.out / "cards.png"))
            if "study" in pages:
                page.goto(f"{base}/study?reveal=1")
                page.screenshot(path=str(args.out / "study.png"))
            if "experiment" in pages:
                experiment = _completed_experiment(settings)
                if experiment is None:
                    parser.error("HOME has no completed experiment")
                page.goto(f"{base}/experiments/{experiment}")
                page.screenshot(path=str(args.out / "experiment.png"), full_page=True)
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    for name in sorted(pages):
        print(args.out / f"{name}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
