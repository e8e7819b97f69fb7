"""The Study page and the study API over a large deck: render times at 100,000 cards.

    python benchmarks/web.py study [--cards 100000] [--repeat 20] [--store URL]

A deck of `--cards` cards is written straight to the store (no LLM): 200 books, 2,000
concepts with 100 PREREQUISITE_FOR pairs, every card citing one concept and one or two books.
70% are approved (of those, 60% studied with due dates from 30 days ago to 60 days ahead,
the rest new), 25% proposed, 5% dropped; 300 ratings a day for the last 30 days. Then
`GET /study`, `GET /study?content=BOOK`, `GET /api/study/next` and `GET /api/study/stats` are
requested `--repeat` times through FastAPI's TestClient (the whole app, no network): server
render times, median and p95 in ms, the mean CPU time per request, and the load average
before and after. `--store` takes a
store URL (falkordb://host:port/graph); the default is SQLite in a temporary home. Prints JSON.
"""

from __future__ import annotations

import argparse
import datetime as dt
import tempfile
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from fsrs import Card, State

from web import _timed  # benchmarks/ is the script's folder, so on sys.path
from zettelgraph.context import open_services
from zettelgraph.models import (
    ChangeSet,
    Concept,
    Content,
    Difficulty,
    ItemStatus,
    ItemType,
    LearningItem,
    Relation,
    ReviewLog,
    review_log_id,
)
from zettelgraph.packs.relations import PREREQUISITE_FOR
from zettelgraph.settings import Settings
from zettelgraph.web.app import create_app

BOOKS = 200
CONCEPTS = 2_000
PREREQUISITES = 100
RATINGS_A_DAY = 300
BATCH = 2_000
DIFFICULTIES = (Difficulty.EASY, Difficulty.MEDIUM, Difficulty.HARD)


def _card(n: int, now: dt.datetime) -> LearningItem:
    """Card `n` of the deck: its status, study state and books follow from `n`."""
    share = n % 100
    status = (
        ItemStatus.APPROVED
        if share < 70
        else ItemStatus.PROPOSED
        if share < 95
        else ItemStatus.DROPPED
    )
    books = [f"book-{n % BOOKS:03d}"] + ([f"book-{(n + 7) % BOOKS:03d}"] if n % 9 == 0 else [])
    fields: dict[str, Any] = {}
    if status == ItemStatus.APPROVED and share < 42:  # 60% of the approved were studied
        due = now + dt.timedelta(minutes=(n * 7919) % (90 * 24 * 60) - 30 * 24 * 60)
        state = 2 if n % 5 else 1
        card = Card(
            card_id=n,
            state=State(state),
            step=0 if state == State.Learning else None,
            stability=5.0,
            difficulty=5.0,
            due=due,
            last_review=due - dt.timedelta(days=5),
        )
        fields = {"schedule": dict(card.to_dict()), "due": due}
    return LearningItem(
        id=f"card-{n:06d}",
        item_type=ItemType.FLASHCARD if n % 3 else ItemType.CLOZE,
        front=f"¿Qué dice la idea {n}?",
        back=f"La idea {n} dice algo.",
        difficulty=DIFFICULTIES[n % 3],
        concept_ids=[f"concept-{n % CONCEPTS:04d}"],
        content_ids=books,
        status=status,
        created_at=now - dt.timedelta(days=120, seconds=n),
        **fields,
    )


def build_deck(services: Any, cards: int, now: dt.datetime) -> dict[str, Any]:
    """Write the deck described in the module docstring; counts and seconds taken."""
    started = time.perf_counter()
    store = services.store
    contents = [Content(id=f"book-{b:03d}", title=f"Libro {b}") for b in range(BOOKS)]
    concepts = [
        Concept(id=f"concept-{c:04d}", title=f"Idea {c}", concept=f"La idea {c}.", summary_short="")
        for c in range(CONCEPTS)
    ]
    # Concept 2k + 1 needs concept 2k first, for the first PREREQUISITES pairs.
    needs = [
        Relation(
            source_id=f"concept-{2 * p:04d}",
            type=PREREQUISITE_FOR,
            target_id=f"concept-{2 * p + 1:04d}",
        )
        for p in range(PREREQUISITES)
    ]
    store.apply(ChangeSet(contents=contents, concepts=concepts, relations=needs))
    for start in range(0, cards, BATCH):
        items = [_card(n, now) for n in range(start, min(cards, start + BATCH))]
        store.apply(ChangeSet(learning_items=items))
    logs = []
    for n in range(RATINGS_A_DAY * 30):
        card = n * 101 % cards
        if card % 100 < 42:
            when = now - dt.timedelta(minutes=30 * 24 * 60 * n // (RATINGS_A_DAY * 30) + 1)
            logs.append(
                ReviewLog(
                    id=review_log_id(f"card-{card:06d}", when),
                    item_id=f"card-{card:06d}",
                    rating=1 + n % 4,
                    reviewed_at=when,
                    state_before=2 if n % 3 else None,
                )
            )
    for start in range(0, len(logs), BATCH):
        store.apply(ChangeSet(review_logs=logs[start : start + BATCH]))
    counts = store.counts()
    return {
        "cards": counts["LearningItem"],
        "ratings": counts["ReviewLog"],
        "books": BOOKS,
        "concepts": CONCEPTS,
        "prerequisites": PREREQUISITES,
        "seconds_to_build": round(time.perf_counter() - started, 1),
    }


PAGES = ("/study", "/study?content=book-007", "/api/study/next", "/api/study/stats")


def _measured(client: TestClient, url: str, repeat: int) -> dict[str, Any]:
    """`_timed`'s wall times, and the CPU the process spent per request: on a machine shared
    with other work the wall time is mostly waiting for a core, the CPU time is not."""
    client.get(url)  # the first request of a page fills caches; it is not counted
    started = time.process_time()
    timed = _timed(client, url, repeat)
    timed["cpu_ms_mean"] = round((time.process_time() - started) * 1000 / repeat, 1)
    return timed


def _load() -> list[float]:
    return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]


def run(argv: list[str]) -> dict[str, Any]:
    """The benchmark's report (`web.py study` prints it)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--store", default=None, help="a store URL; SQLite in a temp home")
    args = parser.parse_args(argv)
    report: dict[str, Any] = {"benchmark": "web study", "date": time.strftime("%Y-%m-%d")}
    now = dt.datetime.now(dt.UTC)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(home=Path(tmp), llm="fake", embeddings="hash", store=args.store)
        services = open_services(settings)
        try:
            report["deck"] = build_deck(services, args.cards, now)
            report["store"] = services.store.url.split("://")[0]
            report["load_before"] = _load()
            with TestClient(create_app(services=services), base_url="http://127.0.0.1") as client:
                report["pages"] = {url: _measured(client, url, args.repeat) for url in PAGES}
            report["load_after"] = _load()
        finally:
            if hasattr(services.store, "drop"):
                services.store.drop()
            services.close()
    return report
