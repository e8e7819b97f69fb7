"""The reader's corrections after the commit: `concept edit`, `concept delete`, `unlink`,
`contents remove` and `removals` (the rules are `services/corrections.py`'s and its
neighbours')."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from zettelgraph.cli.common import (
    JsonOption,
    command_services,
    fail,
    on_a_terminal,
    print_json,
    stdout,
)
from zettelgraph.cli.output import count, repaired_line

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from rich.console import Console

    from zettelgraph.context import Services
    from zettelgraph.services.corrections import NotesOutcome

YesOption = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")]
# The parts of a concept as the command's flags name them (the model's field names as keys).
_PARTS = {"title": "title", "concept": "statement", "analysis": "analysis"}


def corrections(ctx: typer.Context) -> AbstractContextManager[Services]:
    """The command's services; a correction the services refuse ends it with the reason."""
    from zettelgraph.services.corrections import CorrectionError

    return command_services(ctx, CorrectionError)


def _notes(out: Console, outcome: NotesOutcome) -> None:
    written = count(len(outcome.notes_written) + len(outcome.notes_updated), "vault note")
    moved = f", {len(outcome.notes_removed)} moved to the vault's .trash/"
    out.print(f"{written} written{moved if outcome.notes_removed else ''}", style="dim")
    if repaired := repaired_line(outcome.notes_repaired):
        out.print(repaired, style="dim")
    for error in outcome.vault_errors:
        out.print(f"note not written: {error}", style="yellow")


def _finish(outcome: NotesOutcome) -> None:
    if outcome.vault_errors:
        # The correction is in the graph; only the notes lag (`vault sync` repairs them).
        raise typer.Exit(1)


def _confirmed(question: str, yes: bool) -> None:
    """Go on with `--yes` or a "yes" at the prompt; off a terminal without `--yes`, stop."""
    if yes:
        return
    if not on_a_terminal():
        fail("nothing removed: add --yes to remove without a prompt", code=2)
    if not typer.confirm(question, default=False):
        fail("nothing removed", code=1)


def _listed(items: list[str], limit: int = 8) -> str:
    more = f"; and {len(items) - limit} more" if len(items) > limit else ""
    return "; ".join(items[:limit]) + more


# --- concept edit ---------------------------------------------------------------------------


