"""How the store benchmark measures: latency and recall summaries, peak memory, progress.

Part of `store.py` (run that); kept apart so each module stays readable.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

import numpy as np


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def summary_ms(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, int(np.ceil(0.95 * len(ordered))) - 1)]
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 3),
        "p95_ms": round(p95 * 1000, 3),
    }


def recall_summary(values: list[float]) -> dict[str, float]:
    return {
        "recall_at_k": round(float(np.mean(values)), 4),
        "min_recall": round(float(np.min(values)), 4),
    }


def reset_peak_rss() -> None:
    """Linux: reset this process's VmHWM to its current RSS (elsewhere, peaks accumulate)."""
    with suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def status_kb(pid: int | str, field: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def peak_rss_mb() -> float:
    kb = status_kb("self", "VmHWM")
    if kb is None:
        import resource

        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(kb / 1024, 1)


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = action()
    return time.perf_counter() - started, result
