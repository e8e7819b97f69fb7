"""Start, review, resume and list concept extraction runs (`run-...`): what the CLI and the web
app call. The run rules are every reviewed workflow's (`runs.WorkflowRuns`); what is the
concept runs' own is what follows a commit: the duplicate threshold's calibration and, when
asked for, cards for the concepts just committed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.graph.state import CompiledStateGraph

from zettelgraph.services import card_generation
from zettelgraph.services.calibration import calibrate_after_approval
from zettelgraph.services.proposal_runs import ProposalRuns
from zettelgraph.services.run_view import RunView, StepCallback
from zettelgraph.workflows.concept_extraction.graph import (
    RECURSION_LIMIT,
    build_concept_extraction_graph,
)
from zettelgraph.workflows.concept_extraction.limits import at_recursion_limit


class ExtractionRuns(ProposalRuns):
    """Concept extraction runs (`run-...`)."""

    run_prefix = "run-"
    recursion_limit = RECURSION_LIMIT

    def _build_graph(self) -> CompiledStateGraph[Any, Any, Any, Any]:
        return build_concept_extraction_graph(self.services, self.checkpointer)

    def start(
        self,
        content_id: str,
        *,
        suggestions: str | None = None,
        force: bool = False,
        on_step: StepCallback | None = None,
    ) -> RunView:
        """Run from the start up to the review (or the end, for skipped contents).

        Args:
            content_id: the content to extract concepts from.
            suggestions: the reader's hints for the extraction, if any.
            force: extract again from a content already processed.
            on_step: told each step's name as it finishes.

        Returns:
            The run, waiting for review (or ended).

        Raises:
            OpenRunError: the content has an open run.
            BusyError: another process is starting one.
        """
        return self._start(content_id, {"suggestions": suggestions, "force": force}, on_step)

    def _after_decision(self, view: RunView, on_step: StepCallback | None) -> RunView:
        if view.status == "committed":
            note = calibrate_after_approval(self)
            if note:
                view.warnings.append(note)
        return self._cards_after_commit(view, on_step)

    def _at_recursion_limit(
        self, values: dict[str, Any], pending: list[str]
    ) -> tuple[Mapping[str, Any], str] | None:
        return at_recursion_limit(values, pending, self.recursion_limit)

    def _cards_after_commit(self, view: RunView, on_step: StepCallback | None) -> RunView:
        """Cards for the concepts a run has just committed, when ZETTELGRAPH_CARDS_AFTER_APPROVAL
        asks for them (they wait as proposed for the reader). The commit stands whatever
        happens here: a failure is a warning on the result, and `cards generate` makes them
        later. The lock is released first: generating reads the store only, and a reader may
        look at the run meanwhile."""
        concepts = list(view.committed.get("concepts") or [])
        if view.status != "committed" or not concepts:
            return view
        if not self.services.settings.cards_after_approval:
            return view
        try:
            report = card_generation.generate_cards(
                self.services, concept_ids=concepts, on_progress=on_step
            )
        except Exception as exc:  # an extra after the commit must never undo or fail it
            view.warnings.append(
                f"cards were not generated ({type(exc).__name__}: {exc}); run `zettelgraph "
                f"cards generate --content {view.content_id}` to make them"
            )
            return view
        view.committed = {
            **view.committed,
            "cards": {
                "generation_id": report.generation_id,
                "proposed": len(report.proposed),
                "dropped": len(report.dropped),
                "duplicates": report.duplicates,
                "calls": report.calls,
            },
        }
        return view
