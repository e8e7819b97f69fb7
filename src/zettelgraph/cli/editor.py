"""Text written by the reader in `$VISUAL` or `$EDITOR` (as `git commit` does)."""

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
