"""`zettelgraph export`: what zettelgraph knows, in other tools' formats. `export prov` writes
the W3C PROV provenance of a concept, a run, an experiment or the whole graph."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from zettelgraph.cli.common import command_services, fail, stderr
from zettelgraph.services.provenance import FORMATS, SCOPES

export_app = typer.Typer(
    help="Export what zettelgraph knows to other tools' formats (W3C PROV).",
    no_args_is_help=True,
)


@export_app.command("prov")
def prov(
    ctx: typer.Context,
    concept: Annotated[
        str | None, typer.Option("--concept", help="One concept (id or its first characters).")
    ] = None,
    run: Annotated[
        str | None,
        typer.Option("--run", help="What one run wrote (extraction run, or card generation)."),
    ] = None,
    experiment: Annotated[
        str | None, typer.Option("--experiment", help="One experiment (exp-...).")
    ] = None,
    everything: Annotated[bool, typer.Option("--all", help="The whole graph.")] = False,
    fmt: Annotated[str, typer.Option("--format", help=f"One of: {', '.join(FORMATS)}.")] = "jsonld",
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write to this file (atomically), not stdout."),
    ] = None,
) -> None:
    """W3C PROV provenance: where each concept, relation and card came from (its quotes and
    books, the run and LLM calls that proposed it, your approval), as JSON-LD, Turtle or
    PROV-N."""
    from zettelgraph.services.provenance import (
        ProvenanceError,
        export_provenance,
        load_experiment,
        write_export,
    )

    if sum([concept is not None, run is not None, experiment is not None, everything]) != 1:
        fail(f"give exactly one of {SCOPES}", code=2)
    if fmt not in FORMATS:
        fail(f"unknown format {fmt!r}; choose one of: {', '.join(FORMATS)}", code=2)
    with command_services(ctx, ProvenanceError) as services:
        record = load_experiment(services, experiment) if experiment is not None else None
        text = export_provenance(
            services,
            concept=concept,
            run=run,
            experiment=record,
            everything=everything,
            fmt=fmt,
        )
    if output is None:
        sys.stdout.write(text)
        return
    try:
        write_export(output, text)
    except OSError as exc:
        fail(f"{output}: {exc.strerror or exc}")
    stderr().print(f"wrote {output} ({len(text.encode('utf-8')):,} bytes)", highlight=False)
