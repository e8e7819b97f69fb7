"""Start, review, resume and list extraction runs: what the CLI and the web app call.

A run is a checkpoint thread: it can wait for review for days, and a crash resumes from the
last finished step instead of starting over.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command

from zettelgraph.workflows.concept_extraction.graph import (
    RECURSION_LIMIT,
    build_concept_extraction_graph,
)
from zettelgraph.workflows.context import Services

StepCallback = Callable[[str], None]


class RunError(ValueError):
    """A run that does not exist or cannot take the requested action."""


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

    def as_dict(self) -> dict[str, Any]:
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


class ExtractionRuns:
    """The runs of one store and checkpoint database."""

    def __init__(self, services: Services, checkpointer: BaseCheckpointSaver[Any]) -> None:
        self.services = services
        self.checkpointer = checkpointer
        self.graph = build_concept_extraction_graph(services, checkpointer)

    def _config(self, run_id: str) -> RunnableConfig:
        return {
            "configurable": {"thread_id": run_id},
            "recursion_limit": RECURSION_LIMIT,
            "max_concurrency": self.services.settings.concurrency(self.services.llms.main_spec),
        }

    def start(
        self,
        content_id: str,
        *,
        suggestions: str | None = None,
        force: bool = False,
        on_step: StepCallback | None = None,
    ) -> RunView:
        """Run from the start up to the review (or the end, for skipped contents)."""
        run_id = f"run-{uuid.uuid4().hex[:12]}"
        payload = {
            "content_id": content_id,
            "run_id": run_id,
            "suggestions": suggestions,
            "force": force,
        }
        self._drive(payload, run_id, on_step)
        return self.view(run_id)

    def answer(
        self,
        run_id: str,
        action: str,
        feedback: str | None = None,
        on_step: StepCallback | None = None,
    ) -> RunView:
        """The reader's decision on a run waiting for review."""
        view = self.view(run_id)
        if view.status != "awaiting_review":
            raise RunError(f"run {run_id} is {view.status}, not waiting for review")
        if action not in ("approve", "feedback", "abort"):
            raise RunError("the answer must be approve, feedback or abort")
        if action == "feedback" and not (feedback or "").strip():
            raise RunError("feedback needs some text saying what to change")
        self._drive(Command(resume={"action": action, "feedback": feedback}), run_id, on_step)
        return self.view(run_id)

    def resume(self, run_id: str, on_step: StepCallback | None = None) -> RunView:
        """Continue a run that stopped in the middle (a crash, a killed process)."""
        view = self.view(run_id)
        if view.status != "interrupted":
            raise RunError(f"run {run_id} is {view.status}; only an interrupted run resumes")
        self._drive(None, run_id, on_step)
        return self.view(run_id)

    def _drive(self, payload: Any, run_id: str, on_step: StepCallback | None) -> None:
        # durability="sync": each step's checkpoint is on disk before the next step starts, so
        # a process killed between the store commit and the vault resumes at the vault.
        for update in self.graph.stream(
            payload, self._config(run_id), stream_mode="updates", durability="sync"
        ):
            if on_step is not None and isinstance(update, dict):
                for name in update:
                    if not name.startswith("__"):
                        on_step(name)

    def view(self, run_id: str) -> RunView:
        snapshot = self.graph.get_state(self._config(run_id))
        values: dict[str, Any] = dict(snapshot.values or {})
        if not values:
            raise RunError(f"no run {run_id!r}: `zettelgraph runs` lists them")
        report = None
        for task in snapshot.tasks:
            for pending in task.interrupts:
                if isinstance(pending.value, dict) and "report" in pending.value:
                    report = pending.value["report"]
        if report is not None:
            status = "awaiting_review"
        elif snapshot.next or snapshot.tasks:
            # Steps left to run, or a step whose results were saved but not yet applied.
            status = "interrupted"
        else:
            status = values.get("status", "running")
        updated = snapshot.created_at
        return RunView(
            run_id=run_id,
            content_id=values.get("content_id"),
            title=(values.get("content") or {}).get("title"),
            status=status,
            next=list(snapshot.next),
            report=report,
            committed=values.get("committed", {}),
            warnings=list(dict.fromkeys(values.get("warnings", []))),
            updated_at=updated,
        )

    def list(self) -> list[RunView]:
        """Every run, newest first."""
        seen: dict[str, str] = {}
        for item in self.checkpointer.list(None):
            thread = item.config["configurable"]["thread_id"]
            stamp = item.checkpoint.get("ts", "")
            if thread not in seen or stamp > seen[thread]:
                seen[thread] = stamp
        runs = [self.view(thread) for thread in seen]
        return sorted(runs, key=lambda r: r.updated_at or "", reverse=True)
