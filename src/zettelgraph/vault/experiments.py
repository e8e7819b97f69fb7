"""Experiment reports in the vault: one note per experiment in `10 - Experiments/`, its charts
beside it in `10 - Experiments/attachments/`, written atomically. The note carries the
experiment id in its front matter, so running the report again replaces it in place.

The note is zettelgraph's, whole: the report a completed experiment wrote to
`ZETTELGRAPH_HOME/experiments/ID/`, its charts linked by their place in the vault. `vault sync`
writes it again (`sync_experiment_notes`) when it is missing, differs or lost a chart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from zettelgraph.vault.report import EXPERIMENT_NOTE, NotesReport
from zettelgraph.vault.writer import (
    Vault,
    VaultError,
    atomic_write,
    remove_stray_temp_files,
    safe_note_name,
)

EXPERIMENTS_DIR = "10 - Experiments"
ATTACHMENTS_DIR = "attachments"
MISSING = "missing"
DIFFERS = "note differs"
CHART_DIFFERS = "chart missing or differs"


@dataclass(frozen=True)
class ExperimentNote:
    """What an experiment's vault note is made of: its report (markdown linking its charts by
    file name) and the charts it links (file name -> bytes). `markdown` is None when the
    report is lost (its folder in ZETTELGRAPH_HOME deleted): the note cannot be rebuilt, so
    the sync leaves the vault as it is."""

    experiment_id: str
    title: str
    markdown: str | None
    attachments: Mapping[str, bytes]


def _existing(folder: Path, experiment_id: str) -> Path | None:
    if not folder.is_dir():
        return None
    marker = f"experiment_id: {experiment_id}\n"
    for path in sorted(folder.glob("*.md")):
        try:
            head = path.read_text(encoding="utf-8")[:400]
        except (OSError, ValueError):
            continue
        if marker in head:
            return path
    return None


def _folder(root: Path) -> Path:
    folder = Path(root).expanduser() / EXPERIMENTS_DIR
    if not folder.resolve().is_relative_to(Path(root).expanduser().resolve()):
        raise VaultError(f"refusing to write in {folder}: it leads outside the vault {root}")
    return folder


def _attachment(folder: Path, experiment_id: str, name: str) -> Path:
    return folder / ATTACHMENTS_DIR / f"{experiment_id}-{name}"


def note_text(experiment_id: str, markdown: str, charts: Iterable[str]) -> str:
    """The note's text: front matter, then the report with its `charts` linked in the vault."""
    body = markdown
    for name in charts:
        body = body.replace(f"]({name})", f"]({ATTACHMENTS_DIR}/{experiment_id}-{name})")
    front = f"---\nexperiment_id: {experiment_id}\ntags: [zettelgraph/experiment]\n---\n\n"
    return front + body


def write_experiment_note(
    root: Path,
    experiment_id: str,
    title: str,
    markdown: str,
    attachments: Mapping[str, bytes],
) -> Path:
    """Write the report (charts linked by file name) and its attachments; the note's path.
    Attachments first: a note never links a chart that is not there."""
    folder = _folder(root)
    remove_stray_temp_files(folder)
    for name, data in attachments.items():
        atomic_write(_attachment(folder, experiment_id, name), data)
    path = _existing(folder, experiment_id) or folder / f"{safe_note_name(title)}.md"
    atomic_write(path, note_text(experiment_id, markdown, attachments))
    return path


def sync_experiment_notes(
    root: Path, notes: Iterable[ExperimentNote], *, check: bool = False
) -> NotesReport:
    """Compare the vault notes of `notes` (the completed experiments) and their charts with
    what `write_experiment_note` writes and, unless `check`, write those that are missing or
    differ with it; the temporary files killed writes left in the folder are removed (or,
    checking, listed). Nothing is raised for one note."""
    report = NotesReport()
    try:
        folder = _folder(root)
    except VaultError as exc:
        report.errors.append({"kind": EXPERIMENT_NOTE, "path": None, "error": str(exc)})
        return report
    Vault(root, folder=EXPERIMENTS_DIR).tidy(report, EXPERIMENT_NOTE, check=check)
    for note in notes:
        path = _existing(folder, note.experiment_id)
        if note.markdown is None:
            # Its report is gone: a note still there is the only copy left, kept as it is;
            # one gone too cannot be written from anything, and no command could fix that.
            report.unchanged += int(path is not None)
            continue
        try:
            reason = _drift(folder, note, path)
            if reason is None:
                report.unchanged += 1
                continue
            shown = path or folder / f"{safe_note_name(note.title)}.md"
            report.drift.append(
                {
                    "kind": EXPERIMENT_NOTE,
                    "experiment_id": note.experiment_id,
                    "title": note.title,
                    "path": str(shown),
                    "reason": reason,
                }
            )
            if check:
                continue
            write_experiment_note(
                root, note.experiment_id, note.title, note.markdown, note.attachments
            )
        except (OSError, VaultError) as exc:
            where = str(path) if path else None
            report.not_written(
                EXPERIMENT_NOTE, "experiment_id", note.experiment_id, note.title, where, exc
            )
            continue
        (report.written if path is None else report.updated).append(note.experiment_id)
    return report


def _drift(folder: Path, note: ExperimentNote, path: Path | None) -> str | None:
    if path is None:
        return MISSING
    try:
        text = path.read_bytes().decode("utf-8")
    except ValueError:
        return DIFFERS  # not UTF-8 any more: not what zettelgraph wrote
    if text != note_text(note.experiment_id, note.markdown or "", note.attachments):
        return DIFFERS
    for name, data in note.attachments.items():
        chart = _attachment(folder, note.experiment_id, name)
        if not chart.is_file() or chart.read_bytes() != data:
            return CHART_DIFFERS
    return None
