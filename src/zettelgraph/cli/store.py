"""`zettelgraph store copy`: move a whole graph between the embedded store and a server."""

from __future__ import annotations

from typing import Annotated

import typer

from zettelgraph.cli.common import JsonOption, fail, print_json, settings_from, stderr, stdout
from zettelgraph.cli.output import count_line

store_app = typer.Typer(help="Move your graph between stores.", no_args_is_help=True)


@store_app.command("copy")
def copy(
    ctx: typer.Context,
    to: Annotated[
        str,
        typer.Option(
            "--to",
            help="Target store URL (falkordb://..., neo4j://..., sqlite:///...).",
        ),
    ],
    source: Annotated[
        str | None,
        typer.Option("--from", help="Source store URL; default: the configured store."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Copy every node, relation and vector to another store, then verify the counts.

    The target must be empty. The app may keep writing meanwhile: from SQLite the copy is the
    graph as it was when the copy began; from a server it passes again until it has caught up.
    If the copy is interrupted or fails, run the same command again: it finishes it.
    """
    from rich.progress import Progress, SpinnerColumn, TextColumn

    from zettelgraph.services.maintenance import copy_graph
    from zettelgraph.store.base import StoreError
    from zettelgraph.text.masking import mask_url_password

    # A passing line per phase: the counts that matter are the verified ones at the end, and
    # an error (a target that is not empty) is not preceded by a list of numbers.
    err = stderr()
    copying = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}", markup=False),
        console=err,
        transient=True,
        disable=not err.is_terminal,  # a file or a pipe would get a stray blank line
    )
    task = copying.add_task("copying", total=None)
    try:
        with copying:
            report = copy_graph(
                settings_from(ctx),
                to,
                source_url=source,
                progress=lambda phase, done: copying.update(task, description=f"{phase}: {done}"),
            )
    except StoreError as exc:
        fail(str(exc))
    if as_json:
        print_json(report.as_dict())
        return
    stdout().print(
        f"copied {mask_url_password(report.source)} -> {mask_url_password(report.target)}"
        f"{' (resumed)' if report.resumed else ''}; verified: {count_line(report.counts)}"
    )
