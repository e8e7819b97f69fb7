"""After the synthesis: the charts, the report and the tool results on disk (under
ZETTELGRAPH_HOME/experiments/<id>/) and the report in the vault."""

from __future__ import annotations

import json

from zettelgraph.context import Services
from zettelgraph.experiments.charts import Chart, drift_chart, frequency_chart
from zettelgraph.models import utcnow
from zettelgraph.vault.experiments import write_experiment_note
from zettelgraph.vault.writer import VaultError, atomic_write, remove_stray_temp_files
from zettelgraph.workflows.experiment.report import (
    drift_by_group,
    evolution_rows,
    note_charts,
    note_title,
    render,
)
from zettelgraph.workflows.experiment.state import ExperimentState, empty_synthesis


def charts_of(state: ExperimentState) -> dict[str, Chart]:
    """The charts the results call for: frequency when a group has a rate, drift when the
    drift tool measured two groups or more."""
    synthesis = state.get("synthesis") or empty_synthesis()
    grouping = synthesis.get("grouping", "document")
    term = state["term"]["term"]
    charts: dict[str, Chart] = {}
    rates = [(r["group"], r["per_10k"]) for r in evolution_rows(state) if r["per_10k"] is not None]
    if rates:
        charts["frequency"] = frequency_chart(term, grouping, rates)
    for run in state.get("tool_runs", []):
        if run["tool"] != "semantic_drift" or run.get("error"):
            continue
        output = run["output"]
        groups = list(drift_by_group(state, output.get("grouping", "")).items())
        if len(groups) >= 2:
            charts["drift"] = drift_chart(
                term,
                output.get("grouping", ""),
                [(g, d.get("distance_to_previous"), d["distance_to_overall"]) for g, d in groups],
            )
    return charts


def write_report(state: ExperimentState, services: Services) -> ExperimentState:
    run_id = state["run_id"]
    folder = services.settings.home / "experiments" / run_id
    charts = charts_of(state)
    files = {f"{name}.{fmt}": data for name, chart in charts.items() for fmt, data in chart.items()}
    remove_stray_temp_files(folder)
    for name, data in files.items():
        atomic_write(folder / name, data)
    pictures = note_charts(files)
    markdown = render(state, pictures, services.llms.main_spec)
    atomic_write(folder / "report.md", markdown)
    atomic_write(
        folder / "results.json",
        json.dumps(state.get("tool_runs", []), ensure_ascii=False, indent=1),
    )
    warnings: list[str] = []
    try:
        write_experiment_note(
            services.settings.vault_path,
            run_id,
            note_title(state),
            markdown,
            {name: files[name] for name in pictures},
        )
    except (OSError, VaultError) as exc:
        warnings.append(f"the report was not written to the vault ({exc}); it is in {folder}")
    return {
        "report_path": str(folder / "report.md"),
        "charts": sorted(files),
        "status": "completed",
        "stage": "report",
        "completed_at": utcnow().isoformat(),
        "warnings": warnings,
    }
