"""Every benchmark script's command line parses (`--help` exits 0): two branches once each
added a `--passages` option to `benchmarks/retrieval.py`, and the merged script failed before
reading any argument. Run as a reader runs them, from the checkout's root."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(
    path.name
    for path in (REPO / "benchmarks").glob("*.py")
    if "argparse" in (text := path.read_text(encoding="utf-8")) and "__main__" in text
)


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_benchmark_command_line_parses(script: str) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO / "benchmarks")]),
    }
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / script), "--help"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage:" in done.stdout
