"""Whether a process of this machine still runs: how leftovers of a killed process (a
temporary note file, a store lease) are told from the work of a live one."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """True unless no process `pid` exists; a process we may not signal counts as alive, since
    its files and leases are not ours to take."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
