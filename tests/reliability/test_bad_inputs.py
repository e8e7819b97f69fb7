"""Every file of the bad-input corpus (bad_inputs.py) through `zettelgraph ingest`, on each
backend: a clear error naming the file and saying what is wrong, nothing stored, nothing
written beside the input or in the vault, and bounded time (the test's timeout) and memory
(peak RSS of a child process, for the cases built to exhaust it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reliability.bad_inputs import CASES as FILES
from reliability.bad_inputs import Case
from reliability.bombs import BOMBS
from reliability.conftest import Home
from zettelgraph.cli.app import app

# The child's own peak (VmHWM of its address space): getrusage's ru_maxrss would carry over
# the peak of the pytest process it was forked from.
PEAK_RSS = """
import atexit, os
def _peak():
    status = open("/proc/self/status").read().split("VmHWM:")[1].split()[0]
    open(os.environ["ZG_TEST_RSS_FILE"], "w").write(status)
atexit.register(_peak)
"""


CASES = [*FILES, *BOMBS]


def test_the_corpus_is_large_and_named_once() -> None:
    names = [case.name for case in CASES]
    assert len(names) >= 40
    assert len(set(names)) == len(names)


def _run(
    home: Home, case: Case, args: list[str], tmp_path: Path
) -> tuple[int, str, str, int | None]:
    """(exit code, stdout, stderr, peak RSS in MB when measured)."""
    if case.max_rss_mb is None:
        result = CliRunner().invoke(app, [*case.command, *args, "--json"], env=dict(case.env))
        return result.exit_code, result.stdout, result.stderr, None
    rss_file = tmp_path / "rss"
    os.environ["ZG_TEST_RSS_FILE"] = str(rss_file)
    try:
        command = [*case.command, *args, "--json"]
        child = home.child(command, prelude=PEAK_RSS, env=dict(case.env))
        out, err = child.communicate(timeout=300)
    finally:
        del os.environ["ZG_TEST_RSS_FILE"]
    return child.returncode, out, err, int(rss_file.read_text()) // 1024


@pytest.mark.timeout(300)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_bad_input_has_its_outcome(
    case: Case, make_home: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home: Home = make_home("home")
    for key, value in home.env.items():
        monkeypatch.setenv(key, value)
    folder = tmp_path / "input"
    folder.mkdir()
    args = case.make(folder)
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))

    code, stdout, stderr, rss = _run(home, case, args, tmp_path)
    output = stdout + stderr

    if rss is not None:
        assert rss <= case.max_rss_mb, f"peak memory {rss} MB"  # type: ignore[operator]
    # Nothing was left beside the input, and no note reached the vault.
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before
    vault = home.path / "vault"
    assert not vault.exists() or not [p for p in vault.rglob("*") if p.is_file()]
    counts = home.shape()["counts"]
    if case.outcome == "error":
        assert code in (1, 2), (code, output)
        named = Path(args[0]).name
        lowered = output.casefold()
        flag = next((a for a in args if a.startswith("--")), None)
        assert named.casefold() in lowered or (flag and flag in output), output
        for fragment in case.says:
            assert fragment.casefold() in lowered, (fragment, output)
        assert "Traceback" not in output
        assert sum(counts.values()) == 0, counts
        return
    assert code == 0, output
    report = json.loads(stdout)
    assert report["errors"] == [] and report["contents"], report
    assert counts["Content"] >= 1
    warnings = [w for content in report["contents"] for w in content["warnings"]]
    if case.outcome == "warning":
        assert any(all(f in w for f in case.says) for w in warnings), warnings
