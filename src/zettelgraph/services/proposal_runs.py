"""The runs whose review decides on a proposal (`ProposalRuns`: concept and graph extraction),
and finding a run among several workflows' runs (`find_run`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from zettelgraph.services.ids import IdKind, resolve_id
from zettelgraph.services.run_view import (
    RunError,
    RunView,
    StepCallback,
)

# The reader's decisions on a proposal (`ProposalRuns.answer`).
from zettelgraph.services.runs import WorkflowRuns

ACTIONS = ("approve", "feedback", "abort")
R = TypeVar("R", bound=WorkflowRuns)


def find_run(every: Sequence[R], given: str) -> tuple[R, str]:
    """The workflow and whole id of the run `given` names among several workflows' runs
    (concept and graph extraction): its id or a unique prefix, with or without its kind
    prefix (`graph-`).

    Args:
        every: the workflows' runs; the first one's noun and listing word the errors.
        given: what the reader typed.

    Returns:
        The runs of the workflow the run belongs to, and the run's whole id.

    Raises:
        IdError: `given` names no run or several.
    """
    kind = IdKind(every[0].noun, every[0].listing, tuple(r.run_prefix for r in every))
    run_id = resolve_id(given, kind, (t for runs in every for t in runs._threads()))
    return next(runs for runs in every if runs.owns(run_id)), run_id


class ProposalRuns(WorkflowRuns):
    """The runs whose review decides on a proposal to write into the graph (concept and graph
    extraction): the reader approves it, asks for changes, or aborts it (ACTIONS). An
    experiment's review decides on a plan instead (`ExperimentRuns.review`)."""

    def answer(
        self,
        run_id: str,
        action: str,
        feedback: str | None = None,
        on_step: StepCallback | None = None,
    ) -> RunView:
        """The reader's decision on a run waiting for review.

        Args:
            run_id: the run's whole id.
            action: one of ACTIONS: approve (commit the proposal), feedback (revise it with
                `feedback`, then wait for review again) or abort (commit nothing).
            feedback: what to change, for `feedback`.
            on_step: told each step's name as it finishes.

        Returns:
            The run after the decision: committed, aborted, or awaiting review again.

        Raises:
            RunError: a bad action, feedback without text, or a run not waiting for review.
            BusyError: another decision on it is in progress.
        """
        if action not in ACTIONS:
            raise RunError(f"the answer must be one of {', '.join(ACTIONS)}")
        if action == "feedback" and not (feedback or "").strip():
            raise RunError("feedback needs some text saying what to change")
        return self.resume_review(run_id, {"action": action, "feedback": feedback}, on_step)
