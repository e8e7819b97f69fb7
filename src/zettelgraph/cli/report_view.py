"""Rich rendering of a run and its review report for the terminal."""

from __future__ import annotations

from typing import Any

from rich.console import Console


def print_run(console: Console, run: dict[str, Any]) -> None:
    print_run_title(console, run)
    report = run.get("report")
    if report:
        print_report(console, report)
    committed = run.get("committed") or {}
    if committed:
        console.print(
            f"written: {len(committed.get('concepts', []))} concepts, "
            f"{committed.get('relations', 0)} relations, "
            f"{committed.get('attributions', 0)} quote attributions; "
            f"notes: {len(committed.get('notes_written', []))} new, "
            f"{len(committed.get('notes_updated', []))} updated"
        )
    print_run_end(console, run)


def print_run_title(console: Console, run: dict[str, Any]) -> None:
    title = run.get("title") or run.get("content_id")
    console.print(f"[bold]run {run['run_id']}[/] — {title} — [cyan]{run['status']}[/]")


def print_run_end(
    console: Console, run: dict[str, Any], shown: frozenset[str] = frozenset()
) -> None:
    """The notes not written, the warnings (but those in `shown`), and what to do next."""
    for error in (run.get("committed") or {}).get("vault_errors", []):
        console.print(f"[red]note not written:[/] {error}", highlight=False)
    for warning in run.get("warnings", []):
        if warning not in shown:
            console.print(f"[yellow]warning:[/] {warning}", highlight=False)
    if run["status"] == "awaiting_review":
        console.print(
            f"\nNext: zettelgraph review {run['run_id']} --approve | --feedback TEXT | --abort"
        )
    elif run["status"] == "interrupted":
        console.print(f"\nNext: zettelgraph resume {run['run_id']}")


def print_report(console: Console, report: dict[str, Any]) -> None:
    console.print(
        f"\n[bold]{len(report['concepts'])} new concepts[/] from {report['quotes']} quotes"
    )
    for concept in report["concepts"]:
        console.print(f"\n[bold green]{concept['key']}. {concept['title']}[/]", highlight=False)
        console.print(f"  {concept['concept']}", highlight=False)
        if concept["analysis"]:
            console.print(f"  [dim]Análisis:[/] {concept['analysis']}", highlight=False)
        if concept["rationale"]:
            console.print(f"  [dim]Por qué:[/] {concept['rationale']}", highlight=False)
        for quote in concept["quotes"]:
            page = f" (p. {quote['page']})" if quote.get("page") else ""
            console.print(f"  [dim]>[/] {quote['text'][:160]}{page}", highlight=False)
    if report["relations"]:
        console.print("\n[bold]Relations[/] (the reverse is added automatically)")
        for r in report["relations"]:
            reverse = f"reverse {r['reverse']}" if r["reverse"] else "one-way"
            console.print(
                f"  {r['source']} -[{r['type']}]-> {r['target']}  "
                f"[dim]({r['confidence']:.2f}; {reverse}) {r['explanation']}[/]",
                highlight=False,
            )
    if report["existing_attributions"]:
        console.print("\n[bold]Quotes attributed to existing concepts[/]")
        for a in report["existing_attributions"]:
            console.print(f"  {a['concept']}: {a['quotes']} quotes", highlight=False)
    several = [a for a in report["attributions"] if a["several"]]
    if several:
        console.print("\n[bold]Quotes supporting several concepts[/]")
        for a in several:
            console.print(
                f"  {a['quote']['text'][:80]} -> {', '.join(a['concepts'])}", highlight=False
            )
    if report["unattributed_quotes"]:
        console.print("\n[bold yellow]Quotes supporting no concept[/]")
        for quote in report["unattributed_quotes"]:
            console.print(f"  {quote['text'][:120]}", highlight=False)
            if quote.get("reason"):
                console.print(f"    [dim]why:[/] {quote['reason']}", highlight=False)
    if report["disconnected_concepts"]:
        console.print(
            "\n[yellow]Concepts without relations:[/] "
            + ", ".join(report["disconnected_concepts"]),
            highlight=False,
        )
    # Reports of runs started before these fields existed have neither.
    notes = [*report.get("extraction_notes", []), *report.get("notes", [])]
    if notes:
        console.print("\n[bold]Notes from the model[/]")
        for note in notes:
            console.print(f"  {note}", highlight=False)
    checks = report.get("checks") or {}
    if checks:
        done = "; ".join(
            f"{guard}: "
            + ", ".join(f"{count} {action.replace('_', ' ')}" for action, count in actions.items())
            for guard, actions in checks.items()
        )
        console.print(
            f"\n[bold]Checks[/] {done} (each one is a 'check' warning below)", highlight=False
        )
    for entry in report["critique_log"]:
        verdict = "passes" if entry.get("passes") else "fails"
        summary = entry.get("critique_summary") or entry.get("error", "")
        console.print(f"[dim]critique {entry['iteration'] + 1}: {verdict}. {summary}[/]")
