"""`zettelgraph study`: a spaced-repetition session in the terminal.

Each card shows its front; Enter reveals the back (the answer, why, the quote with its book and
place, the concept); the reader rates it 1-4 (again / hard / good / easy), each rating shown
with the interval it gives. Every rating is one store write (the card's FSRS state and its
review log together), so quitting at any prompt (q, Ctrl-C, end of input) loses nothing already
rated. A card whose next showing falls within `LEARN_AHEAD` (a learning step of minutes, after
"again") comes back at the end of the same session, as Anki's learn-ahead limit does.
"""

from __future__ import annotations

import signal
import threading
from collections import Counter, deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Annotated

import typer

from zettelgraph.cli import common
from zettelgraph.cli.common import (
    command_services,
    resolve_content_id,
    stdout,
)
from zettelgraph.cli.output import count, styled

if TYPE_CHECKING:
    from fsrs import Scheduler
    from rich.console import Console

    from zettelgraph.models import LearningItem
    from zettelgraph.services.cards import ItemFilter
    from zettelgraph.store.base import GraphStore

LEARN_AHEAD = timedelta(minutes=20)


@dataclass
class Session:
    started: datetime
    ratings: Counter[int] = field(default_factory=Counter)
    cards: set[str] = field(default_factory=set)

    def record(self, item_id: str, rating: int) -> None:
        self.ratings[rating] += 1
        self.cards.add(item_id)


def study(
    ctx: typer.Context,
    content: Annotated[
        str | None, typer.Option("--content", help="Only this book's cards (id or prefix).")
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option("--limit", min=1, help="At most N cards this session (due ones first)."),
    ] = None,
    new: Annotated[
        int | None,
        typer.Option(
            "--new", min=0, help="New cards today (default ZETTELGRAPH_STUDY_NEW_PER_DAY)."
        ),
    ] = None,
) -> None:
    """Study your approved cards: the due ones first, then new ones.

    Rate each again / hard / good / easy and FSRS schedules its next showing.
    """
    from zettelgraph.services.cards import CardError, ItemFilter
    from zettelgraph.services.study import scheduler_for, study_queue

    out = stdout()
    with command_services(ctx, CardError) as services:
        settings = services.settings
        store = services.store
        which = ItemFilter(content_id=resolve_content_id(services, content) if content else None)
        queue = study_queue(
            store, settings, now=common.now(), which=which, new_limit=new, limit=limit
        )
        items = queue.items
        if not items:
            _nothing_to_study(out, store, which, common.now())
            return
        out.print(
            styled(
                "[bold]{}[/]: {} due, {} new. Enter shows the answer, q quits.",
                count(len(items), "card"),
                min(len(queue.due_states), len(items)),
                max(0, len(items) - len(queue.due_states)),
            )
        )
        session = Session(started=common.now())
        try:
            _run(out, store, scheduler_for(settings), items, session)
        except (typer.Abort, KeyboardInterrupt, EOFError):
            out.print("\nsession stopped; every rating given is saved", style="dim")
        _summary(out, store, which, session)


def _run(
    out: Console,
    store: GraphStore,
    scheduler: Scheduler,
    items: list[LearningItem],
    session: Session,
) -> None:
    from rich.text import Text

    from zettelgraph.cli.card_view import card_views, print_back, print_front
    from zettelgraph.services.study import RATINGS, rate
    from zettelgraph.services.study_preview import interval_label, preview

    pending = deque(items)
    while pending:
        item = pending.popleft()
        (view,) = card_views(store, [item])
        shown_at = common.now()
        book = next((q["content"] for q in view.quotes if q["content"]), "")
        out.rule(
            f"{len(pending) + 1} left · {book} · {item.item_type} · {item.difficulty}",
            style="dim",
        )
        print_front(out, view)
        chosen = _reveal(len(item.options))
        print_back(out, view)
        if chosen is not None and item.correct is not None:
            out.print(
                styled("  you chose {}: [green]right[/]", chosen)
                if chosen == item.correct + 1
                else styled("  you chose {}: [red]not that one[/]", chosen)
            )
        intervals = preview(scheduler, item, now=common.now())
        out.print(
            Text("  ").join(
                styled("[bold]{}[/] {} {}", value, name, interval_label(intervals[value]))
                for value, name in RATINGS.items()
            )
        )
        rating = _ask_rating()
        rated_at = common.now()
        duration_ms = max(0, int((rated_at - shown_at).total_seconds() * 1000))
        with _uninterrupted():
            studied = rate(store, scheduler, item.id, rating, now=rated_at, duration_ms=duration_ms)
            session.record(item.id, rating)
        due = studied.item.due
        if due is not None and due <= rated_at + LEARN_AHEAD:
            pending.append(studied.item)


