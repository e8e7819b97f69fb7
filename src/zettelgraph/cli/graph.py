"""`zettelgraph graph-extract`: entities and relationships of a template pack from one content,
up to your review (answered with `zettelgraph review RUN_ID`, shown by `cli/graph_view.py`)."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from zettelgraph.cli.common import JsonOption, resolve_content_id
from zettelgraph.cli.extract import _show, drive_with_progress, open_graph_runs


def graph_extract(
    ctx: typer.Context,
    content_id: Annotated[str, typer.Argument(help="Content id (or its first characters).")],
    pack: Annotated[
        list[str] | None,
        typer.Option(
            "--pack",
            help="Template pack to extract with (repeat for several); default: the active "
            "packs (ZETTELGRAPH_PACKS). `zettelgraph packs list` shows them.",
        ),
    ] = None,
    suggest: Annotated[
        str | None, typer.Option("--suggest", help="Hints for the extraction.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Extract a pack's entities and relationships from a content's passages, up to your
    review: `zettelgraph review RUN_ID --approve | --feedback TEXT | --abort`."""
    started = time.monotonic()
    with open_graph_runs(ctx) as runs:
        cid = resolve_content_id(runs.services, content_id)
        view = drive_with_progress(
            lambda step: runs.start(cid, packs=pack or None, suggestions=suggest, on_step=step),
            started,
        )
    _show(view, as_json)
    if view.status == "failed":
        raise typer.Exit(1)
