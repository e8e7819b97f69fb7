"""Screenshots of the web app for the docs, taken from a real home.

    python docs/screenshots.py --home HOME [--out docs/images] [--chromium /usr/bin/chromium]

HOME must hold at least one run awaiting review and one approved run (for example:
`zettelgraph --home HOME --llm local:0.5b run examples/meditations.md examples/walden.md`,
then `zettelgraph --home HOME review RUN_ID --approve` on one of them). The app is served on a
free loopback port; the Review page of the newest waiting run, the page of the approved
concept with the most relations and its Graph view are saved as PNG files.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import threading
import time
from pathlib import Path

import uvicorn

from zettelgraph.settings import Settings
from zettelgraph.web import create_app
from zettelgraph.workflows.browse import concept_rows, inbox
from zettelgraph.workflows.checkpoints import open_checkpointer
from zettelgraph.workflows.concept_extraction.runner import ExtractionRuns
from zettelgraph.workflows.context import open_services


def _targets(settings: Settings) -> tuple[str, str]:
    services = open_services(settings)
    try:
        with open_checkpointer(settings) as checkpointer:
            waiting = inbox(ExtractionRuns(services, checkpointer))
        concepts = concept_rows(services.store)
    finally:
        services.close()
    if not waiting or not concepts:
        raise SystemExit("HOME needs a run awaiting review and an approved run (see --help)")
    busiest = max(concepts, key=lambda row: (row["relations"], row["quotes"]))
    return waiting[0]["run_id"], busiest["id"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "images")
    parser.add_argument("--chromium", default=shutil.which("chromium"))
    args = parser.parse_args(argv)
    if not args.chromium:
        parser.error("no chromium found: apt-get install chromium, or pass --chromium PATH")
    settings = Settings(home=args.home)
    run_id, concept_id = _targets(settings)

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
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.goto(f"{base}/runs/{run_id}")
            page.screenshot(path=str(args.out / "review.png"), full_page=True)
            page.goto(f"{base}/concepts/{concept_id}")
            page.screenshot(path=str(args.out / "concept.png"), full_page=True)
            page.goto(f"{base}/graph?concept={concept_id}&depth=2")
            page.wait_for_selector("#graph.ready")
            page.wait_for_timeout(500)
            page.screenshot(path=str(args.out / "graph.png"))
            browser.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)
    for name in ("review", "concept", "graph"):
        print(args.out / f"{name}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
