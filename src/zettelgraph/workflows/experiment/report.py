"""The experiment's report as Markdown: insights with [n] markers, the term-evolution table,
the charts, every tool's result, the passages cited, and how the plan was decided. Pure: the
state in, text out (`nodes_report` writes it)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from zettelgraph.text.normalize import normalize_name
from zettelgraph.workflows.experiment.state import ExperimentState, empty_synthesis

TYPE_TITLES = {
    "temporal": "temporal",
    "cross_domain": "cross-domain",
    "document_analysis": "document analysis",
    "single_document": "single document",
}


def note_title(values: Mapping[str, Any]) -> str:
    """The title of an experiment's vault note (its file name when the note is new)."""
    kind = values["type"]
    return f"{values['term']['term']} ({TYPE_TITLES.get(kind, kind)}, {values['run_id']})"


def note_charts(names: Iterable[str]) -> list[str]:
    """The charts of an experiment the report and its vault note show: the PNGs."""
    return [name for name in names if name.endswith(".png")]


def _cell(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _marks(numbers: Sequence[int]) -> str:
    return "".join(f" [{n}]" for n in numbers)


def frequency_by_group(state: ExperimentState, grouping: str) -> dict[str, dict[str, Any]]:
    """Occurrences and rate per 10,000 words of each group of the table, from the
    term_frequency tool (documents summed into domains when the table groups by domain)."""
    rows: list[dict[str, Any]] = []
    for run in state.get("tool_runs", []):
        if run["tool"] == "term_frequency" and not run.get("error"):
            rows = run["output"].get("rows", [])
    titles = {d["id"]: d["title"] for d in state.get("documents", [])}
    out: dict[str, dict[str, Any]] = {}
    if grouping == "domain":
        domain_of = {d["title"]: d.get("domain") for d in state.get("documents", [])}
        for row in rows:
            if row["group_kind"] != "document":
                continue
            title = titles.get(row["group"], row["group"])
            domain = domain_of.get(title)
            if domain:
                total = out.setdefault(domain, {"occurrences": 0, "words": 0})
                total["occurrences"] += row["occurrences"]
                total["words"] += row["words"]
        for total in out.values():
            total["per_10k"] = round(10_000 * total["occurrences"] / max(total["words"], 1), 2)
        return out
    for row in rows:
        if row["group_kind"] == grouping:
            out[titles.get(row["group"], row["group"])] = row
    return out


def drift_by_group(state: ExperimentState, grouping: str) -> dict[str, dict[str, Any]]:
    titles = {d["id"]: d["title"] for d in state.get("documents", [])}
    for run in state.get("tool_runs", []):
        if run["tool"] == "semantic_drift" and not run.get("error"):
            output = run["output"]
            if output.get("grouping") == grouping:
                return {titles.get(g["group"], g["group"]): g for g in output.get("groups", [])}
    return {}


def evolution_rows(state: ExperimentState) -> list[dict[str, Any]]:
    """One row per group: the numbers the tools measured and the usage the synthesis wrote."""
    synthesis = state.get("synthesis") or empty_synthesis()
    grouping = synthesis.get("grouping", "document")
    frequency = frequency_by_group(state, grouping)
    drift = drift_by_group(state, grouping)
    usage = {normalize_name(r["group"]): r for r in synthesis.get("evolution", [])}
    rows = []
    for group in synthesis.get("groups", []):
        f, d = frequency.get(group, {}), drift.get(group, {})
        written = usage.get(normalize_name(group))
        rows.append(
            {
                "group": group,
                "occurrences": f.get("occurrences"),
                "per_10k": f.get("per_10k"),
                "distance_to_previous": d.get("distance_to_previous"),
                "usage": written["usage"] if written else "",
                "citations": written["citations"] if written else [],
            }
        )
    return rows


def _number(value: Any, digits: int = 2) -> str:
    if value is None:
        return "–"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def render(state: ExperimentState, charts: Sequence[str], model: str) -> str:
    """The whole report. `charts`: file names next to the report."""
    term = state["term"]
    synthesis = state.get("synthesis") or empty_synthesis()
    kind = TYPE_TITLES.get(state["type"], state["type"])
    lines = [f"# {term['term']}: {kind} experiment", ""]
    lines += [f"**Goal.** {state.get('experiment_goal', '')}", ""]
    if term.get("definition"):
        source = f" ({term['source']})" if term.get("source") else ""
        lines += [f"**Baseline meaning{source}.** {term['definition']}", ""]
    if state.get("term_context"):
        lines += [f"**The term here.** {state['term_context']}", ""]
    lines += ["## Documents", ""]
    counts = state.get("term_passages", {})
    for d in state.get("documents", []):
        meta = ", ".join(str(p) for p in (d.get("author"), d.get("year"), d.get("kind")) if p)
        lines.append(f"- *{d['title']}* ({meta}): {counts.get(d['id'], 0)} passages with the term")
    lines += ["", "## Findings", ""]
    insights = synthesis.get("insights", [])
    lines += [f"- {i['text']}{_marks(i['citations'])}" for i in insights] or [
        "No finding could be written with a cited passage; the tools' results are below."
    ]
    rows = evolution_rows(state)
    if rows:
        lines += ["", f"## Term evolution (by {synthesis.get('grouping', 'document')})", ""]
        lines += [
            "| group | occurrences | per 10,000 words | drift from previous | usage |",
            "| --- | --- | --- | --- | --- |",
        ]
        lines += [
            f"| {_cell(r['group'])} | {_number(r['occurrences'])} | {_number(r['per_10k'])} | "
            f"{_number(r['distance_to_previous'], 3)} | "
            f"{_cell(r['usage'])}{_marks(r['citations'])} |"
            for r in rows
        ]
    if charts:
        lines += ["", "## Charts", ""]
        lines += [f"![{name}]({name})" for name in charts]
    lines += [
        "",
        "## Tools",
        "",
        "| tool | documents | result | seconds |",
        "| --- | --- | --- | --- |",
    ]
    titles = {d["id"]: d["title"] for d in state.get("documents", [])}
    for run in state.get("tool_runs", []):
        where = "; ".join(titles.get(c, c) for c in run["document_ids"])
        result = f"failed: {run['error']}" if run.get("error") else run["output"].get("summary", "")
        lines.append(f"| {run['tool']} | {_cell(where)} | {_cell(result)} | {run['seconds']} |")
    passages = synthesis.get("passages", [])
    if passages:
        lines += ["", "## Passages", ""]
        for p in passages:
            where = ", ".join(x for x in (p["title"], p.get("location")) if x)
            lines.append(f"[{p['n']}] {where}: “{' '.join(p['text'].split())}”")
    dropped = synthesis.get("dropped", [])
    if dropped:
        lines += ["", "## Left out", ""]
        lines += [f"- {_cell(d['text'])} ({d['reason']})" for d in dropped]
    lines += ["", "## How this was decided", ""]
    source = state.get("strategy_source", "model")
    confidence = state.get("confidence")
    lines.append(
        f"- Plan: {'the model' if source == 'model' else 'the type defaults'}"
        + (f", confidence {confidence:.2f}" if isinstance(confidence, float) else "")
        + f"; model {model}."
    )
    if state.get("strategy_reasoning"):
        lines.append(f"- Reasoning: {state['strategy_reasoning']}")
    decision = state.get("decision")
    if decision:
        lines.append(f"- Reader: {decision} on {state.get('reviewed_at', '')[:16]}")
    if state.get("review_notes"):
        lines.append(f"- Reader's notes: {state['review_notes']}")
    warnings = list(dict.fromkeys(state.get("warnings", [])))
    if warnings:
        lines += ["", "## Warnings", ""] + [f"- {w}" for w in warnings]
    return "\n".join(lines) + "\n"
