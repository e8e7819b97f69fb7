"""Experiment reports in the vault: one note per experiment in `10 - Experiments/`, its charts
beside it in `10 - Experiments/attachments/`, written atomically. The note carries the
experiment id in its front matter, so running the report again replaces it in place."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from zettelgraph.vault.writer import VaultError, atomic_write, safe_note_name

EXPERIMENTS_DIR = "10 - Experiments"
ATTACHMENTS_DIR = "attachments"


def _existing(folder: Path, experiment_id: str) -> Path | None:
    if not folder.is_dir():
        return None
    marker = f"experiment_id: {experiment_id}\n"
    for path in sorted(folder.glob("*.md")):
        try:
            head = path.read_text(encoding="utf-8")[:400]
        except OSError:
            continue
        if marker in head:
            return path
    return None


def write_experiment_note(
    root: Path,
    experiment_id: str,
    title: str,
    markdown: str,
    attachments: Mapping[str, bytes],
) -> Path:
    """Write the report (charts linked by file name) and its attachments; the note's path.
    Attachments first: a note never links a chart that is not there."""
    folder = Path(root).expanduser() / EXPERIMENTS_DIR
    if not folder.resolve().is_relative_to(Path(root).expanduser().resolve()):
        raise VaultError(f"refusing to write in {folder}: it leads outside the vault {root}")
    for name, data in attachments.items():
        atomic_write(folder / ATTACHMENTS_DIR / f"{experiment_id}-{name}", data)
    body = markdown
    for name in attachments:
        body = body.replace(f"]({name})", f"]({ATTACHMENTS_DIR}/{experiment_id}-{name})")
    path = _existing(folder, experiment_id) or folder / f"{safe_note_name(title)}.md"
    front = f"---\nexperiment_id: {experiment_id}\ntags: [zettelgraph/experiment]\n---\n\n"
    atomic_write(path, front + body)
    return path
