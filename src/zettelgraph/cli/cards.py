"""`zettelgraph cards`: generate learning items, review them (approve / drop / edit), list,
export to Anki or CSV, and study statistics."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from zettelgraph.cli.common import (
    JsonOption,
    command_services,
    fail,
    print_json,
    require_same_embedder,
    resolve_concept_id,
    resolve_content_id,
    stderr,
    stdout,
)
from zettelgraph.cli.output import count, id_table, print_next, styled

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from zettelgraph.cli.card_view import CardView
    from zettelgraph.context import Services
    from zettelgraph.models import LearningItem
    from zettelgraph.services.card_generation import GenerationReport

cards_app = typer.Typer(
    help="Cards from your reviewed concepts: generate, review, export to Anki, statistics.",
    no_args_is_help=True,
)

ContentOption = Annotated[
    str | None, typer.Option("--content", help="Only this book (id or its first characters).")
]
REVIEW_COMMANDS = (
    ("zettelgraph cards approve ID...", "approve cards (the ids shown, or their first characters)"),
    ("zettelgraph cards drop ID...", "drop cards: never studied, never proposed again"),
    ("zettelgraph cards edit ID --front T --back T --explanation T", "reword one, approving it"),
)


def open_cards(ctx: typer.Context) -> AbstractContextManager[Services]:
    """Services for a cards command; a request the cards cannot do ends it with its reason."""
    from zettelgraph.services.cards import CardError

    return command_services(ctx, CardError, model=True)


def _content(services: Services, given: str | None) -> str | None:
    return resolve_content_id(services, given) if given else None


def _views(services: Services, items: list[LearningItem]) -> list[CardView]:
    from zettelgraph.cli.card_view import card_views

    return card_views(services.store, items)


@cards_app.command("generate")
def generate(
    ctx: typer.Context,
    concept: Annotated[
        list[str] | None,
        typer.Option("--concept", help="Only this concept (repeat for several; id or prefix)."),
    ] = None,
    content: ContentOption = None,
    from_passages: Annotated[
        str | None,
        typer.Option(
            "--from-passages",
            metavar="CONTENT",
            help="Make cards straight from this content's passages (id or its first "
            "characters), no concepts needed: flashcards, clozes, multiple choice, code "
            "and figure cards, each citing its passage.",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Propose cards for your reviewed concepts, or straight from what you read; they wait
    for your review.

    All concepts, one book's (--content), the ones named (--concept), or one content's
    passages (--from-passages).
    """
    from zettelgraph.cli.progress import step_progress
    from zettelgraph.services.card_generation import generate_cards

    started = time.monotonic()
    with open_cards(ctx) as services:
        require_same_embedder(services)
        content_id = _content(services, content)
        passages_of = _content(services, from_passages)
        concept_ids = None
        if concept:
            concept_ids = [resolve_concept_id(services, c) for c in concept]
        with step_progress(stderr(), started) as step:
            report = generate_cards(
                services,
                concept_ids=concept_ids,
                content_id=content_id,
                from_passages=passages_of,
                on_progress=step,
            )
    if as_json:
        print_json(report.as_dict())
        return
    _print_generated(report)


def _print_generated(report: GenerationReport) -> None:
    from collections import Counter

    from rich.table import Table

    out = stdout()
    table = Table(title=f"{count(len(report.proposed), 'card')} proposed")
    for column in ("", "cards", "why"):
        table.add_column(column, overflow="fold")
    for item_type, number in sorted(report.per_type.items()):
        table.add_row(f"proposed: {item_type}", str(number), "")
    # Repeats are dropped by the duplicate check too: counted once, on their own row.
    set_aside = [drop for drop in report.dropped if drop.get("guard") != "duplicate"]
    for guard, number in sorted(Counter(str(d.get("guard")) for d in set_aside).items()):
        reasons = dict.fromkeys(str(d.get("reason")) for d in set_aside if d["guard"] == guard)
        table.add_row(f"dropped: {guard}", str(number), "; ".join(list(reasons)[:3]))
    table.add_row("duplicates", str(report.duplicates), "the best of each kept")
    table.add_row("concepts skipped", str(report.skipped_concepts), "they have their cards")
    table.add_row("LLM calls", str(report.calls), "")
    out.print(table)
    if report.proposed:
        print_next(out, "zettelgraph cards review, then approve, drop or edit them")


