"""`zettelgraph review RUN -i`: the reader's triage of a run, one item at a time, one key per
decision: the concept beside its quote, the doubtful first, a running count.

Every key that decides is saved with the run at once (`services/review.py`), so Ctrl-C, a
closed terminal or a crash loses nothing: `review RUN -i` again starts at the first item
still undecided. Past the last item the reader approves, gives feedback or leaves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
import typer
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from zettelgraph.cli.common import concept_labels, stderr, stdout
from zettelgraph.cli.output import styled
from zettelgraph.cli.report_view import item_mark, review_line

if TYPE_CHECKING:
    from zettelgraph.services.proposal_runs import ProposalRuns
    from zettelgraph.services.run_view import RunView

# Side by side from this terminal width; stacked below it (a phone's terminal, a split pane).
SIDE_BY_SIDE = 100
CONCEPT_KEYS = "[k]eep [d]rop [e]dit [m]erge [x] take a quote off [u]ndo [n]ext [b]ack [q]uit"
RELATION_KEYS = "[k]eep [d]rop [t]ype [u]ndo [n]ext [b]ack [q]uit"
SUGGESTION_KEYS = "[t]ype it to keep [d]rop [u]ndo [n]ext [b]ack [q]uit"
ENTITY_KEYS = "[k]eep [d]rop [u]ndo [n]ext [b]ack [q]uit"
END_KEYS = "All items seen. [a]pprove, [f]eedback to the model, [b]ack to the items, [q]uit"


def items_of(report: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(kind, item) in the order the review shows them: concepts (doubtful first), then
    relations (doubtful first), then the untyped suggestions."""
    out = [("concept", c) for c in report.get("concepts", [])]
    out += [("relation", r) for r in report.get("relations", [])]
    out += [("suggestion", s) for s in report.get("related", [])]
    # A graph extraction run's: its entities, then its relationships.
    out += [("entity", e) for e in report.get("entities", []) if e.get("key")]
    out += [("relation", r) for r in report.get("relationships", []) if r.get("key")]
    return out


def triage(runs: ProposalRuns, view: RunView) -> tuple[str, str | None]:
    """Decide item by item; the reader's last answer: approve, feedback (with text) or quit."""
    console = stdout()
    order = [item["key"] for _, item in items_of(view.report or {})]
    position = _first_undecided(view, order)
    try:
        while True:
            by_key = {item["key"]: (kind, item) for kind, item in items_of(view.report or {})}
            if position >= len(order):
                answer = _at_end(console, view)
                if answer is None:  # back to the items
                    position = max(0, len(order) - 1)
                    continue
                return answer
            kind, item = by_key[order[position]]
            _show(console, view, kind, item, position, len(order))
            key = click.getchar().lower()
            if key == "q":
                _saved(view)
                return "quit", None
            if key in ("n", " ", "\r", "\n"):
                position += 1
            elif key == "b":
                position = max(0, position - 1)
            elif key == "?":
                continue
            else:
                decision = _decision(console, view, kind, item, key)
                if decision is None:
                    continue
                changed = _apply(runs, view, decision)
                if changed is not None:
                    view = changed
                    position += 1
    except KeyboardInterrupt:
        _saved(view)
        raise typer.Exit(130) from None


def _first_undecided(view: RunView, order: list[str]) -> int:
    by_key = {item["key"]: item for _, item in items_of(view.report or {})}
    for index, key in enumerate(order):
        if not (by_key[key].get("decision") or {}).get("decided"):
            return index
    return len(order)


