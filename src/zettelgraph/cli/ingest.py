"""`zettelgraph ingest PATH...`: book notes and documents into the store through the Quote
Parse Graph (the work is `services/ingest.py`'s; this module shows it)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from zettelgraph.cli.common import (
    command_services,
    fail,
    print_json,
    stderr,
    stdout,
)
from zettelgraph.cli.output import count, id_table, print_error, print_next, styled

if TYPE_CHECKING:
    from zettelgraph.context import Services


def ingest(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(help="Note files or folders of notes.")],
    title: Annotated[str | None, typer.Option(help="Title (beats the front matter).")] = None,
    author: Annotated[str | None, typer.Option(help="Author (beats the front matter).")] = None,
    file_type: Annotated[
        str | None,
        typer.Option(
            "--type",
            help="Read every file as: notes, pdf, docx, pptx, markdown, text, code, transcript, "
            "image (default: by file type and content).",
        ),
    ] = None,
    replace_kind: Annotated[
        bool,
        typer.Option(
            "--replace-kind",
            help="Let a file turn a stored content into another kind (book notes into a "
            "document, or back), replacing its quotes; without it such a file is refused.",
        ),
    ] = False,
    cards: Annotated[
        bool,
        typer.Option(
            "--cards",
            help="Also propose cards (flashcards, clozes, multiple choice, code and figure "
            "cards) straight from the passages; they wait for `zettelgraph cards review`.",
        ),
    ] = False,
    propositions: Annotated[
        bool,
        typer.Option(
            "--propositions",
            help="Also split each passage into self-contained statements for search "
            "(one call of the fast model per passage; `propositions make` later does the same).",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON report.")] = False,
) -> None:
    """Read book notes ('# Citas' section) and documents (PDF, Word, slides, Markdown, text,
    code, chat transcripts, images through OCR) into the graph: Contents, authors, sections
    and passages."""
    reports, errors, skipped = ingest_files(
        ctx,
        paths,
        title,
        author,
        file_type=file_type,
        replace_kind=replace_kind,
        cards=cards,
        quiet=as_json,
    )
    made: list[dict[str, Any]] = []
    if propositions and reports:
        from zettelgraph.cli.propositions import make_for_contents

        made = make_for_contents(ctx, [r["id"] for r in reports], quiet=as_json)
    if as_json:
        out: dict[str, Any] = {"contents": reports, "errors": errors, "skipped": skipped}
        if propositions:
            out["propositions"] = made
        print_json(out)
    if errors:
        raise typer.Exit(1)


def ingest_files(
    ctx: typer.Context,
    paths: list[Path],
    title: str | None = None,
    author: str | None = None,
    *,
    file_type: str | None = None,
    replace_kind: bool = False,
    cards: bool = False,
    quiet: bool,
    usage: dict[str, Any] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, str]], list[dict[str, str]]]:
    """Ingest and (unless quiet) print the human report: reports, errors and skipped files.

    `usage`, when given, receives the LLM usage per call name (summaries, author notes)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from zettelgraph.services.ingest import IngestError, ingest_paths
    from zettelgraph.store.base import EmbedderMismatchError

    progress = Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        console=stderr(),
        # Off a terminal a live display draws nothing but a stray blank line.
        disable=quiet or not stderr().is_terminal,
        transient=True,
    )
    task = progress.add_task("ingesting", total=None)

    def show(done: int, total: int, what: str) -> None:
        progress.update(task, completed=done, total=total, description=what)

    with command_services(ctx, EmbedderMismatchError) as services:
        try:
            with progress:
                result = ingest_paths(
                    services,
                    paths,
                    title=title,
                    author=author,
                    file_type=file_type,
                    replace_kind=replace_kind,
                    cards=cards,
                    on_progress=show,
                )
        except IngestError as exc:  # a path or file type given wrong: a usage error
            fail(str(exc), code=2)
    if usage is not None:
        usage.update(services.usage.as_dict())
    if not quiet:
        _print_report(result.reports, result.errors, result.skipped, services)
    return result.reports, result.errors, result.skipped


def _print_report(
    reports: list[dict[str, Any]],
    errors: list[dict[str, str]],
    skipped: list[dict[str, str]],
    services: Services,
) -> None:
    out = stdout()
    if reports:
        columns = ("id", "title", "author", "kind", "status", "passages", "new")
        table = id_table("Ingested", columns)
        for r in reports:
            table.add_row(
                r["id"][:8],
                r["title"],
                r["author"] or "",
                r["kind"],
                r["status"],
                str(r["quotes"]),
                str(r["quotes_added"]),
            )
        out.print(table)
    for r in reports:
        for warning in r["warnings"]:
            out.print(styled("[yellow]warning:[/] {}", warning))
        for text in r["removed_quotes"]:
            out.print(styled("[yellow]removed from the file, kept in the store:[/] {}", text[:80]))
    made = [r for r in reports if "cards" in r]
    for r in made:
        out.print(f"{r['title']}: {count(r['cards']['proposed'], 'card')} proposed")
    if any(r["cards"]["proposed"] for r in made):
        print_next(out, "zettelgraph cards review, then approve, drop or edit them")
    for item in skipped:
        out.print(f"skipped {item['path']}: {item['reason']}", style="dim")
    for error in errors:
        print_error(out, error["error"])
    usage = services.usage.as_dict()
    if usage:
        calls = sum(int(u["calls"]) for u in usage.values())
        tokens_in = sum(int(u["input_tokens"]) for u in usage.values())
        tokens_out = sum(int(u["output_tokens"]) for u in usage.values())
        out.print(f"LLM: {count(calls, 'call')}, {tokens_in} tokens in, {tokens_out} tokens out")
