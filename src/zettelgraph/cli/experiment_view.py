"""Rich rendering of experiments for the terminal: the plan waiting for review, the results,
and what to do next."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from zettelgraph.cli.output import print_next, styled


def _documents(experiment: dict[str, Any]) -> dict[str, str]:
    return {d["id"]: d["title"] for d in experiment.get("documents", [])}


def print_experiment(console: Console, experiment: dict[str, Any]) -> None:
    term = experiment.get("term") or {}
    console.print(
        styled(
            "[bold]{}[/]  {} on “{}” — [bold]{}[/]",
            experiment["id"],
            experiment.get("type"),
            term.get("term", ""),
            experiment["status"],
        )
    )
    if experiment.get("goal"):
        console.print(f"goal: {experiment['goal']}")
    titles = _documents(experiment)
    passages = experiment.get("term_passages", {})
    for d in experiment.get("documents", []):
        meta = ", ".join(str(x) for x in (d.get("author"), d.get("year")) if x)
        console.print(
            f"  {d['id'][:8]}  {d['title']} ({meta}): "
            f"{passages.get(d['id'], 0)} passages with the term"
        )
    strategy = experiment.get("approved_strategy") or experiment.get("recommended_strategy")
    if strategy:
        label = "plan run" if experiment.get("approved_strategy") else "proposed plan"
        source = experiment.get("strategy_source")
        confidence = experiment.get("confidence")
        how = "the type's defaults" if source == "defaults" else "the model"
        if isinstance(confidence, float):
            how += f", confidence {confidence:.2f}"
        console.print(styled("\n[bold]{}[/] ({})", label, how))
        for content_id, tools in strategy.items():
            shown = ", ".join(tools) or "(nothing)"
            console.print(f"  {titles.get(content_id, content_id)}: {shown}")
        if experiment.get("strategy_reasoning"):
            console.print(styled("  [dim]why:[/] {}", experiment["strategy_reasoning"]))
    runs = experiment.get("tool_runs") or []
    if runs:
        table = Table(title="tool results", show_lines=False)
        for column in ("tool", "documents", "result", "s"):
            table.add_column(column)
        for run in runs:
            where = "; ".join(titles.get(c, c)[:30] for c in run["document_ids"])
            result = (
                f"failed: {run['error']}" if run.get("error") else run["output"].get("summary", "")
            )
            table.add_row(run["tool"], where, result, f"{run['seconds']:.2f}")
        console.print(table)
    synthesis = experiment.get("synthesis") or {}
    for insight in synthesis.get("insights", []):
        marks = "".join(f" [{n}]" for n in insight["citations"])
        console.print(f"• {insight['text']}{marks}")
    for warning in experiment.get("warnings", []):
        console.print(styled("[yellow]warning:[/] {}", warning))
    if experiment.get("report_path"):
        # A path, unfolded: it is opened or pasted as written.
        console.print(f"\nreport: {experiment['report_path']}", soft_wrap=True)
    if experiment["status"] == "awaiting_review":
        print_next(
            console,
            f"zettelgraph experiment review {experiment['id']} --approve | "
            "--tools CONTENT=TOOL,TOOL | --reject",
        )
    elif experiment["status"] == "interrupted":
        print_next(console, f"zettelgraph experiment resume {experiment['id']}")


def print_experiment_list(console: Console, experiments: list[dict[str, Any]]) -> None:
    if not experiments:
        console.print("no experiments yet: `zettelgraph experiment new --term T --contents ID`")
        return
    table = Table()
    for column in ("id", "type", "term", "contents", "status", "created"):
        table.add_column(column, no_wrap=column in ("id", "status", "created"), overflow="fold")
    for e in experiments:
        table.add_row(
            e["id"],
            str(e.get("type")),
            (e.get("term") or {}).get("term", ""),
            str(len(e.get("documents", []))),
            e["status"],
            str(e.get("created_at") or "")[:16],
        )
    console.print(table)
