"""`zettelgraph link A B TYPE --why TEXT`: the reader's own relation between two concepts."""

from __future__ import annotations

from typing import Annotated

import typer

from zettelgraph.cli.common import (
    JsonOption,
    command_services,
    print_json,
    stdout,
)
from zettelgraph.cli.output import count, repaired_line, styled


def link(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(help="Concept id, its first characters, or its title.")],
    target: Annotated[str, typer.Argument(help="The other concept, named the same way.")],
    relation_type: Annotated[
        str, typer.Argument(metavar="TYPE", help="A concept relation type, e.g. SUPPORTS.")
    ],
    why: Annotated[
        str, typer.Option("--why", help="Why the two ideas are related (kept with the link).")
    ],
    as_json: JsonOption = False,
) -> None:
    """Relate two existing concepts yourself: the reverse is added, the link is marked as
    yours (provenance "reader") and both vault notes are rewritten. Extraction runs never
    change relations between existing concepts; this is how you do."""
    from zettelgraph.services.links import LinkError, link_concepts

    with command_services(ctx, LinkError) as services:
        result = link_concepts(services, source, target, relation_type, why)
    if as_json:
        print_json(result.as_dict())
    else:
        out = stdout()
        out.print(f"{result.source} -[{result.type}]-> {result.target}")
        if result.reverse_type and result.reverse_type != result.type:
            out.print(f"{result.target} -[{result.reverse_type}]-> {result.source} (reverse)")
        notes = len(result.notes_written) + len(result.notes_updated)
        out.print(f"{count(notes, 'vault note')} written", style="dim")
        if repaired := repaired_line(result.notes_repaired):
            out.print(repaired, style="dim")
        for error in result.vault_errors:
            out.print(styled("[yellow]note not written:[/] {}", error))
    if result.vault_errors:
        # The link is in the graph; only the notes lag (`vault sync` repairs them).
        raise typer.Exit(1)
