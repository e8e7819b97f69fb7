"""A run as the front ends see it (`RunView`), the states that keep a content owned, and the
errors a run action raises: what the CLI, the web app and the MCP server read of every
workflow's runs (`runs.WorkflowRuns` drives them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Told the name of each workflow step as it finishes (a progress line, a log).
StepCallback = Callable[[str], None]

OPEN_STATUSES = ("awaiting_review", "interrupted", "running")


class RunError(ValueError):
    """A run that does not exist or cannot take the requested action."""


class OpenRunError(RunError):
    """A content already has an open run; `run` is it."""

    def __init__(self, run: RunView) -> None:
        self.run = run
        super().__init__(
            f"'{run.title or run.content_id}' already has an open run {run.run_id}, which "
            f"{what_to_do(run)}; approve or abort it before starting another"
        )


def what_to_do(run: RunView) -> str:
    """What an open run is waiting for, and the command that goes on with it.

    Args:
        run: the run, as its checkpoint shows it.

    Returns:
        A phrase to follow the run's id ("is waiting for review: `zettelgraph review ID`"); "is
        STATUS" for a status without a command.
    """
    return {
        "awaiting_review": f"is waiting for review: `zettelgraph review {run.run_id}`",
        # An interrupted run is aborted from its review, which resuming reaches.
        "interrupted": (
            f"stopped in the middle: `zettelgraph resume {run.run_id}` goes on from there "
            f"(to start again instead, resume it, then `zettelgraph review {run.run_id} --abort`)"
        ),
        "running": "is being extracted right now",
    }.get(run.status, f"is {run.status}")


class BusyError(RunError):
    """Another process (or request) is driving this run or starting a run of this content."""


@dataclass
class RunView:
    run_id: str
    content_id: str | None
    title: str | None
    status: str
    next: list[str] = field(default_factory=list)
    report: dict[str, Any] | None = None
    committed: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    updated_at: str | None = None

    @property
    def feedback_error(self) -> str | None:
        """Why the last feedback round stopped short (a model call failed), if it did: the
        run waits for the reader again with what the round managed."""
        rounds = (self.report or {}).get("feedback_log") or []
        error = rounds[-1].get("error") if rounds else None
        return str(error) if error else None

    def as_dict(self) -> dict[str, Any]:
        """What `--json` prints of a run and the web's run pages read.

        Returns:
            `run_id`, `content_id`, `title`, `status`, `next` (the nodes it goes to next), `report`
            (what the review shows, or None), `committed`, `warnings` and `updated_at` (ISO 8601, or
            None).
        """
        return {
            "run_id": self.run_id,
            "content_id": self.content_id,
            "title": self.title,
            "status": self.status,
            "next": self.next,
            "report": self.report,
            "committed": self.committed,
            "warnings": self.warnings,
            "updated_at": self.updated_at,
        }
