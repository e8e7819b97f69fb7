"""Rich rendering of a run and its review report for the terminal."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.text import Text

from zettelgraph.cli.card_view import clip
from zettelgraph.cli.common import concept_labels
from zettelgraph.cli.output import count, print_next, repaired_line, styled

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
        console.print(styled(FULL_HINT, run["run_id"]))
    committed = run.get("committed") or {}
    if committed:
        console.print(
            f"written: {count(len(committed.get('concepts', [])), 'concept')}, "
            f"{count(committed.get('relations', 0), 'relation')}, "
            f"{count(committed.get('attributions', 0), 'quote attribution')}; "
            f"notes: {len(committed.get('notes_written', []))} new, "
            f"{len(committed.get('notes_updated', []))} updated"
        )
        if repaired := repaired_line(committed.get("notes_repaired") or []):
            console.print(repaired)
        left_out = committed.get("left_out") or []
        if left_out:
            console.print(
                f"left out as you decided: {count(len(left_out), 'item')}; "
                f"{committed.get('open_quotes', 0)} quotes support no concept yet "
                "(`zettelgraph extract` proposes for them again)"
            )
    print_run_end(console, run)


def print_run_title(console: Console, run: dict[str, Any]) -> None:
    title = run.get("title") or run.get("content_id")
    console.print(styled("[bold]run {}[/] — {} — [cyan]{}[/]", run["run_id"], title, run["status"]))


def print_run_end(
    console: Console, run: dict[str, Any], shown: frozenset[str] = frozenset()
) -> None:
    """The notes not written, the warnings (but those in `shown`), and what to do next."""
    for error in (run.get("committed") or {}).get("vault_errors", []):
        console.print(styled("[red]note not written:[/] {}", error))
    for warning in run.get("warnings", []):
        if warning not in shown:
            console.print(styled("[yellow]warning:[/] {}", warning))
    if run["status"] == "awaiting_review":
        items = (run.get("report") or {}).get("review")
        if items is not None:
            print_next(
                console,
                f"zettelgraph review {run['run_id']} -i (item by item) | --keep c1,r2 "
                "--drop c3 ... | --approve (writes what is kept) | --feedback TEXT | --abort",
            )
        else:
            print_next(
                console, f"zettelgraph review {run['run_id']} --approve | --feedback TEXT | --abort"
            )
    elif run["status"] == "interrupted":
        print_next(console, f"zettelgraph resume {run['run_id']}")


# How an item's state reads in the terminal: the reader's decision, or the default.
MARKS = {
    ("keep", True): ("kept", "green"),
    ("drop", True): ("dropped", "red"),
    ("merge", True): ("merged", "blue"),
    ("keep", False): ("undecided: kept", "dim"),
    ("drop", False): ("undecided: left out", "yellow"),
}


def item_mark(item: dict[str, Any]) -> Text:
    """`kept`, `dropped`, `edited`, `merged into c2`, or the default of an undecided item,
    and `doubtful (0.21: reasons)` when flagged."""
    decision = item.get("decision") or {}
    if not decision:
        return Text()
    verdict, decided = decision.get("verdict", "keep"), bool(decision.get("decided"))
    mark = Text(*MARKS.get((verdict, decided), (verdict, "")))
    if decision.get("edited"):
        mark = Text("edited", "green")
    if verdict == "merge" and decision.get("into"):
        mark = Text(f"merged into {str(decision['into'])[:12]}", "blue")
    doubt = item.get("doubt") or {}
    if doubt.get("doubtful"):
        why = "; ".join(doubt.get("reasons") or [])
        mark += Text(f" doubtful ({doubt['score']:.2f}{': ' + why if why else ''})", "yellow")
    return Text.assemble("  [", mark, "]")


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
        + f"; approving writes {count(writes.get('concepts', 0), 'concept')}, "
        + count(writes.get("relations", 0), "relation")
    )
    if counts.get("doubtful"):
        doubtful = count(counts["doubtful"], "doubtful item")
        line += f" ({doubtful}, left out unless you keep them)"
    return line


def print_report(console: Console, report: dict[str, Any], *, full: bool = False) -> bool:
    """The proposal item by item; whether a listed quote was cut short (not with `full`)."""
    console.print(
        styled(
            "\n[bold]{}[/] from {}",
            count(len(report["concepts"]), "new concept"),
            count(report["quotes"], "quote"),
        )
        + (
            " (doubtful first)"
            if (report.get("review") or {}).get("counts", {}).get("doubtful")
            else ""
        )
    )
    labels = concept_labels()
    for concept in report["concepts"]:
        console.print(
            styled("\n[bold green]{}. {}[/]", concept["key"], concept["title"]) + item_mark(concept)
        )
        if not concept.get("is_quote"):
            console.print(f"  {concept['concept']}")
        if concept["analysis"]:
            console.print(styled("  [dim]{}:[/] {}", labels.analysis, concept["analysis"]))
        if concept["rationale"]:
            console.print(styled("  [dim]{}:[/] {}", labels.why, concept["rationale"]))
        if concept.get("synonyms"):
            console.print(styled("  [dim]Also called:[/] {}", ", ".join(concept["synonyms"])))
        if concept.get("first_appearance"):
            console.print(styled("  [dim]First appears:[/] {}", concept["first_appearance"]))
        for quote in concept["quotes"]:
            page = f" (p. {quote['page']})" if quote.get("page") else ""
            key = f"{quote['key']} " if quote.get("key") else ""
            console.print(styled("  [dim]{}>[/] {}{}", key, quote["text"], page))
    if report["relations"]:
        console.print(styled("\n[bold]Relations[/] (the reverse is added automatically)"))
        for r in report["relations"]:
            reverse = f"reverse {r['reverse']}" if r["reverse"] else "one-way"
            key = f"{r['key']}. " if r.get("key") else ""
            console.print(
                Text(f"  {key}{r['source']} -[{r['type']}]-> {r['target']}")
                + item_mark(r)
                + Text(f"\n     ({r['confidence']:.2f}; {reverse}) {r['explanation']}", "dim")
            )
    if report.get("related"):
        console.print(
            styled(
                "\n[bold]Related?[/] (the model saw a link its check did not confirm; "
                "give it a type to keep it: --retype s1=SIMILAR_TO)"
            )
        )
        for s in report["related"]:
            console.print(
                styled(
                    "  {}. {} ~ {}  [dim](the model said {}) {}[/]",
                    s["key"],
                    s["source"],
                    s["target"],
                    s["proposed_type"],
                    s["explanation"],
                )
                + item_mark(s)
            )
    for a in report.get("added_relations", []):
        console.print(
            Text(f"  {a['key']}. {a['source']} -[{a['type']}]-> {a['target']}")
            + Text("  (added by you)", "green")
        )
    if report["existing_attributions"]:
        console.print(styled("\n[bold]Quotes attributed to existing concepts[/]"))
        for a in report["existing_attributions"]:
            key = f"{a['key']}. " if a.get("key") else ""
            console.print(
                Text(f"  {key}{a['concept']}: {count(a['quotes'], 'quote')}") + item_mark(a)
            )
    several = [a for a in report["attributions"] if a["several"]]
    if several:
        console.print(styled("\n[bold]Quotes supporting several concepts[/]"))
        for a in several:
            console.print(
                f"  {listed_quote(a['quote']['text'], full)} -> {', '.join(a['concepts'])}"
            )
    if report["unattributed_quotes"]:
        console.print(styled("\n[bold yellow]Quotes supporting no concept[/]"))
        for quote in report["unattributed_quotes"]:
            console.print(f"  {listed_quote(quote['text'], full)}")
            if quote.get("reason"):
                console.print(styled("    [dim]why:[/] {}", quote["reason"]))
    if report["disconnected_concepts"]:
        console.print(
            styled(
                "\n[yellow]Concepts without relations:[/] {}",
                ", ".join(report["disconnected_concepts"]),
            )
        )
    # Reports of runs started before these fields existed have neither.
    notes = [*report.get("extraction_notes", []), *report.get("notes", [])]
    if notes:
        console.print(styled("\n[bold]Notes from the model[/]"))
        for note in notes:
            console.print(f"  {note}")
    checks = report.get("checks") or {}
    if checks:
        done = "; ".join(
            f"{guard}: "
            + ", ".join(f"{count} {action.replace('_', ' ')}" for action, count in actions.items())
            for guard, actions in checks.items()
        )
        console.print(styled("\n[bold]Checks[/] {} (each one is a 'check' warning below)", done))
    for entry in report["critique_log"]:
        verdict = "passes" if entry.get("passes") else "fails"
        summary = entry.get("critique_summary") or entry.get("error", "")
        console.print(f"critique {entry['iteration'] + 1}: {verdict}. {summary}", style="dim")
    summary = report.get("review")
    if summary:
        console.print(styled("\n[bold]Review:[/] {}", review_line(summary)))
        for gone in summary.get("left_out", []):
            console.print(f"  left out {gone['item']} {gone['what']}: {gone['why']}", style="dim")
    listed = [a["quote"]["text"] for a in several]
    return cut_short([*listed, *(q["text"] for q in report["unattributed_quotes"])], full)
