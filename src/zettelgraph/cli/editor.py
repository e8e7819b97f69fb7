"""Text written by the reader in `$VISUAL` or `$EDITOR` (as `git commit` does): a concept's
title, statement and analysis under their headings (`concept edit`, `review --edit`, the
triage's e key), or free feedback."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from zettelgraph.cli.common import fail


def edit_text(initial: str, *, comment: str) -> str:
    """What the reader leaves in a file that starts as `initial` followed by `comment` (each
    of its lines prefixed with "# "), without the lines that start with "# "."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    notes = "".join(f"# {line}\n" for line in comment.splitlines())
    with tempfile.NamedTemporaryFile("w+", suffix=".md", delete=False, encoding="utf-8") as f:
        f.write(f"{initial}\n{notes}")
        path = Path(f.name)
    try:
        done = subprocess.run([*editor.split(), str(path)], check=False)
        text = path.read_text(encoding="utf-8")
    finally:
        path.unlink(missing_ok=True)
    if done.returncode != 0:
        fail(f"the editor ({editor}) exited with {done.returncode}; nothing changed", code=2)
    return "\n".join(line for line in text.splitlines() if not line.startswith("# "))


# The file a concept is edited in: one heading per part of the concept.
EDIT_HEADINGS = {"## Title": "title", "## Statement": "statement", "## Analysis": "analysis"}
EDIT_HELP = (
    "Edit the title, statement and analysis under their headings, then save and close.\n"
    "A part whose heading you delete is left as it is; empty the file to change nothing.\n"
    "Lines starting with '# ' are ignored."
)


def concept_in_editor(
    title: str, statement: str, analysis: str
) -> tuple[str | None, str | None, str | None]:
    """Title, statement and analysis as the reader leaves them in $EDITOR (None: a part
    whose heading they deleted). An emptied file ends the command: nothing changes."""
    parts = {"title": title, "statement": statement, "analysis": analysis}
    initial = "\n\n".join(f"{heading}\n{parts[name]}" for heading, name in EDIT_HEADINGS.items())
    text = edit_text(initial + "\n", comment=EDIT_HELP)
    if not text.strip():
        fail("the file was left empty; nothing changed", code=2)
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        name = EDIT_HEADINGS.get(line.strip())
        if name is not None:
            current = found.setdefault(name, [])
        elif current is not None:
            current.append(line)
    got = {name: "\n".join(lines).strip() for name, lines in found.items()}
    return got.get("title"), got.get("statement"), got.get("analysis")


def feedback_in_editor() -> str:
    """Feedback for the model, written in $EDITOR; an empty one ends the command."""
    text = edit_text("", comment="Write what to change above.").strip()
    if not text:
        fail("no feedback written; nothing changed", code=2)
    return text