@contextmanager
def _uninterrupted() -> Iterator[None]:
    """Ctrl-C waits for the rating to be written and counted, then stops the session. (The
    write is one transaction either way; this keeps the summary true to it.)"""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, _frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def _reveal(options: int) -> int | None:
    """Wait for Enter; for a multiple choice the reader may type the option they pick."""
    hint = f"your pick 1-{options}, or Enter" if options else "Enter"
    while True:
        answer = typer.prompt(
            f"{hint} to show the answer, q to quit", default="", show_default=False
        ).strip()
        if answer.casefold() == "q":
            raise typer.Abort  # q: end the session as Ctrl-C does
        if not answer:
            return None
        if options and answer.isdigit() and 1 <= int(answer) <= options:
            return int(answer)
        if not options:
            return None


def _ask_rating() -> int:
    from zettelgraph.services.cards import CardError
    from zettelgraph.services.study import parse_rating

    while True:
        answer = typer.prompt("rating (1-4 or again/hard/good/easy, q to quit)").strip()
        if answer.casefold() == "q":
            raise typer.Abort  # q: end the session as Ctrl-C does
        try:
            return parse_rating(answer)
        except CardError as exc:
            stdout().print(str(exc), style="yellow")


def _span(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    minutes, seconds = divmod(max(0, seconds), 60)
    return f"{minutes}m {seconds:02d}s" if minutes else f"{seconds}s"


def _summary(out: Console, store: GraphStore, which: ItemFilter, session: Session) -> None:
    from zettelgraph.services.study import RATINGS

    ended = common.now()
    reviews = sum(session.ratings.values())
    per_rating = ", ".join(
        f"{name} {session.ratings[value]}"
        for value, name in RATINGS.items()
        if session.ratings[value]
    )
    out.rule("session", style="dim")
    out.print(
        f"studied {count(len(session.cards), 'card')} ({count(reviews, 'rating')}"
        f"{': ' + per_rating if per_rating else ''}) in {_span(ended - session.started)}"
    )
    _whats_next(out, store, which, ended)


def _whats_next(out: Console, store: GraphStore, which: ItemFilter, moment: datetime) -> None:
    """How many cards are due now, and when the next one is."""
    from zettelgraph.services.study_preview import interval_label
    from zettelgraph.services.study_stats import outlook

    ahead = outlook(store, now=moment, which=which)
    if ahead.due_now:
        out.print(f"{count(ahead.due_now, 'card')} due now: `zettelgraph study` again")
    if ahead.next_due is not None:
        when = ahead.next_due.astimezone(moment.tzinfo).strftime("%Y-%m-%d %H:%M")
        out.print(f"next card due in {interval_label(ahead.next_due - moment)} ({when})")
    if ahead.unseen:
        out.print(f"{count(ahead.unseen, 'new card')} not studied yet")


def _nothing_to_study(out: Console, store: GraphStore, which: ItemFilter, moment: datetime) -> None:
    from zettelgraph.services.study_stats import outlook

    ahead = outlook(store, now=moment, which=which)
    if not ahead.approved:
        if ahead.proposed:
            waiting = count(ahead.proposed, "proposed card")
            out.print(
                f"no approved cards; {waiting} wait for your review: "
                "`zettelgraph cards review`, then `zettelgraph cards approve`"
            )
        else:
            out.print(
                "no cards yet: `zettelgraph cards generate` proposes cards from your reviewed "
                "concepts, `zettelgraph cards review` shows them"
            )
        return
    out.print("nothing to study now")
    _whats_next(out, store, which, moment)
    if ahead.unseen:
        out.print(
            "today's new cards are done (ZETTELGRAPH_STUDY_NEW_PER_DAY); `--new N` takes more"
        )
