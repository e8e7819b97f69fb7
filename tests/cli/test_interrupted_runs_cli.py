"""Interrupted runs are never lost: Ctrl-C (a real SIGINT to a real `zettelgraph` process on
the fake LLM, slowed so the signal lands mid-run) during `run` or `extract` keeps the run,
prints its id and the `resume` command and exits 130; `run` and `extract` on that content
then name the open run and how to go on, and `resume` does."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zettelgraph.cli.app import app

REPO = Path(__file__).resolve().parents[2]
WALDEN = REPO / "examples" / "walden.md"
ZETTELGRAPH = str(Path(sys.executable).parent / "zettelgraph")
DEFAULT_SIGINT = [
    sys.executable,
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])",
]
# The step after which the signal is sent: the first LLM call (slowed) comes next.
LOADED = "load_content_quotes done"

pytestmark = pytest.mark.skipif(
    not Path(ZETTELGRAPH).exists(), reason="the console script is not installed"
)


def cli(home: Path, *args: str) -> Any:
    return CliRunner().invoke(
        app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args]
    )


def interrupted(home: Path, *args: str) -> tuple[int, str]:
    """Run the command with a slow fake LLM, send SIGINT once its quotes are loaded; its exit
    status and stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZETTELGRAPH_")}
    # As from a terminal, whatever started the suite: a background job inherits SIGINT
    # ignored, and an ignored SIGINT stays ignored across exec, so the command would never
    # see the Ctrl-C. The default is set, then the command exec'd.
    command = [*DEFAULT_SIGINT, ZETTELGRAPH, "--home", str(home), "--llm", "fake:latency=2"]
    child = subprocess.Popen(
        [*command, "--embeddings", "hash", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stderr is not None
    seen = []
    for line in child.stderr:
        seen.append(line)
        if LOADED in line:
            child.send_signal(signal.SIGINT)
            break
    _, rest = child.communicate(timeout=300)
    return child.returncode, "".join(seen) + rest


def only_run(home: Path) -> dict[str, Any]:
    [run] = json.loads(cli(home, "runs", "--json").stdout)
    return dict(run)


def test_ctrl_c_during_run_keeps_the_run_then_run_names_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    status, said = interrupted(home, "run", str(WALDEN))
    assert status == 130, said
    run = only_run(home)
    run_id = run["run_id"]
    assert run["status"] == "interrupted"
    assert f"interrupted: run {run_id}" in said and f"zettelgraph resume {run_id}" in said
    assert "Traceback" not in said

    again = cli(home, "run", str(WALDEN))
    assert again.exit_code == 0, again.output
    assert f"has an open run {run_id}, which stopped in the middle" in again.output
    assert f"`zettelgraph resume {run_id}`" in again.output
    assert f"`zettelgraph review {run_id} --abort`" in again.output
    as_json = json.loads(cli(home, "run", str(WALDEN), "--json").stdout)
    assert [r["run_id"] for r in as_json["open_runs"]] == [run_id] and as_json["runs"] == []

    extract = cli(home, "extract", run["content_id"][:8])
    assert extract.exit_code == 1 and f"zettelgraph resume {run_id}" in extract.output

    resumed = cli(home, "resume", run_id.removeprefix("run-")[:6], "--json")
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout)["status"] == "awaiting_review"


def test_ctrl_c_during_extract_prints_the_run_and_resume(tmp_path: Path) -> None:
    home = tmp_path / "home"
    ingested = json.loads(cli(home, "ingest", str(WALDEN), "--json").stdout)
    content_id = ingested["contents"][0]["id"]
    status, said = interrupted(home, "extract", content_id[:8])
    assert status == 130, said
    run_id = only_run(home)["run_id"]
    assert f"interrupted: run {run_id} stopped in the middle" in said
    assert f"`zettelgraph resume {run_id}`" in said and "Traceback" not in said
