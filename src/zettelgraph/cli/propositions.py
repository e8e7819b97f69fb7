"""`zettelgraph propositions make CONTENT` and `propositions show PASSAGE`: a content's passages
split into self-contained statements, which a search recipe with a proposition weight matches
(the work is `services/propositions.py`'s; this module shows it)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from zettelgraph.cli.common import JsonOption, command_services, print_json, stdout
from zettelgraph.cli.output import styled

propositions_app = typer.Typer(
    help="Split passages into self-contained statements (one LLM call per passage).",
    no_args_is_help=True,
)


@propositions_app.command("make")
def make(
    ctx: typer.Context,
    content: Annotated[str, typer.Argument(help="Content id (or a unique prefix).")],
    again: Annotated[
        bool,
        typer.Option("--again", help="Also redo passages that already have propositions."),
    ] = False,
    sentences: Annotated[
        bool,
        typer.Option(
            "--sentences",
            help="Take each sentence as a statement: no LLM call, no pronoun resolved.",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Split each passage of CONTENT into propositions (pronouns resolved, one claim each),
    stored and embedded with the passage. Costs one call of the fast model per passage
    (none with --sentences); passages that already have propositions are skipped unless
    --again."""
    reports = make_for_contents(ctx, [content], again=again, sentences=sentences, quiet=as_json)
    if as_json:
        print_json(reports[0])


def make_for_contents(
    ctx: typer.Context,
    content_ids: list[str],
    *,
    again: bool = False,
    sentences: bool = False,
    quiet: bool,
) -> list[dict[str, Any]]:
    """Make the propositions of each content (`ingest --propositions` too); the reports."""
    from zettelgraph.services.propositions import PropositionError, make_propositions
    from zettelgraph.store.base import EmbedderMismatchError

    reports: list[dict[str, Any]] = []
    with command_services(ctx, PropositionError, EmbedderMismatchError, model=True) as services:
        for content_id in content_ids:
            report = make_propositions(services, content_id, again=again, sentences=sentences)
            reports.append(report.as_dict())
            if not quiet:
                _print_report(report.as_dict())
    return reports


@propositions_app.command("show")
def show(
    ctx: typer.Context,
    passage: Annotated[str, typer.Argument(help="Passage id (or a unique prefix).")],
    as_json: JsonOption = False,
) -> None:
    """The propositions made from one passage, in order."""
    from zettelgraph.services.propositions import PropositionError, passage_propositions

    with command_services(ctx, PropositionError) as services:
        quote, found = passage_propositions(services, passage)
    if as_json:
        print_json(
            {"passage_id": quote.id, "text": quote.text, "propositions": [p.text for p in found]}
        )
        return
    out = stdout()
    out.print(quote.text, markup=False)
    if not found:
        out.print(f"no propositions yet: `zettelgraph propositions make {quote.content_id[:8]}`")
    for number, proposition in enumerate(found, start=1):
        out.print(f"{number}. {proposition.text}", markup=False)


def _print_report(report: dict[str, Any]) -> None:
    out = stdout()
    out.print(
        f"{report['title']}: {report['propositions']} propositions from "
        f"{report['passages']} passages ({report['skipped']} already had them, "
        f"{report['dropped']} statements dropped)",
        markup=False,
    )
    for warning in report["warnings"]:
        out.print(styled("[yellow]warning:[/] {}", warning))
