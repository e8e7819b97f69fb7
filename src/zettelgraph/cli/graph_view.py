"""Rich rendering of a graph extraction run and its review report for the terminal."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from zettelgraph.cli.output import count, repaired_line, styled
from zettelgraph.cli.report_view import (
    FULL_HINT,
    cut_short,
    item_mark,
    listed_quote,
    print_run_end,
    print_run_title,
)


def print_graph_run(console: Console, run: dict[str, Any], *, full: bool = False) -> None:
    """A graph extraction run: its proposal, what was dropped and why, and what to do next;
    each entity's first passage whole with `full`, else cut with an ellipsis."""
    print_run_title(console, run)
    report = run.get("report")
    if report:
        _print_report(console, report, full)
        passages = [p["text"] for e in report["entities"] for p in e["passages"][:1]]
        if cut_short(passages, full):
            console.print(styled(FULL_HINT, run["run_id"]))
    committed = run.get("committed") or {}
    if committed:
        new = count(len(committed.get("entities_new", [])), "new entity", "new entities")
        console.print(
            f"written: {new}, "
            f"{len(committed.get('entities_updated', []))} updated, "
            f"{count(committed.get('relationships', 0), 'relationship')}; "
            f"notes: {committed.get('notes_written', 0)} new, "
            f"{committed.get('notes_updated', 0)} updated"
        )
        if repaired := repaired_line(committed.get("notes_repaired") or []):
            console.print(repaired)
    # The drops are listed with the report already.
    shown = frozenset(d["message"] for d in (report or {}).get("dropped", []))
    print_run_end(console, run, shown)


def _print_report(console: Console, report: dict[str, Any], full: bool) -> None:
    packs = ", ".join(f"{p['name']} {p['version']}" for p in report.get("packs", []))
    counts = report["counts"]
    console.print(
        styled(
            "\n[bold]{}[/], {} already in the graph, {} from {} (pack {})",
            count(counts["entities_new"], "new entity", "new entities"),
            counts["entities_existing"],
            count(counts["relationships"], "relationship"),
            count(report["passages"], "passage"),
            packs,
        )
    )
    for entity in report["entities"]:
        mark = "new" if entity["status"] == "new" else f"in the graph, by {entity['matched_by']}"
        key = f"{entity['key']}. " if entity.get("key") else ""
        console.print(
            styled("\n[bold green]{}{}[/] ({}, {})", key, entity["name"], entity["type"], mark)
            + item_mark(entity)
        )
        if entity["description"]:
            console.print(f"  {entity['description']}")
        for key, value in entity["properties"].items():
            console.print(styled("  [dim]{}:[/] {}", key, value))
        others = [n for n in entity["names"] if n != entity["name"]]
        if others:
            console.print(styled("  [dim]also:[/] {}", ", ".join(others)))
        for passage in entity["passages"][:1]:
            console.print(styled("  [dim]>[/] {}", listed_quote(passage["text"], full)))
    if report["relationships"]:
        console.print(styled("\n[bold]Relationships[/]"))
        for r in report["relationships"]:
            why = Text(f"  {r['description']}", "dim") if r["description"] else Text()
            if r.get("confidence") is not None:
                why += Text(f" (confidence {r['confidence']:.2f})", "dim")
            key = f"{r['key']}. " if r.get("key") else ""
            shown = (r.get("decision") or {}).get("type") or r["type"]
            console.print(
                Text(f"  {key}{r['source']} -[{shown}]-> {r['target']}") + why + item_mark(r)
            )
    if report["already_stored"]:
        console.print(
            f"\nAlready in the graph (not written again): {', '.join(report['already_stored'])}",
            style="dim",
        )
    if report["dropped"]:
        reasons = ", ".join(
            f"{n} {r.replace('_', ' ')}" for r, n in report["dropped_by_reason"].items()
        )
        console.print(styled("\n[bold yellow]Dropped[/] ({})", reasons))
        for item in report["dropped"]:
            console.print(f"  {item['message']}")
    usage = report["usage"]
    console.print(
        f"\n{count(usage['calls'], 'LLM call')}, {usage['input_tokens']} tokens in, "
        f"{usage['output_tokens']} out",
        style="dim",
    )
    for entry in report.get("feedback_log", []):
        console.print(styled("[dim]feedback {}:[/] {}", entry["round"], entry["feedback"]))
    review = report.get("review")
    if review:
        writes = review.get("writes", {})
        counts = review.get("counts", {})
        console.print(
            styled(
                "\n[bold]Review:[/] {} kept, {} dropped, {} retyped, {} undecided; "
                "approving writes {}, {}",
                counts.get("kept", 0),
                counts.get("dropped", 0),
                counts.get("edited", 0),
                counts.get("undecided", 0),
                count(writes.get("entities", 0), "entity", "entities"),
                count(writes.get("relationships", 0), "relationship"),
            )
        )
        for gone in review.get("left_out", []):
            console.print(f"  left out {gone}", style="dim")
