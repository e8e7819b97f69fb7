"""Rich rendering of a run and its review report for the terminal."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.markup import escape

from zettelgraph.cli.card_view import clip

# Quotes listed apart from their concept (a quote supporting several concepts or none, an
# entity's passage) are cut to this many characters, with an ellipsis, unless `--full`.
LISTED_QUOTE_CHARS = 160
FULL_HINT = (
    "[dim](quotes ending in … are cut short: `zettelgraph review {} --full` shows them whole)[/]"
)


def listed_quote(text: str, full: bool) -> str:
    """A quote as a listing shows it: whole with `full`, else cut with an ellipsis."""
    return " ".join(text.split()) if full else clip(text, LISTED_QUOTE_CHARS)


def cut_short(texts: Iterable[str], full: bool) -> bool:
    """Whether `listed_quote` cuts any of `texts`."""
    return not full and any(listed_quote(t, full) != " ".join(t.split()) for t in texts)


def print_run(console: Console, run: dict[str, Any], *, full: bool = False) -> None:
    print_run_title(console, run)
    report = run.get("report")
    if report and print_report(console, report, full=full):
        console.print(FULL_HINT.format(run["run_id"]), highlight=False)
    committed = run.get("committed") or {}
    if committed:
        console.print(
            f"written: {len(committed.get('concepts', []))} concepts, "
            f"{committed.get('relations', 0)} relations, "
            f"{committed.get('attributions', 0)} quote attributions; "
            f"notes: {len(committed.get('notes_written', []))} new, "
            f"{len(committed.get('notes_updated', []))} updated"
        )
        left_out = committed.get("left_out") or []
        if left_out:
            console.print(
                f"left out as you decided: {len(left_out)} items; "
                f"{committed.get('open_quotes', 0)} quotes support no concept yet "
                "(`zettelgraph extract` proposes for them again)",
                highlight=False,
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
        items = (run.get("report") or {}).get("review")
        if items is not None:
            console.print(
                f"\nNext: zettelgraph review {run['run_id']} -i (item by item) | --keep c1,r2 "
                "--drop c3 ... | --approve (writes what is kept) | --feedback TEXT | --abort",
                highlight=False,
                markup=False,
            )
        else:
            console.print(
                f"\nNext: zettelgraph review {run['run_id']} --approve | --feedback TEXT | --abort"
            )
    elif run["status"] == "interrupted":
        console.print(f"\nNext: zettelgraph resume {run['run_id']}")


# How an item's state reads in the terminal: the reader's decision, or the default.
MARKS = {
    ("keep", True): "[green]kept[/]",
    ("drop", True): "[red]dropped[/]",
    ("merge", True): "[blue]merged[/]",
    ("keep", False): "[dim]undecided: kept[/]",
    ("drop", False): "[yellow]undecided: left out[/]",
}


def item_mark(item: dict[str, Any]) -> str:
    """`kept`, `dropped`, `edited`, `merged into c2`, or the default of an undecided item,
    and `doubtful (0.21: reasons)` when flagged."""
    decision = item.get("decision") or {}
    if not decision:
        return ""
    verdict, decided = decision.get("verdict", "keep"), bool(decision.get("decided"))
    mark = MARKS.get((verdict, decided), verdict)
    if decision.get("edited"):
        mark = "[green]edited[/]"
    if verdict == "merge" and decision.get("into"):
        mark = f"[blue]merged into {escape(str(decision['into'])[:12])}[/]"
    doubt = item.get("doubt") or {}
    if doubt.get("doubtful"):
        why = "; ".join(doubt.get("reasons") or [])
        mark += f" [yellow]doubtful ({doubt['score']:.2f}{': ' + escape(why) if why else ''})[/]"
    return f"  [{mark}]" if mark else ""


def review_line(summary: dict[str, Any]) -> str:
    """'7 kept, 5 dropped, 2 edited, 0 undecided; approving writes 9 concepts, 3 relations'."""
    counts = summary.get("counts", {})
    parts = [f"{counts.get(k, 0)} {k}" for k in ("kept", "dropped", "edited")]
    if counts.get("merged"):
        parts.append(f"{counts['merged']} merged")
    parts.append(f"{counts.get('undecided', 0)} undecided")
    writes = summary.get("writes", {})
    line = (
        ", ".join(parts)
        + f"; approving writes {writes.get('concepts', 0)} concepts, "
        + f"{writes.get('relations', 0)} relations"
    )
    if counts.get("doubtful"):
        line += f" ({counts['doubtful']} doubtful items, left out unless you keep them)"
    return line


def print_report(console: Console, report: dict[str, Any], *, full: bool = False) -> bool:
    """The proposal item by item; whether a listed quote was cut short (not with `full`)."""
    console.print(
        f"\n[bold]{len(report['concepts'])} new concepts[/] from {report['quotes']} quotes"
        + (
            " (doubtful first)"
            if (report.get("review") or {}).get("counts", {}).get("doubtful")
            else ""
        )
    )
    for concept in report["concepts"]:
        console.print(
            f"\n[bold green]{concept['key']}. {escape(concept['title'])}[/]" + item_mark(concept),
            highlight=False,
        )
        if not concept.get("is_quote"):
            console.print(f"  {escape(concept['concept'])}", highlight=False)
        if concept["analysis"]:
            console.print(f"  [dim]Análisis:[/] {escape(concept['analysis'])}", highlight=False)
        if concept["rationale"]:
            console.print(f"  [dim]Por qué:[/] {escape(concept['rationale'])}", highlight=False)
        for quote in concept["quotes"]:
            page = f" (p. {quote['page']})" if quote.get("page") else ""
            key = f"{quote['key']} " if quote.get("key") else ""
            console.print(
                f"  [dim]{key}>[/] {escape(quote['text'])}{escape(page)}", highlight=False
            )
    if report["relations"]:
        console.print("\n[bold]Relations[/] (the reverse is added automatically)")
        for r in report["relations"]:
            reverse = f"reverse {r['reverse']}" if r["reverse"] else "one-way"
            key = f"{r['key']}. " if r.get("key") else ""
            console.print(
                f"  {key}{escape(r['source'])} -[{r['type']}]-> {escape(r['target'])}"
                + item_mark(r)
                + f"\n     [dim]({r['confidence']:.2f}; {reverse}) {escape(r['explanation'])}[/]",
                highlight=False,
            )
    if report.get("related"):
        console.print(
            "\n[bold]Related?[/] (the model saw a link its check did not confirm; "
            "give it a type to keep it: --retype s1=SIMILAR_TO)"
        )
        for s in report["related"]:
            console.print(
                f"  {s['key']}. {escape(s['source'])} ~ {escape(s['target'])}"
                f"  [dim](the model said {s['proposed_type']}) {escape(s['explanation'])}[/]"
                + item_mark(s),
                highlight=False,
            )
    for a in report.get("added_relations", []):
        console.print(
            f"  {a['key']}. {escape(a['source'])} -[{a['type']}]-> {escape(a['target'])}"
            "  [green](added by you)[/]",
            highlight=False,
        )
    if report["existing_attributions"]:
        console.print("\n[bold]Quotes attributed to existing concepts[/]")
        for a in report["existing_attributions"]:
            key = f"{a['key']}. " if a.get("key") else ""
            console.print(
                f"  {key}{escape(a['concept'])}: {a['quotes']} quotes" + item_mark(a),
                highlight=False,
            )
    several = [a for a in report["attributions"] if a["several"]]
    if several:
        console.print("\n[bold]Quotes supporting several concepts[/]")
        for a in several:
            console.print(
                f"  {escape(listed_quote(a['quote']['text'], full))} -> "
                + ", ".join(a["concepts"]),
                highlight=False,
            )
    if report["unattributed_quotes"]:
        console.print("\n[bold yellow]Quotes supporting no concept[/]")
        for quote in report["unattributed_quotes"]:
            console.print(f"  {escape(listed_quote(quote['text'], full))}", highlight=False)
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
    summary = report.get("review")
    if summary:
        console.print(f"\n[bold]Review:[/] {escape(review_line(summary))}", highlight=False)
        for gone in summary.get("left_out", []):
            console.print(
                f"  [dim]left out {gone['item']} {escape(gone['what'])}: {escape(gone['why'])}[/]",
                highlight=False,
            )
    listed = [a["quote"]["text"] for a in several]
    return cut_short([*listed, *(q["text"] for q in report["unattributed_quotes"])], full)
