"""Start, review, resume, show and list experiments (`exp-...`): what the CLI and the web
app call.

An experiment is a checkpointed run of the experiment workflow, like an extraction run, with
the run rules of `runs.WorkflowRuns` (locks, one process driving a run at a time, resume
after a crash). It differs in what it owns: it reads several contents and writes nothing to
the graph, so any number of experiments may run over the same contents at once; and in its
review, which decides on a plan (approve, modify the tools, or reject) instead of a proposal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from langgraph.graph.state import CompiledStateGraph
from pydantic import ValidationError

from zettelgraph.context import Services
from zettelgraph.experiments.models import (
    DocumentInfo,
    ExperimentRecord,
    ExperimentType,
    FocusTerm,
    LLMCallRecord,
    TermMatch,
    ToolRun,
)
from zettelgraph.experiments.strategy import StrategyError, check_strategy
from zettelgraph.experiments.tools import TOOLS
from zettelgraph.models import utcnow
from zettelgraph.services.run_view import RunError, RunView, StepCallback
from zettelgraph.services.runs import WorkflowRuns
from zettelgraph.workflows.experiment.graph import RECURSION_LIMIT, build_experiment_graph
from zettelgraph.workflows.experiment.nodes_plan import DECISIONS
from zettelgraph.workflows.experiment.report import TYPE_TITLES, evolution_rows
from zettelgraph.workflows.experiment.state import ExperimentState

EXPERIMENT_PREFIX = "exp-"
TYPES = tuple(t.value for t in ExperimentType)
__all__ = [
    "DECISIONS",
    "TYPES",
    "TYPE_TITLES",
    "ExperimentRuns",
    "ExperimentView",
    "FocusTermError",
    "focus_term",
]


class FocusTermError(ValueError):
    """What the reader gave for the focus term is not valid; `field` names the part (term,
    definition, source, domain, anchors, match)."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


# The limits a reader is told when a part is too long (FocusTerm's bounds).
FOCUS_LIMITS = "term up to 100 characters, definition 1,000, source 300, domain 100, 12 anchors"


