"""`zettelgraph contents` and `zettelgraph show CONTENT_ID`."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from zettelgraph.cli.common import (
    JsonOption,
    command_services,
    print_json,
    resolve_content_id,
    stdout,
)
from zettelgraph.cli.output import count, id_table, styled


def list_contents(
    ctx: typer.Context,
    as_json: JsonOption = False,
) -> None:
    """List every Content in the store with its author and number of quotes."""
    from zettelgraph.services.browse import content_rows

    with command_services(ctx) as services:
        rows = content_rows(services.store)
    if as_json:
        print_json(rows)
        return
    table = id_table(count(len(rows), "content"), ("id", "title", "author", "quotes", "processed"))
    for row in rows:
        processed = row["processed_date"].date().isoformat() if row["processed_date"] else ""
        table.add_row(
            row["id"][:8], row["title"], row["author"] or "", str(row["quotes"]), processed
        )
    stdout().print(table)


def show(
    ctx: typer.Context,
    content_id: Annotated[str, typer.Argument(help="Content id, or its first characters.")],
    as_json: JsonOption = False,
) -> None:
    """Show one Content: summary, author and its quotes with section and page."""
    with command_services(ctx) as services:
        cid = resolve_content_id(services, content_id)
        content = services.store.get_content(cid)
        assert content is not None
        author = services.store.author_of(cid)
        quotes = services.store.quotes_of(cid)
    data: dict[str, Any] = {
        **content.model_dump(mode="json"),
        "author": author.model_dump(mode="json") if author else None,
        "quotes": [
            {"id": q.id, "section": q.section, "page": q.page, "text": q.text} for q in quotes
        ],
    }
    if as_json:
        print_json(data)
        return
    out = stdout()
    out.print(styled("[bold]{}[/]", content.title) + (f" — {author.name}" if author else ""))
    out.print(f"id: {content.id}")
    if content.summary:
        out.print(f"\n{content.summary}\n")
    section: str | None = None
    for quote in quotes:
        if quote.section != section:
            section = quote.section
            out.print(styled("\n[bold cyan]## {}[/]", section or "(no section)"))
        page = styled("  [dim](p. {})[/]", quote.page) if quote.page else ""
        out.print(styled("- {}", quote.text) + page)


def passage(
    ctx: typer.Context,
    passage_id: Annotated[str, typer.Argument(help="Passage id (search prints it).")],
    around: Annotated[
        int, typer.Option("--around", min=0, max=20, help="Passages to show on each side.")
    ] = 1,
    as_json: JsonOption = False,
) -> None:
    """Show a passage in context: the passages read just before and after it."""
    from zettelgraph.services.browse import UnknownPassageError, passage_in_context

    with command_services(ctx, UnknownPassageError) as services:
        view = passage_in_context(services.store, passage_id, around)
    if as_json:
        print_json(view)
        return
    out = stdout()
    here = view["passage"]
    where = ", ".join(part for part in (here["content"], here["location_label"]) if part)
    out.print(styled("[bold]{}[/]", where))
    for row in view["before"]:
        out.print(row["text"], style="dim")
    out.print(styled("[bold]{}[/]", here["text"]))
    for row in view["after"]:
        out.print(row["text"], style="dim")
