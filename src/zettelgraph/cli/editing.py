"""Text the reader writes in $EDITOR during a review: a concept's new title, statement and
analysis (under `## ` headings), or free feedback."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from zettelgraph.cli.common import fail

if TYPE_CHECKING:
    from zettelgraph.services.review import ItemDecision
    from zettelgraph.services.runs import RunView


EDIT_HELP = (
    "# Edit {key} below: the text under each heading is the new value. Lines starting\n"
    "# with # are ignored; leave a heading's text as it is to keep it. Save and close.\n"
)
FIELDS = (("title", "title"), ("statement", "concept"), ("analysis", "analysis"))


def edited_in_editor(view: RunView, key: str) -> ItemDecision:
    """A concept edited in $EDITOR, as an `edit` decision."""
    from zettelgraph.services.review import ItemDecision

    concept = next((c for c in (view.report or {}).get("concepts", []) if c["key"] == key), None)
    if concept is None:
        fail(f"--edit {key}: no such concept in run {view.run_id}", code=2)
    text = EDIT_HELP.format(key=key) + "".join(
        f"\n## {label}\n{concept.get(field) or ''}\n" for label, field in FIELDS
    )
    fields = parse_edit(edit_in_editor(text), key)
    return ItemDecision(item=key, action="edit", **fields)


def parse_edit(text: str, key: str) -> dict[str, str]:
    """The fields of an edited concept from the editor's text (see EDIT_HELP)."""
    values: dict[str, list[str]] = {}
    current: str | None = None
    labels = {label: field for label, field in FIELDS}
    for line in text.splitlines():
        if line.startswith("## "):
            current = labels.get(line[3:].strip().casefold())
            if current is None:
                fail(
                    f"edit {key}: unknown heading {line!r}; use ## title, ## statement, "
                    "## analysis",
                    code=2,
                )
            values[current] = []
        elif not line.startswith("#") and current is not None:
            values[current].append(line)
    if not values:
        fail(f"edit {key}: the headings are gone; nothing changed", code=2)
    return {field: "\n".join(lines).strip() for field, lines in values.items()}


def edit_in_editor(text: str, suffix: str = ".md") -> str:
    """`text` opened in $VISUAL or $EDITOR (as `git commit` does); what the reader saved."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.NamedTemporaryFile("w+", suffix=suffix, delete=False, encoding="utf-8") as f:
        f.write(text)
        path = Path(f.name)
    try:
        subprocess.run([*editor.split(), str(path)], check=False)
        return path.read_text(encoding="utf-8")
    finally:
        path.unlink(missing_ok=True)


def edit_feedback() -> str:
    """Feedback written in $EDITOR."""
    lines = edit_in_editor(
        "\n# Write what to change above. Lines starting with # are ignored.\n"
    ).splitlines()
    text = "\n".join(line for line in lines if not line.startswith("#")).strip()
    if not text:
        fail("no feedback written; nothing changed", code=2)
    return text
