"""SIGKILL a child process at a chosen point, then check what recovery left: the machinery of
the kill tests (`test_kill.py`, `test_kill_graph.py`, `test_kill_experiment.py`,
`test_kill_vault.py`).

The child kills itself with SIGKILL: no cleanup, no finally blocks, as when a laptop's lid
closes on a dying battery. A point is a function (`package.module:Name.attr`) and whether the
process dies just before or just after its `nth` call. A workflow node patched so dies before
the node runs, or after it returned and before its checkpoint is written (LangGraph saves a
step's checkpoint after the node returns). Note writes are killed at `note_write`: the
temporary file is written and synced, not yet renamed over the note.
"""

from __future__ import annotations

import json
import signal
from dataclasses import dataclass
from typing import Any, Literal

from reliability.conftest import Home

_HOOK = """
import importlib, os, signal, threading

def _zg_kill_at(target, when, nth, only):
    module_name, _, attribute = target.partition(":")
    owner = importlib.import_module(module_name)
    *path, name = attribute.split(".")
    for part in path:
        owner = getattr(owner, part)
    real = getattr(owner, name)
    seen = [0]
    lock = threading.Lock()

    def hooked(*args, **kwargs):
        if only not in repr(args):
            return real(*args, **kwargs)
        with lock:
            seen[0] += 1
            mine = seen[0]
        if mine == nth and when == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        result = real(*args, **kwargs)
        if mine == nth and when == "after":
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    setattr(owner, name, hooked)

_zg_kill_at({target!r}, {when!r}, {nth}, {only!r})
{setup}
"""


@dataclass(frozen=True)
class Point:
    """Where a child dies: just `when` the `nth` call of `target` whose arguments' repr
    contains `only`; `setup` is Python the child runs first."""

    target: str
    when: Literal["before", "after"] = "before"
    nth: int = 1
    only: str = ""
    setup: str = ""

    def prelude(self) -> str:
        """Python a child runs before the CLI: the hook that kills it at this point."""
        return _HOOK.format(
            target=self.target, when=self.when, nth=self.nth, only=self.only, setup=self.setup
        )


def note_write(nth: int = 1) -> Point:
    """In the `nth` write through `vault.writer.atomic_write`: its temporary file written and
    synced, not yet renamed over the file."""
    return Point("pathlib:Path.replace", nth=nth, only=".zettelgraph-")


def killed(home: Home, args: list[str], point: Point) -> None:
    """Run `zettelgraph ARGS` in a child process that dies at `point`; it must have died."""
    child = home.child(args, prelude=point.prelude())
    out, err = child.communicate(timeout=180)
    assert child.returncode == -signal.SIGKILL, (point, child.returncode, out, err)


def ok(home: Home, *args: str) -> Any:
    """`zettelgraph ARGS --json` in this process, which must succeed: its JSON."""
    result = home.cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def run_status(home: Home, run_id: str) -> str:
    return str(next(r["status"] for r in home.json("runs") if r["run_id"] == run_id))


def assert_vault_clean(home: Home) -> None:
    """`vault sync --check` finds nothing to repair, and no temporary file of a write is left
    in the vault or in the home (where experiments keep their reports)."""
    report = ok(home, "vault", "sync", "--check")
    assert report["temp_files"] == [] and report["drift"] == [] and report["errors"] == []
    assert list(home.path.rglob(".zettelgraph-*.tmp")) == []
