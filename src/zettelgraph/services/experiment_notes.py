"""The vault notes the completed experiments should have, read from what they left: the report
and charts in ZETTELGRAPH_HOME/experiments/ID/ and the experiment's last checkpoint.

Kept apart from `services.experiments` on purpose: that module loads the experiment workflow
(LangGraph, and matplotlib for the charts), some seconds of imports `vault sync` does not need.
Only the checkpoint saver is opened, and only when an experiment has written a report.
"""

from __future__ import annotations

from pathlib import Path

from zettelgraph.settings import Settings
from zettelgraph.vault.experiments import ExperimentNote
from zettelgraph.workflows.experiment.report import note_charts, note_title

REPORTS_DIR = "experiments"


def vault_notes(settings: Settings) -> list[ExperimentNote]:
    """One per completed experiment that wrote a report (the report stage writes it before
    the experiment is completed), with the report's text and PNG charts as written; `markdown`
    None when its report file can no longer be read.

    Args:
        settings: the settings naming the home folder (where reports are) and the checkpoint
            database.

    Returns:
        One `ExperimentNote` (run id, title, report text or None, charts by file name) per such
        experiment, by run id.
    """
    folder = settings.home / REPORTS_DIR
    ids = sorted(path.parent.name for path in folder.glob("exp-*/report.md"))
    if not ids:
        return []
    from zettelgraph.services.checkpoints import open_checkpointer

    notes = []
    with open_checkpointer(settings) as checkpointer:
        for run_id in ids:
            saved = checkpointer.get_tuple({"configurable": {"thread_id": run_id}})
            values = saved.checkpoint["channel_values"] if saved is not None else {}
            # The report stage sets the status last: an experiment killed before its checkpoint
            # writes its note again when it is resumed.
            if values.get("status") != "completed" or not values.get("report_path"):
                continue
            report = Path(values["report_path"])
            try:
                markdown: str | None = report.read_bytes().decode("utf-8")
                charts = {
                    name: (report.parent / name).read_bytes()
                    for name in note_charts(values.get("charts", []))
                }
            except (OSError, ValueError):
                markdown, charts = None, {}
            notes.append(ExperimentNote(run_id, note_title(values), markdown, charts))
    return notes