def focus_term(
    term: str,
    *,
    definition: str = "",
    source: str = "",
    domain: str = "",
    anchors: Sequence[str] = (),
    match: TermMatch = "stems",
) -> FocusTerm:
    """The focus term from what the reader typed, trimmed: the one check the CLI, the web
    form, the JSON API and the MCP tool share. `domain` is the field the term belongs to
    (e.g. derecho, teología); the prompts show it beside the definition.

    Args:
        term: the term the experiment follows, e.g. honra.
        definition: its baseline meaning, if given.
        source: where the definition is from.
        domain: the field the term belongs to.
        anchors: words that pin the baseline meaning (blank ones dropped).
        match: "stems" (as search finds words) or "exact" (the very word).

    Returns:
        The checked FocusTerm, every part trimmed.

    Raises:
        FocusTermError: a part is empty where it may not be, or too long; names the part.
    """
    try:
        return FocusTerm(
            term=term.strip(),
            definition=definition.strip(),
            source=source.strip(),
            domain=domain.strip(),
            anchors=[a.strip() for a in anchors if a.strip()],
            match=match,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        field = str(first["loc"][0]) if first.get("loc") else "term"
        raise FocusTermError(field, f"{first['msg']} ({FOCUS_LIMITS})") from exc


@dataclass
class ExperimentView:
    """An experiment as it stands: the run, and what its stages have produced so far."""

    run: RunView
    values: dict[str, Any]

    @property
    def id(self) -> str:
        """The experiment's run id (`exp-...`)."""
        return self.run.run_id

    @property
    def status(self) -> str:
        """The run's status: `awaiting_review`, `running`, `interrupted`, or the status the
        experiment set last (`completed` once its report is written)."""
        return self.run.status

    def as_dict(self) -> dict[str, Any]:
        """What `zettelgraph experiment show --json` prints and the web's experiment page reads.

        Returns:
            `id`, `status`, `stage`, `type`, `term`, `goal`, the documents and passages used, the
            recommended and approved strategy, the decision and review notes, `tool_runs`,
            `synthesis`, `evolution` (the term-evolution rows), `report_path`, `charts`,
            `llm_calls`, `warnings`, `created_at`, `completed_at` and `review` (what the review
            shows); a value a stage has not produced yet is None or empty.
        """
        v = self.values
        return {
            "id": self.id,
            "status": self.status,
            "stage": v.get("stage"),
            "type": v.get("type"),
            "term": v.get("term"),
            "goal": v.get("experiment_goal") or v.get("goal"),
            "term_context": v.get("term_context"),
            "documents": v.get("documents", []),
            "term_passages": v.get("term_passages", {}),
            "recommended_strategy": v.get("recommended_strategy"),
            "strategy_reasoning": v.get("strategy_reasoning"),
            "confidence": v.get("confidence"),
            "strategy_source": v.get("strategy_source"),
            "decision": v.get("decision"),
            "review_notes": v.get("review_notes", ""),
            "approved_strategy": v.get("approved_strategy"),
            "tool_runs": v.get("tool_runs", []),
            "synthesis": v.get("synthesis"),
            # The term-evolution table as the report shows it: measures and usage per group.
            # The values are the experiment graph's state, as its checkpoint keeps it.
            "evolution": evolution_rows(cast("ExperimentState", v)) if v.get("synthesis") else [],
            "report_path": v.get("report_path"),
            "charts": v.get("charts", []),
            "llm_calls": v.get("llm_calls", []),
            "warnings": self.run.warnings,
            "created_at": v.get("created_at"),
            "completed_at": v.get("completed_at"),
            "review": self.run.report,
        }

    def record(self) -> ExperimentRecord:
        """What the experiment did, for provenance.

        Returns:
            An `ExperimentRecord`: type, term, goal, documents, status, dates, decision, the
            strategy used, tool runs and report path.
        """
        v = self.values

        def when(key: str) -> datetime | None:
            return datetime.fromisoformat(v[key]) if v.get(key) else None

        return ExperimentRecord(
            id=self.id,
            type=ExperimentType(v["type"]),
            term=FocusTerm.model_validate(v["term"]),
            goal=v.get("experiment_goal") or v.get("goal") or "",
            documents=[DocumentInfo.model_validate(d) for d in v.get("documents", [])],
            status=self.status,
            created_at=when("created_at") or utcnow(),
            reviewed_at=when("reviewed_at"),
            decision=v.get("decision"),
            review_notes=v.get("review_notes", ""),
            strategy=v.get("approved_strategy") or v.get("recommended_strategy") or {},
            tool_runs=[ToolRun.model_validate(r) for r in v.get("tool_runs", [])],
            llm_calls=[LLMCallRecord.model_validate(c) for c in v.get("llm_calls", [])],
            completed_at=when("completed_at"),
            report_path=v.get("report_path"),
        )


class ExperimentRuns(WorkflowRuns):
    """The experiments of one store and checkpoint database."""

    run_prefix = EXPERIMENT_PREFIX
    recursion_limit = RECURSION_LIMIT
    noun = "experiment"
    listing = "zettelgraph experiment list"

    def _build_graph(self) -> CompiledStateGraph[Any, Any, Any, Any]:
        return build_experiment_graph(self.services, self.checkpointer)

    def new(
        self,
        kind: str,
        term: FocusTerm,
        content_ids: Sequence[str],
        *,
        goal: str | None = None,
        on_step: StepCallback | None = None,
    ) -> ExperimentView:
        """Analyse the experiment and recommend a plan, up to the reader's review.

        Args:
            kind: the experiment type, one of TYPES.
            term: the term to follow, with the reader's baseline meaning.
            content_ids: the contents to read (repeats ignored).
            goal: what the reader wants to learn, if said.
            on_step: told each step's name as it finishes.

        Returns:
            The experiment, waiting for review of its plan.

        Raises:
            RunError: an unknown type, an unknown content, or a number of contents the type cannot
                use.
        """
        if kind not in TYPES:
            raise RunError(f"unknown experiment type {kind!r}: one of {', '.join(TYPES)}")
        ids = list(dict.fromkeys(content_ids))
        if not ids:
            raise RunError("an experiment needs at least one content (--contents ID)")
        missing = [cid for cid in ids if self.services.store.get_content(cid) is None]
        if missing:
            raise RunError(
                f"no content with id {', '.join(missing)}: `zettelgraph contents` lists them"
            )
        if kind == ExperimentType.SINGLE_DOCUMENT and len(ids) != 1:
            raise RunError("a single_document experiment reads exactly one content")
        if kind in (ExperimentType.TEMPORAL, ExperimentType.CROSS_DOMAIN) and len(ids) < 2:
            raise RunError(f"a {kind} experiment compares contents: give two or more")
        run_id = self.new_run_id()
        payload = {
            "run_id": run_id,
            "type": kind,
            "term": term.model_dump(mode="json"),
            "content_ids": ids,
            "goal": (goal or "").strip() or None,
            "created_at": utcnow().isoformat(),
        }
        self._launch(run_id, payload, on_step, f"experiment {run_id} is being started")
        return self.show(run_id)

    def review(
        self,
        run_id: str,
        action: str,
        *,
        strategy: Mapping[str, Sequence[str]] | None = None,
        notes: str = "",
        on_step: StepCallback | None = None,
    ) -> ExperimentView:
        """The reader's decision on the plan.

        Args:
            run_id: the experiment's whole id.
            action: one of DECISIONS: approve, modify (run `strategy` instead) or reject.
            strategy: for modify, content id -> tool names; refused with every reason when
                it cannot run.
            notes: the reader's notes, kept with the experiment.
            on_step: told each step's name as it finishes.

        Returns:
            The experiment after the decision (completed, or rejected).

        Raises:
            RunError: a bad action or strategy, or an experiment not waiting for review.
        """
        if action not in DECISIONS:
            raise RunError(f"the review is one of {', '.join(DECISIONS)}, not {action!r}")
        answer: dict[str, Any] = {"action": action, "notes": notes}
        view = self.show(run_id)
        if view.status != "awaiting_review":
            raise RunError(f"experiment {run_id} is {view.status}, not waiting for review")
        if action == "modify":
            ids = view.values.get("content_ids", [])
            try:
                answer["strategy"] = check_strategy(strategy or {}, ids, TOOLS)
            except StrategyError as exc:
                raise RunError(f"the modified strategy cannot run: {exc}") from exc
        self.resume_review(run_id, answer, on_step)
        return self.show(run_id)

    def continue_run(self, run_id: str, on_step: StepCallback | None = None) -> ExperimentView:
        """Continue an experiment that stopped in the middle (a crash, a provider outage).

        Args:
            run_id: the experiment's whole id.
            on_step: told each step's name as it finishes.

        Returns:
            The experiment once it waits for review or ends.

        Raises:
            RunError: it is not interrupted.
        """
        self.resume(run_id, on_step)
        return self.show(run_id)

    def show(self, run_id: str) -> ExperimentView:
        """The experiment as it stands.

        Args:
            run_id: the experiment's whole id.

        Returns:
            Its view (the run and what its stages produced).

        Raises:
            RunError: there is no such experiment.
        """
        if not self.owns(run_id):
            raise RunError(f"no experiment {run_id!r}: `zettelgraph experiment list` lists them")
        try:
            run, values = self._view_and_values(run_id)
        except RunError as exc:
            raise RunError(
                f"no experiment {run_id!r}: `zettelgraph experiment list` lists them"
            ) from exc
        return ExperimentView(run=run, values=values)

    def experiments(self) -> list[ExperimentView]:
        """Every experiment, newest first (one read of each experiment's checkpoint).

        Returns:
            An `ExperimentView` per experiment, the most recently updated first.
        """
        views = [self.show(run_id) for run_id in self._threads()]
        return sorted(views, key=lambda v: v.run.updated_at or "", reverse=True)

    def record(self, run_id: str) -> ExperimentRecord:
        """What the experiment `run_id` did, for provenance (RunError when there is none).

        Args:
            run_id: the experiment's whole id.

        Returns:
            Its `ExperimentRecord`.

        Raises:
            RunError: there is no such experiment.
        """
        return self.show(run_id).record()


def load_experiment(services: Services, run_id: str) -> ExperimentRecord:
    """An experiment's record from the configured checkpoint database (RunError if none).

    Args:
        services: the open services (the settings name the checkpoint database).
        run_id: the experiment's id or a unique prefix of it, `exp-` or not.

    Returns:
        Its `ExperimentRecord`.

    Raises:
        IdError: `run_id` names no experiment or several.
        RunError: the checkpoint database does not hold it.
        CheckpointError: the checkpoint database cannot be opened.
    """
    from zettelgraph.services.checkpoints import open_checkpointer

    with open_checkpointer(services.settings) as checkpointer:
        runs = ExperimentRuns(services, checkpointer)
        return runs.record(runs.resolve_run_id(run_id))