def _show(
    console: Console, view: RunView, kind: str, item: dict[str, Any], at: int, total: int
) -> None:
    summary = (view.report or {}).get("review") or {}
    console.rule(Text(f"[{at + 1}/{total}] {review_line(summary)}"), style="dim")
    if kind == "concept":
        left = Group(
            styled("[bold]{}. {}[/]", item["key"], item["title"]) + item_mark(item),
            Text(item["concept"]),
            *(
                [Text(f"{concept_labels().analysis}: {item['analysis']}", style="dim")]
                if item["analysis"]
                else []
            ),
        )
        right = Group(
            *(
                Text(
                    f"{q.get('key', '')} > {q['text']}"
                    + (f" (p. {q['page']})" if q.get("page") else ""),
                    style="italic",
                )
                for q in item["quotes"]
            )
        )
        if console.width >= SIDE_BY_SIDE:
            grid = Table.grid(padding=(0, 3), expand=True)
            grid.add_column(ratio=1)
            grid.add_column(ratio=1)
            grid.add_row(left, right)
            console.print(grid)
        else:
            console.print(left)
            console.print(right)
        console.print(CONCEPT_KEYS, style="cyan", markup=False, highlight=False)
        return
    if kind == "entity":
        console.print(
            styled(
                "[bold]{}. {}[/] ({}, {})",
                item["key"],
                item["name"],
                item["type"],
                item.get("status", ""),
            )
            + item_mark(item)
        )
        if item.get("description"):
            console.print(Text(item["description"]))
        for passage in item.get("passages", [])[:2]:
            console.print(Text(f"> {passage['text']}", style="italic"))
        console.print(ENTITY_KEYS, style="cyan", markup=False, highlight=False)
        return
    shown_type = (item.get("decision") or {}).get("type") or item.get("type")
    arrow = f"-[{shown_type}]->" if kind == "relation" else "~ related? ~"
    console.print(
        styled("[bold]{}.[/] {} {} {}", item["key"], item["source"], arrow, item["target"])
        + item_mark(item)
    )
    if item.get("explanation") or item.get("description"):
        console.print(Text(item.get("explanation") or item.get("description", ""), style="dim"))
    if kind == "suggestion":
        console.print(Text(f"(the model said {item['proposed_type']})", style="dim"))
    console.print(
        RELATION_KEYS if kind == "relation" else SUGGESTION_KEYS,
        style="cyan",
        markup=False,
        highlight=False,
    )


def _decision(console: Console, view: RunView, kind: str, item: dict[str, Any], key: str) -> Any:
    """The decision a key asks for (asking what else it needs), or None."""
    from zettelgraph.services.review import ItemDecision

    name = item["key"]
    simple = {"k": "keep", "d": "drop", "u": "undecide"}
    if key in simple and not (kind == "suggestion" and key == "k"):
        return ItemDecision(item=name, action=simple[key])
    if kind == "concept" and key == "e":
        from zettelgraph.cli.editing import edited_in_editor

        return edited_in_editor(view, name)
    if kind == "concept" and key == "m":
        into = typer.prompt("Merge into (c2, or an existing concept's id or title)", default="")
        return ItemDecision(item=name, action="merge", into=into) if into.strip() else None
    if kind == "concept" and key == "x":
        quote = typer.prompt("Take off which quote (q3)", default="")
        return (
            ItemDecision(item=name, action="remove_quote", quote=quote) if quote.strip() else None
        )
    if kind in ("relation", "suggestion") and key in ("t", "k"):
        given = typer.prompt("Type (e.g. SIMILAR_TO, OPPOSES)", default="")
        return ItemDecision(item=name, action="retype", type=given) if given.strip() else None
    console.print(f"'{key}' does nothing here; press ? to see the keys again", style="yellow")
    return None


def _apply(runs: ProposalRuns, view: RunView, decision: Any) -> RunView | None:
    """The run after the decision, saved; None (said why) when it does not fit."""
    from zettelgraph.services.review import ReviewError, decide

    try:
        return decide(runs, view.run_id, [decision])
    except ReviewError as exc:
        stderr().print(styled("[bold red]not saved:[/] {}", exc))
        return None


def _at_end(console: Console, view: RunView) -> tuple[str, str | None] | None:
    """The reader's answer past the last item; None to go back to the items."""
    summary = (view.report or {}).get("review") or {}
    console.rule(Text(review_line(summary)), style="dim")
    console.print(END_KEYS, style="cyan", markup=False, highlight=False)
    while True:
        key = click.getchar().lower()
        if key == "a":
            return "approve", None
        if key == "f":
            text = typer.prompt("Feedback (it applies to the items you have not decided)")
            return ("feedback", text) if text.strip() else ("quit", None)
        if key == "b":
            return None
        if key == "q":
            _saved(view)
            return "quit", None


def _saved(view: RunView) -> None:
    stderr().print(
        f"Your decisions are saved; `zettelgraph review {view.run_id} -i` goes on from the "
        "first undecided item.",
        highlight=False,
        markup=False,
    )
