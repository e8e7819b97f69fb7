"""Token and latency accounting per LLM call name."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class CallStats:
    """One structured call, including its retries and repair round."""

    name: str
    started: float = field(default_factory=time.perf_counter)
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    retries: int = 0
    repairs: int = 0
    failed: bool = False
    seconds: float = 0.0

    def add_tokens(self, usage: Mapping[str, Any] | None) -> None:
        if usage:
            self.input_tokens += int(usage.get("input_tokens", 0) or 0)
            self.output_tokens += int(usage.get("output_tokens", 0) or 0)
            # Prompt tokens the server answered from its cache (llama.cpp, OpenAI): the
            # measure of how well stable instructions first pays off.
            details = usage.get("input_token_details") or {}
            self.cached_input_tokens += int(details.get("cache_read", 0) or 0)


@dataclass
class CallTotals:
    calls: int = 0
    failures: int = 0
    retries: int = 0
    repairs: int = 0
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0


class UsageLog:
    """Thread-safe totals per call name (parallel branches record into one log)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.totals: dict[str, CallTotals] = {}

    def start(self, name: str) -> CallStats:
        return CallStats(name=name)

    def finish(self, stats: CallStats) -> None:
        stats.seconds = time.perf_counter() - stats.started
        with self._lock:
            total = self.totals.setdefault(stats.name, CallTotals())
            total.calls += 1
            total.failures += int(stats.failed)
            total.retries += stats.retries
            total.repairs += stats.repairs
            total.input_tokens += stats.input_tokens
            total.cached_input_tokens += stats.cached_input_tokens
            total.output_tokens += stats.output_tokens
            total.seconds += stats.seconds

    def merge(self, other: UsageLog) -> None:
        """Add `other`'s totals to these: a call recorded in a log of its own (so its caller
        can read that one call's tokens) still counts in the run's log."""
        with other._lock:
            theirs = {name: CallTotals(**vars(t)) for name, t in other.totals.items()}
        with self._lock:
            for name, t in theirs.items():
                total = self.totals.setdefault(name, CallTotals())
                for key, value in vars(t).items():
                    setattr(total, key, getattr(total, key) + value)

    def as_dict(self) -> dict[str, dict[str, float]]:
        with self._lock:
            return {
                name: {
                    "calls": t.calls,
                    "failures": t.failures,
                    "retries": t.retries,
                    "repairs": t.repairs,
                    "input_tokens": t.input_tokens,
                    "cached_input_tokens": t.cached_input_tokens,
                    "output_tokens": t.output_tokens,
                    "seconds": round(t.seconds, 3),
                }
                for name, t in sorted(self.totals.items())
            }
