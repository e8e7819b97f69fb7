"""`zettelgraph store copy`: move a whole graph between the embedded store and a server."""

from __future__ import annotations

from typing import Annotated

import typer

from zettelgraph.cli.common import fail, print_json, settings_from, stderr, stdout

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
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Copy every node, relation and vector to another store, then verify the counts.

    The target must be empty. If the copy is interrupted, run the same command again: it
    resumes where it stopped.
    """
    from zettelgraph.services.maintenance import copy_graph
    from zettelgraph.settings import mask_url_password
    from zettelgraph.store.base import StoreError

    err = stderr()
    try:
        report = copy_graph(
            settings_from(ctx),
            to,
            source_url=source,
            progress=lambda phase, count: err.print(f"  {phase}: {count}", highlight=False),
        )
    except StoreError as exc:
        fail(str(exc))
    if as_json:
        print_json(report.as_dict())
        return
    counts = ", ".join(f"{key} {value}" for key, value in report.counts.items())
    stdout().print(
        f"copied {mask_url_password(report.source)} -> {mask_url_password(report.target)}"
        f"{' (resumed)' if report.resumed else ''}; verified: {counts}",
        highlight=False,
    )
