"""Rich rendering of a graph extraction run and its review report for the terminal."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape

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
            console.print(FULL_HINT.format(run["run_id"]), highlight=False)
    committed = run.get("committed") or {}
    if committed:
        console.print(
            f"written: {len(committed.get('entities_new', []))} new entities, "
            f"{len(committed.get('entities_updated', []))} updated, "
            f"{committed.get('relationships', 0)} relationships; "
            f"notes: {committed.get('notes_written', 0)} new, "
            f"{committed.get('notes_updated', 0)} updated"
        )
    # The drops are listed with the report already.
    shown = frozenset(d["message"] for d in (report or {}).get("dropped", []))
    print_run_end(console, run, shown)


def _print_report(console: Console, report: dict[str, Any], full: bool) -> None:
    packs = ", ".join(f"{p['name']} {p['version']}" for p in report.get("packs", []))
    counts = report["counts"]
    console.print(
        f"\n[bold]{counts['entities_new']} new entities[/], {counts['entities_existing']} "
        f"already in the graph, {counts['relationships']} relationships from "
        f"{report['passages']} passages (pack {packs})"
    )
    for entity in report["entities"]:
        mark = "new" if entity["status"] == "new" else f"in the graph, by {entity['matched_by']}"
        key = f"{entity['key']}. " if entity.get("key") else ""
        console.print(
            f"\n[bold green]{key}{escape(entity['name'])}[/] ({entity['type']}, {mark})"
            + item_mark(entity),
            highlight=False,
        )
        if entity["description"]:
            console.print(f"  {entity['description']}", highlight=False)
        for key, value in entity["properties"].items():
            console.print(f"  [dim]{key}:[/] {value}", highlight=False)
        others = [n for n in entity["names"] if n != entity["name"]]
        if others:
            console.print(f"  [dim]also:[/] {', '.join(others)}", highlight=False)
        for passage in entity["passages"][:1]:
            console.print(
                f"  [dim]>[/] {escape(listed_quote(passage['text'], full))}", highlight=False
            )
    if report["relationships"]:
        console.print("\n[bold]Relationships[/]")
        for r in report["relationships"]:
            why = f"  [dim]{escape(r['description'])}[/]" if r["description"] else ""
            key = f"{r['key']}. " if r.get("key") else ""
            shown = (r.get("decision") or {}).get("type") or r["type"]
            console.print(
                f"  {key}{escape(r['source'])} -[{shown}]-> {escape(r['target'])}{why}"
                + item_mark(r),
                highlight=False,
            )
    if report["already_stored"]:
        console.print(
            f"\n[dim]Already in the graph (not written again): "
            f"{', '.join(report['already_stored'])}[/]",
            highlight=False,
        )
    if report["dropped"]:
        reasons = ", ".join(
            f"{n} {r.replace('_', ' ')}" for r, n in report["dropped_by_reason"].items()
        )
        console.print(f"\n[bold yellow]Dropped[/] ({reasons})", highlight=False)
        for item in report["dropped"]:
            console.print(f"  {item['message']}", highlight=False)
    usage = report["usage"]
    console.print(
        f"\n[dim]{usage['calls']} LLM calls, {usage['input_tokens']} tokens in, "
        f"{usage['output_tokens']} out[/]"
    )
    for entry in report.get("feedback_log", []):
        console.print(f"[dim]feedback {entry['round']}:[/] {entry['feedback']}", highlight=False)
    review = report.get("review")
    if review:
        writes = review.get("writes", {})
        counts = review.get("counts", {})
        console.print(
            f"\n[bold]Review:[/] {counts.get('kept', 0)} kept, {counts.get('dropped', 0)} "
            f"dropped, {counts.get('edited', 0)} retyped, {counts.get('undecided', 0)} undecided; "
            f"approving writes {writes.get('entities', 0)} entities, "
            f"{writes.get('relationships', 0)} relationships",
            highlight=False,
        )
        for gone in review.get("left_out", []):
            console.print(f"  [dim]left out {escape(gone)}[/]", highlight=False)
