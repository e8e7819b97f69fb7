"""Whether a process of this machine still runs: how leftovers of a killed process (a
temporary note file, a store lease, a claim on a content) are told from the work of a live one."""

from __future__ import annotations

import os
import socket


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


def this_process() -> str:
    """ "host:pid": this process, as a lease or claim names its holder."""
    return f"{socket.gethostname()}:{os.getpid()}"


def dead_here(holder: str) -> bool:
    """Whether a holder ("host:pid", anything may follow) is a process of this machine that
    is gone. A process of another machine is never known dead: its lease or claim lapses."""
    host, _, rest = holder.partition(":")
    pid = rest.partition(":")[0]
    return host == socket.gethostname() and pid.isdigit() and not alive(int(pid))
