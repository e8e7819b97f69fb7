"""`zettelgraph packs list | show NAME | validate FILE`: the template packs and their types."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from zettelgraph.cli.common import JsonOption, print_json, settings_from, stdout
from zettelgraph.cli.output import count, fail, styled

if TYPE_CHECKING:
    from zettelgraph.packs.schema import Pack, PackSchema

packs_app = typer.Typer(
    help="Template packs: the entity and relationship types of your graph.",
    no_args_is_help=True,
)

JsonFlag = JsonOption


@packs_app.command("list")
def list_packs(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Every pack you can activate, where its file is, and whether it is active
    (ZETTELGRAPH_PACKS). A pack that does not load is listed with its error."""
    from zettelgraph.packs.loader import pack_files, read_pack
    from zettelgraph.packs.schema import PackError

    settings = settings_from(ctx)
    try:
        files = pack_files(settings)
    except PackError as exc:
        fail(str(exc))
    rows: list[dict[str, Any]] = []
    for name, found in sorted(files.items()):
        row: dict[str, Any] = {
            "name": name,
            "active": name in settings.packs,
            "source": "shipped" if found.shipped else "user",
            "path": str(found.path),
            "replaces": str(found.replaces) if found.replaces else None,
        }
        try:
            pack = read_pack(found.path, expected_name=name)
        except PackError as exc:
            row["error"] = str(exc)
        else:
            row.update(
                version=pack.version,
                description=pack.description,
                entity_types=[e.name for e in pack.entity_types],
                relationship_types=len(pack.relationship_types),
            )
        rows.append(row)
    missing = [name for name in settings.packs if name not in files]
    if as_json:
        print_json({"packs": rows, "active": settings.packs, "missing": missing})
        return
    console = stdout()
    for row in rows:
        mark = "*" if row["active"] else " "
        where = row["source"] + (" (replaces the shipped one)" if row["replaces"] else "")
        if "error" in row:
            console.print(styled("{} {}  [red]does not load[/]  {}", mark, row["name"], where))
            console.print(f"    {row['error']}", soft_wrap=True)
            continue
        console.print(
            f"{mark} {row['name']} v{row['version']}  {where}  "
            f"{', '.join(row['entity_types'])}; "
            f"{count(row['relationship_types'], 'relationship type')}"
        )
    console.print(f"* active (ZETTELGRAPH_PACKS={','.join(settings.packs)})")
    if missing:
        fail(f"ZETTELGRAPH_PACKS names packs that do not exist: {', '.join(missing)}")


@packs_app.command("show")
def show(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="A pack name, as `packs list` shows it.")],
    as_json: JsonFlag = False,
    as_yaml: Annotated[
        bool, typer.Option("--yaml", help="Print the pack's file, to copy and edit.")
    ] = False,
) -> None:
    """A pack's entity types (with their properties) and relationship types (with their
    endpoints, reverse or symmetry, stance and colour)."""
    from zettelgraph.packs.loader import available_packs, load_packs
    from zettelgraph.packs.schema import PackError

    settings = settings_from(ctx)
    try:
        path = available_packs(settings).get(name)
        (pack,) = load_packs(settings, [name])
    except PackError as exc:
        fail(str(exc))
    assert path is not None
    if as_yaml:
        typer.echo(path.read_text(encoding="utf-8"), nl=False)
        return
    if as_json:
        print_json({"path": str(path), **pack.model_dump(mode="json")})
        return
    _print_pack(pack, path)


@packs_app.command("validate")
def validate(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="A pack YAML file.", show_default=False)],
    as_json: JsonFlag = False,
) -> None:
    """Check a pack file, on its own and merged with the active packs (in place of an active
    pack of its name). Exit 1 with `file:line: field: problem` for each problem found."""
    from zettelgraph.packs.loader import validate_file
    from zettelgraph.packs.schema import PackError

    settings = settings_from(ctx)
    try:
        pack, schema = validate_file(settings, file)
    except PackError as exc:
        if as_json:
            print_json({"valid": False, "file": str(file), "error": str(exc)})
            raise typer.Exit(1) from None
        fail(str(exc))
    summary = _summary(pack, schema)
    if as_json:
        print_json({"valid": True, "file": str(file), **summary})
        return
    stdout().print(
        f"{file}: pack {pack.name!r} v{pack.version} is valid: "
        f"{count(len(pack.entity_types), 'entity type')}, "
        f"{count(len(pack.relationship_types), 'relationship type')}; "
        f"merged with {', '.join(summary['merged_with']) or 'no other pack'}",
        soft_wrap=True,
    )


def _summary(pack: Pack, schema: PackSchema) -> dict[str, Any]:
    return {
        "name": pack.name,
        "version": pack.version,
        "entity_types": [e.name for e in pack.entity_types],
        "relationship_types": [r.name for r in pack.relationship_types],
        "merged_with": [p.name for p in schema.packs if p.name != pack.name],
    }


def _print_pack(pack: Pack, path: Path) -> None:
    from rich.table import Table
    from rich.text import Text

    console = stdout()
    console.print(styled("[bold]{}[/] v{}  [dim]{}[/]", pack.name, pack.version, path))
    if pack.description:
        console.print(pack.description)
    for hint in pack.prompt_hints:
        console.print(styled("  [dim]hint:[/] {}", hint))
    entities = Table(title="Entity types", title_justify="left")
    for column in ("type", "properties", "description"):
        entities.add_column(column)
    for entity in pack.entity_types:
        properties = ", ".join(f"{p.name} ({p.type})" for p in entity.properties)
        entities.add_row(entity.name, properties or "-", entity.description)
    console.print(entities)
    relations = Table(title="Relationship types", title_justify="left")
    for column in ("type", "from -> to", "reverse", "stance", "colour", "description"):
        relations.add_column(column)
    for spec in pack.relationship_types:
        reverse = "symmetric" if spec.symmetric else spec.reverse or "one-way"
        colour = Text.assemble(("■", spec.color), f" {spec.color}") if spec.color else "-"
        relations.add_row(
            spec.name,
            f"{'|'.join(spec.source_types)} -> {'|'.join(spec.target_types)}",
            reverse,
            spec.stance,
            colour,
            spec.description,
        )
    console.print(relations)
