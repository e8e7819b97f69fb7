"""Deterministic checks on a model's proposal, run before the reader sees it.

A small model writes plausible but wrong things: English analyses for a Spanish graph, a
concept that pastes its quote, a quote cited by an idea it does not support, every concept
related to every other. Each check here is a pure function over plain data (and vectors the
caller computed), so it is cheap, testable and the same for every provider. What a check does
is returned as `Finding`s that the workflow counts and shows in the review report.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from typing_extensions import TypedDict

Guard = Literal["language", "grounding", "distillation", "relations", "coverage"]
Action = Literal["dropped", "flagged", "repaired", "sent_for_rewrite", "added"]


class FindingRecord(TypedDict):
    """A `Finding` as a run's state keeps it, with its message."""

    guard: str  # a Guard
    action: str  # an Action
    subject: str
    detail: str
    message: str


@dataclass(frozen=True)
class Finding:
    """One thing a check did to the proposal, in words a reviewer can read."""

    guard: Guard
    action: Action
    subject: str  # the concept title or relation it concerns
    detail: str

    def message(self) -> str:
        return f"check {self.guard}: {self.action.replace('_', ' ')} {self.subject}: {self.detail}"

    def as_dict(self) -> FindingRecord:
        return {
            "guard": self.guard,
            "action": self.action,
            "subject": self.subject,
            "detail": self.detail,
            "message": self.message(),
        }


def count_findings(findings: Iterable[Mapping[str, object]]) -> dict[str, dict[str, int]]:
    """Per guard, how many times each action was taken (for the report and benchmarks)."""
    counts: dict[str, dict[str, int]] = {}
    for finding in findings:
        per_guard = counts.setdefault(str(finding["guard"]), {})
        action = str(finding["action"])
        per_guard[action] = per_guard.get(action, 0) + 1
    return counts