@cards_app.command("list")
def list_cards(
    ctx: typer.Context,
    status: Annotated[
        str, typer.Option("--status", help="proposed, approved, dropped or all.")
    ] = "all",
    content: ContentOption = None,
    concept: Annotated[str | None, typer.Option("--concept", help="Only this concept.")] = None,
    item_type: Annotated[
        str | None,
        typer.Option("--type", help="flashcard, cloze, mcq, relation, code_completion or diagram."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """List cards: id, type, difficulty, status, front and the concepts they test."""
    from zettelgraph.models import ItemStatus, ItemType
    from zettelgraph.services.cards import ItemFilter, list_items

    statuses = {str(s): s for s in ItemStatus}
    types = {str(t): t for t in ItemType}
    if status != "all" and status not in statuses:
        fail(f"--status {status!r}: use {', '.join(statuses)} or all", code=2)
    if item_type is not None and item_type not in types:
        fail(f"--type {item_type!r}: use {', '.join(types)}", code=2)
    with open_cards(ctx) as services:
        concept_id = None
        if concept:
            concept_id = resolve_concept_id(services, concept)
        which = ItemFilter(
            status=statuses.get(status),
            content_id=_content(services, content),
            concept_id=concept_id,
            item_type=types.get(item_type or ""),
        )
        views = _views(services, list_items(services.store, which))
    if as_json:
        print_json([view.as_dict() for view in views])
        return
    from zettelgraph.cli.card_view import clip

    columns = ("id", "type", "difficulty", "status", "front", "concepts")
    table = id_table(f"{len(views)} cards", columns)
    for view in views:
        item = view.item
        table.add_row(
            view.short_id,
            str(item.item_type),
            str(item.difficulty),
            str(item.status),
            clip(item.front, 60),
            clip(view.concept_titles, 40),
        )
    stdout().print(table)


@cards_app.command("review")
def review(ctx: typer.Context, content: ContentOption = None, as_json: JsonOption = False) -> None:
    """Every proposed card, in full, with the commands that approve, drop or edit them."""
    from zettelgraph.cli.card_view import print_card_for_review
    from zettelgraph.models import ItemStatus
    from zettelgraph.services.cards import ItemFilter, list_items

    with open_cards(ctx) as services:
        content_id = _content(services, content)
        which = ItemFilter(status=ItemStatus.PROPOSED, content_id=content_id)
        views = _views(services, list_items(services.store, which))
    if as_json:
        print_json([view.as_dict() for view in views])
        return
    out = stdout()
    if not views:
        out.print("no card waits for review; `zettelgraph cards generate` proposes some")
        return
    out.print(count(len(views), "proposed card"), style="bold")
    for number, view in enumerate(views, 1):
        print_card_for_review(out, view, number)
    every = f"zettelgraph cards approve --all{f' --content {content}' if content else ''}"
    out.print("\nNext:")
    for command, what in ((every, "approve them all"), *REVIEW_COMMANDS):
        out.print(styled("  {}  [dim]{}[/]", command, what), soft_wrap=True)


def _print_decided(items: list[LearningItem], verb: str, as_json: bool) -> None:
    from zettelgraph.cli.card_view import clip

    if as_json:
        print_json([item.model_dump(mode="json") for item in items])
        return
    out = stdout()
    out.print(f"{verb} {count(len(items), 'card')}")
    for item in items:
        out.print(f"  {item.id[:8]}  {clip(item.front, 64)}")


@cards_app.command("approve")
def approve(
    ctx: typer.Context,
    item_ids: Annotated[
        list[str] | None, typer.Argument(help="Card ids (or their first characters).")
    ] = None,
    every: Annotated[bool, typer.Option("--all", help="Every proposed card.")] = False,
    content: Annotated[
        str | None, typer.Option("--content", help="With --all: only this book's cards.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Approve cards: they are studied, exported and written to the vault."""
    from zettelgraph.models import ItemStatus
    from zettelgraph.services.cards import ItemFilter, decide, list_items

    if every == bool(item_ids):
        fail("give card ids or --all", code=2)
    if content and not every:
        fail("--content goes with --all", code=2)
    with open_cards(ctx) as services:
        if every:
            which = ItemFilter(status=ItemStatus.PROPOSED, content_id=_content(services, content))
            ids = [item.id for item in list_items(services.store, which)]
        else:
            ids = list(item_ids or [])
        decided = decide(services, ids, ItemStatus.APPROVED)
    _print_decided(decided, "approved", as_json)


@cards_app.command("drop")
def drop(
    ctx: typer.Context,
    item_ids: Annotated[list[str], typer.Argument(help="Card ids (or their first characters).")],
    as_json: JsonOption = False,
) -> None:
    """Drop cards: never studied or exported, never proposed again."""
    from zettelgraph.models import ItemStatus
    from zettelgraph.services.cards import decide

    with open_cards(ctx) as services:
        decided = decide(services, item_ids, ItemStatus.DROPPED)
    _print_decided(decided, "dropped", as_json)


@cards_app.command("edit")
def edit(
    ctx: typer.Context,
    item_id: Annotated[str, typer.Argument(help="Card id (or its first characters).")],
    front: Annotated[str | None, typer.Option("--front", help="The new question.")] = None,
    back: Annotated[
        str | None,
        typer.Option("--back", help="The new answer (a cloze: the words of the quote to hide)."),
    ] = None,
    explanation: Annotated[
        str | None, typer.Option("--explanation", help="The new explanation.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Reword a card in your own words; an edited card counts as approved."""
    from zettelgraph.cli.card_view import print_card_for_review
    from zettelgraph.services.cards import edit as edit_card

    with open_cards(ctx) as services:
        edited = edit_card(services, item_id, front=front, back=back, explanation=explanation)
        (view,) = _views(services, [edited])
    if as_json:
        print_json(view.as_dict())
        return
    out = stdout()
    out.print(f"edited {view.short_id}; an edited card counts as approved")
    print_card_for_review(out, view, 1)


@cards_app.command("export")
def export(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="deck.apkg (Anki) or cards.csv.")],
    content: ContentOption = None,
    csv: Annotated[bool, typer.Option("--csv", help="CSV, whatever the file's suffix.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Write the approved cards to an Anki package (.apkg) or a CSV file."""
    from zettelgraph.export.anki import export_apkg, export_csv
    from zettelgraph.models import ItemStatus
    from zettelgraph.services.cards import ItemFilter

    suffix = path.suffix.lower()
    if not csv and suffix not in (".apkg", ".csv"):
        fail(f"{path}: name a .apkg (Anki) or .csv file, or give --csv", code=2)
    as_csv = csv or suffix == ".csv"
    with open_cards(ctx) as services:
        which = ItemFilter(status=ItemStatus.APPROVED, content_id=_content(services, content))
        writer = export_csv if as_csv else export_apkg
        try:
            report = writer(services.store, path, which)
        except OSError as exc:
            fail(f"{path}: {exc.strerror or exc}")
    data = report.as_dict()
    if as_json:
        print_json(data)
        return
    out = stdout()
    made = "" if as_csv else f" ({data['cards']} Anki cards)"
    out.print(
        f"wrote {data['path']}: {count(data['notes'], 'approved card')}{made}",
        soft_wrap=True,  # a path stays whole, to copy
    )
    kinds = ", ".join(f"{kind} {number}" for kind, number in data["per_type"].items())
    out.print(f"  by type: {kinds}")
    for book, number in data["per_book"].items():
        out.print(f"  {book or '(no book)'}: {number}")
    if not as_csv:
        out.print("Import it in Anki (File > Import); importing a newer export updates the cards.")


@cards_app.command("stats")
def stats(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Due now and today, new, learning and review cards, and retention, per book."""
    from zettelgraph.cli.common import now
    from zettelgraph.services.study_stats import RETENTION_DAYS
    from zettelgraph.services.study_stats import stats as study_stats

    with open_cards(ctx) as services:
        data = study_stats(services.store, now=now()).as_dict()
    if as_json:
        print_json(data)
        return
    from rich.table import Table

    columns = ("due now", "due today", "new", "learning", "review", "retention")
    table = Table(title=f"Cards (retention over the last {RETENTION_DAYS} days)")
    table.add_column("book", overflow="fold")
    for column in columns:
        table.add_column(column, justify="right")
    for number, deck in enumerate(data["books"], 1):
        table.add_row(deck["title"], *_deck_row(deck), end_section=number == len(data["books"]))
    table.add_row("total", *_deck_row(data), style="bold")
    out = stdout()
    out.print(table)
    if data["proposed"]:
        out.print(f"{data['proposed']} proposed cards wait for `zettelgraph cards review`")


def _deck_row(deck: dict[str, Any]) -> list[str]:
    retention = deck["retention"]
    shown = f"{retention:.0%} of {deck['retention_reviews']}" if retention is not None else "—"
    keys = ("due_now", "due_today", "new", "learning", "review")
    return [*(str(deck[key]) for key in keys), shown]