def edit(
    ctx: typer.Context,
    concept: Annotated[str, typer.Argument(help="Concept id, its first characters, or its title.")],
    title: Annotated[str | None, typer.Option("--title", help="The new title.")] = None,
    statement: Annotated[
        str | None, typer.Option("--statement", help="The new statement (the idea).")
    ] = None,
    analysis: Annotated[str | None, typer.Option("--analysis", help="The new analysis.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Rewrite a concept's title, statement or analysis (in $EDITOR without any of them).
    The text it replaces is kept as an earlier version, recorded as the model's or yours;
    the summaries follow the statement, and the note is rewritten."""
    from zettelgraph.services.concept_edits import edit_concept
    from zettelgraph.services.corrections import concept_named

    with corrections(ctx) as services:
        if title is None and statement is None and analysis is None:
            title, statement, analysis = _from_editor(concept_named(services.store, concept))
        result = edit_concept(
            services, concept, title=title, statement=statement, analysis=analysis
        )
    if as_json:
        print_json(result.as_dict())
    else:
        out = stdout()
        edited = result.concept
        if not result.changed:
            out.print(f"nothing changed in {edited.title!r}")
            return
        parts = ", ".join(_PARTS[name] for name in result.changed)
        out.print(f"edited {edited.title!r} ({edited.id[:8]}): {parts}")
        out.print(
            f"the earlier text is kept as version {len(edited.revisions)} "
            f"(`zettelgraph concept {edited.id[:8]} --json` shows it)",
            style="dim",
        )
        _notes(out, result.notes)
    _finish(result.notes)


def _from_editor(concept: Any) -> tuple[str | None, str | None, str | None]:
    """Title, statement and analysis as the reader leaves them in $EDITOR."""
    from zettelgraph.cli.editor import concept_in_editor

    return concept_in_editor(concept.title, concept.concept, concept.analysis)


# --- concept delete -------------------------------------------------------------------------


def delete(
    ctx: typer.Context,
    concept: Annotated[str, typer.Argument(help="Concept id, its first characters, or its title.")],
    yes: YesOption = False,
    as_json: JsonOption = False,
) -> None:
    """Delete a concept with its relations (both ways), its quote attributions (the quotes
    stay) and the cards that test it; its note goes to the vault's .trash/. Shows what goes
    and asks first, unless --yes."""
    from zettelgraph.services.corrections import concept_named
    from zettelgraph.services.deletions import delete_concept, plan_concept_deletion

    with corrections(ctx) as services:
        plan = plan_concept_deletion(services.store, concept_named(services.store, concept))
        if not yes:
            _show_concept_plan(plan.as_dict(), as_json)
        _confirmed(f"Delete {plan.concept.title!r}?", yes)
        result = delete_concept(services, plan.concept.id)
    if as_json:
        print_json(result.as_dict())
    else:
        out = stdout()
        data = result.as_dict()
        relations = sum(not r["reverse"] for r in data["relations"])
        out.print(
            f"deleted {data['title']!r}: {count(relations, 'relation')} (with their reverses), "
            f"{count(data['attributions'], 'quote attribution')}, "
            f"{count(len(data['cards']), 'card')}",
        )
        _notes(out, result.notes)
    _finish(result.notes)


def _show_concept_plan(data: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print_json(data)
        return
    out = stdout()
    out.print(f"Deleting {data['title']!r} ({data['concept_id'][:8]}) takes:")
    rows = [
        f"{r['source']} -[{r['type']}]-> {r['target']}"
        for r in data["relations"]
        if not r["reverse"]
    ]
    out.print(f"  {count(len(rows), 'relation')} (with their reverses): {_listed(rows) or '-'}")
    out.print(f"  {count(data['attributions'], 'quote attribution')} (the quotes stay)")
    fronts = [c["front"] for c in data["cards"]]
    out.print(f"  {count(len(fronts), 'card')} that test it: {_listed(fronts) or '-'}")
    out.print("  its vault note (moved to the vault's .trash/)")


# --- unlink ---------------------------------------------------------------------------------


def unlink(
    ctx: typer.Context,
    names: Annotated[
        list[str],
        typer.Argument(
            metavar="A [TYPE] B",
            help="Two concepts (id, first characters or title), and between them the type "
            "when more than one relation joins them.",
        ),
    ],
    as_json: JsonOption = False,
) -> None:
    """Remove a relation between two concepts, with its reverse (or symmetric twin); the
    cards that ask how the two relate go with it, and both vault notes are rewritten."""
    from zettelgraph.services.deletions import unlink_concepts

    if len(names) not in (2, 3):
        fail("give two concepts, or two concepts and the type between them: A [TYPE] B", code=2)
    source, target = names[0], names[-1]
    relation = names[1] if len(names) == 3 else None
    with corrections(ctx) as services:
        result = unlink_concepts(services, source, target, relation)
    if as_json:
        print_json(result.as_dict())
    else:
        out = stdout()
        plan = result.plan
        titles = {plan.source.id: plan.source.title, plan.target.id: plan.target.title}
        for number, edge in enumerate(plan.relations):
            said = f"{titles[edge.source_id]} -[{edge.type}]-> {titles[edge.target_id]}"
            out.print(f"removed {said}" if number == 0 else f"  and {said}")
        if plan.cards:
            fronts = _listed([c.front for c in plan.cards])
            out.print(f"  {count(len(plan.cards), 'card')} that asked how they relate: {fronts}")
        _notes(out, result.notes)
    _finish(result.notes)


# --- contents remove ------------------------------------------------------------------------


def remove_content(
    ctx: typer.Context,
    content: Annotated[str, typer.Argument(help="Content id, or its first characters.")],
    yes: YesOption = False,
    as_json: JsonOption = False,
) -> None:
    """Remove a content (a book, a document) with its passages, the concepts only it
    supports (with their relations and cards), the entities found only in it, and its author
    if no other content is theirs. Shows what goes and asks first, unless --yes. Refused while
    an extraction run of it is open."""
    from zettelgraph.cli.common import resolve_content_id
    from zettelgraph.cli.extract import open_every_run
    from zettelgraph.services.content_removal import open_run_message, plan_content_removal
    from zettelgraph.services.content_removal import remove_content as remove
    from zettelgraph.services.corrections import CorrectionError

    with open_every_run(ctx) as runs:
        services = runs[0].services
        try:
            plan = plan_content_removal(services.store, resolve_content_id(services, content))
            blocked = open_run_message(runs, plan.content)
            if blocked is not None:
                fail(blocked)
            if not yes:
                _show_content_plan(plan.as_dict(), as_json)
            _confirmed(f"Remove {plan.content.title!r}?", yes)
            result = remove(services, plan.content.id, runs)
        except CorrectionError as exc:
            fail(str(exc))
    if as_json:
        print_json(result.as_dict())
    else:
        out = stdout()
        data = result.as_dict()
        out.print(
            f"removed {data['title']!r}: {count(data['passages'], 'passage')}, "
            f"{count(len(data['concepts']), 'concept')}, {count(len(data['cards']), 'card')}, "
            f"{count(len(data['entities']), 'entity', 'entities')}"
            + (", its author" if data["author_removed"] else ""),
        )
        _notes(out, result.notes)
    _finish(result.notes)


def _show_content_plan(data: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print_json(data)
        return
    out = stdout()
    author = f" ({data['author']})" if data["author"] else ""
    out.print(f"Removing {data['title']!r}{author} takes:")
    out.print(f"  {count(data['passages'], 'passage')}, {count(data['sections'], 'section')}")

    def titles(rows: list[dict[str, str]], key: str = "title") -> str:
        return _listed([row[key] for row in rows]) or "-"

    out.print(
        f"  {count(len(data['concepts']), 'concept')} only it supports: {titles(data['concepts'])}",
    )
    out.print(
        f"  {count(data['relations'], 'relation')} of theirs (with their reverses), "
        f"{count(len(data['cards']), 'card')} that test them or cite it"
    )
    if data["entities"]:
        out.print(
            f"  {count(len(data['entities']), 'entity', 'entities')} found only in it: "
            f"{titles(data['entities'], 'name')}",
        )
    if data["author"]:
        fate = "goes (no other content is theirs)" if data["author_removed"] else "stays"
        out.print(f"  its author {data['author']} {fate}")
    if data["concepts_kept"]:
        out.print(f"  stay, losing its quotes: {titles(data['concepts_kept'])}")
    kept = {c["id"] for c in data["concepts_kept"]}
    related = [n for n in data["neighbours"] if n["id"] not in kept]
    if related:
        out.print(f"  stay, losing their relations to those that go: {titles(related)}")


# --- removals -------------------------------------------------------------------------------


def list_removals(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """What you removed from the graph (concepts, relations, contents), newest first, with
    what went with each."""
    from zettelgraph.services.corrections import removals

    with command_services(ctx) as services:
        found = removals(services.store)
    if as_json:
        print_json([removal.model_dump(mode="json") for removal in found])
        return
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"{len(found)} removals")
    for column in ("when", "what", "title", "with it", "by"):
        table.add_column(column, overflow="fold")
    for removal in found:
        table.add_row(
            removal.created_at.strftime("%Y-%m-%d %H:%M"),
            removal.kind,
            Text(removal.title),
            _with_it(removal),
            Text(removal.by),
        )
    stdout().print(table)


# How a removal's counts read (`Removal.counts` keys), in this order.
_COUNTED = {
    "Quote": "passages",
    "Section": "sections",
    "Concept": "concepts",
    "relations": "relations",
    "attributions": "quote attributions",
    "LearningItem": "cards",
    "Entity": "entities",
    "Person": "author",
}


def _with_it(removal: Any) -> str:
    counts = dict(removal.counts)
    if removal.kind == "concept":
        counts.pop("Concept", None)  # the concept itself
        counts["relations"] = len(removal.relations)
    return ", ".join(f"{counts[key]} {words}" for key, words in _COUNTED.items() if counts.get(key))
