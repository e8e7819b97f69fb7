"""The lock files that let one process at a time drive a run, or start a run of a content
(one per key under ZETTELGRAPH_HOME/locks). A decision waits for no one: a lock another
process holds is a refusal (BusyError) at once, not a wait. What lock files cannot see (another
machine sharing the store) the store's claims settle (`run_claims`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from zettelgraph.services.run_view import BusyError


class RunLocks:
    """The lock files in one folder, by key (a run id, or a content's start)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / (re.sub(r"[^A-Za-z0-9_.-]", "_", key) + ".lock")

    @contextmanager
    def exclusive(self, key: str, busy: str) -> Iterator[None]:
        """Hold the lock `key` or refuse at once with `busy` (BusyError).

        Args:
            key: what to lock (a run id, or a content's start); any character not safe in a file
                name becomes `_`.
            busy: the message of the error when another process holds it.

        Yields:
            Nothing; the lock is held until the `with` block ends.

        Raises:
            BusyError: another process holds the lock (`busy` is its message).
        """
        self.folder.mkdir(parents=True, exist_ok=True)
        lock = FileLock(self._path(key), timeout=0)
        try:
            lock.acquire()
        except Timeout as exc:
            raise BusyError(busy) from exc
        try:
            yield
        finally:
            lock.release()

    def held(self, key: str) -> bool:
        """Whether some process holds the lock `key` now.

        Args:
            key: the lock's key, as `exclusive` takes it.

        Returns:
            True when a process holds it; False when it is free or was never taken.
        """
        path = self._path(key)
        if not path.exists():
            return False
        lock = FileLock(path, timeout=0)
        try:
            lock.acquire()
        except Timeout:
            return True
        lock.release()
        return False
