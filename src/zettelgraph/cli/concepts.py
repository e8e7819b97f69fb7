"""`zettelgraph concepts`, `concept ID` and `vault sync`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from zettelgraph.cli.common import (
    JsonOption,
    command_services,
    concept_labels,
    print_json,
    resolve_concept_id,
    stdout,
)
from zettelgraph.cli.output import count, id_table, print_error, styled

vault_app = typer.Typer(help="The Obsidian vault: notes for every concept.", no_args_is_help=True)


def list_concepts(
    ctx: typer.Context,
    as_json: JsonOption = False,
) -> None:
    """List every concept with its number of relations and supporting quotes."""
    from zettelgraph.services.browse import concept_rows

    with command_services(ctx) as services:
        rows = concept_rows(services.store)
    if as_json:
        print_json(rows)
        return
    table = id_table(count(len(rows), "concept"), ("id", "title", "relations", "quotes"))
    for row in rows:
        table.add_row(row["id"][:8], row["title"], str(row["relations"]), str(row["quotes"]))
    stdout().print(table)


def show_concept(
    ctx: typer.Context,
    concept_id: Annotated[str, typer.Argument(help="Concept id, or its first characters.")],
    as_json: JsonOption = False,
) -> None:
    """One concept: its text, relations, supporting quotes and provenance."""
    from zettelgraph.services.browse import concept_detail

    with command_services(ctx) as services:
        store = services.store
        concept = store.get_concept(resolve_concept_id(services, concept_id))
        assert concept is not None
        data = concept_detail(store, concept)
    relations, quotes = data["relations"], data["quotes"]
    if as_json:
        print_json(data)
        return
    out = stdout()
    out.print(styled("[bold]{}[/]  [dim]{}[/]", concept.title, concept.id))
    out.print(concept.concept)
    if concept.analysis:
        out.print(styled("\n[dim]{}:[/] {}", concept_labels().analysis, concept.analysis))
    for rel in relations:
        out.print(f"  -[{rel['type']}]-> {rel['target']}")
    for q in quotes:
        page = f", p. {q['page']}" if q["page"] else ""
        out.print(styled("  > {} [dim]({}{})[/]", q["text"], q["content"], page))
    if concept.revisions:
        last = concept.revisions[-1]
        earlier = count(len(concept.revisions), "earlier version")
        out.print(
            f"\nedited by you, {last.replaced_at:%Y-%m-%d}; {earlier} "
            "(`--json` lists them, `zettelgraph concept edit` edits it)",
            style="dim",
        )
    provenance = concept.provenance
    if provenance:
        out.print(
            f"\nrun {provenance.get('run')}, model {provenance.get('model')}, approved "
            f"{provenance.get('approved_at')} after "
            f"{count(provenance.get('feedback_rounds') or 0, 'feedback round')}",
            style="dim",
        )


@vault_app.command("sync")
def vault_sync(
    ctx: typer.Context,
    check: Annotated[
        bool, typer.Option("--check", help="Only report drift; write nothing.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Write missing or outdated files of the vault, of every kind: concept, book, author and
    entity notes, card files, experiment notes (after a crash, or edits in the store)."""
    from dataclasses import asdict

    from zettelgraph.services.maintenance import sync_notes

    with command_services(ctx) as services:
        report = sync_notes(services, check=check)
    data = {**asdict(report), "kinds": report.by_kind()}
    if as_json:
        print_json(data)
    else:
        out = stdout()
        # --check writes nothing, so it says what differs rather than "0 written".
        done = "" if check else f"{len(report.written)} written, {len(report.updated)} updated, "
        out.print(
            f"{done}{report.unchanged} unchanged, {len(report.drift)} drifted, "
            f"{count(len(report.errors), 'error')}"
            + ("; nothing written (--check)" if check else "")
        )
        left = "left by an interrupted write" if check else "removed"
        root = services.settings.vault_path

        def shown(path: str) -> str:
            # Inside the vault, its path there: what the reader sees in Obsidian.
            inside = Path(path).is_relative_to(root)
            return Path(path).relative_to(root).as_posix() if inside else path

        for kind, found in data["kinds"].items():
            if found["drift"] or found["temp_files"] or found["errors"]:
                out.print(
                    f"  {kind}s: {found['drift']} drifted, "
                    f"{count(found['temp_files'], 'temporary file')}, "
                    f"{count(found['errors'], 'error')}"
                )
            for item in report.drift:
                if item["kind"] == kind:
                    title, reason = item.get("title"), item.get("reason")
                    out.print(
                        f"    {title} ({reason}): {shown(item['path'])}",
                        soft_wrap=True,
                        markup=False,
                    )
            for temp in report.temp_files:
                if temp["kind"] == kind:
                    out.print(
                        f"    temporary file {left}: {shown(temp['path'])}",
                        soft_wrap=True,
                        markup=False,
                    )
        for item in report.errors:
            # The note's path in the vault, or, without one, its kind and node id.
            node = next((v for k, v in item.items() if k.endswith("_id")), "")
            where = shown(item["path"]) if item.get("path") else f"{item['kind']} {node}"
            print_error(out, f"{where}: {item['error']}", indent="  ")
    if report.errors or (check and (report.drift or report.temp_files)):
        raise typer.Exit(1)
