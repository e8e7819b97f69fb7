"""What every reviewed workflow's runs share (`WorkflowRuns`): the run rules. Each workflow's
runs are a subclass: concept extraction (`extraction_runs.ExtractionRuns`), graph extraction
(`graph_runs.GraphRuns`), experiments (`experiments.ExperimentRuns`).

A run is a checkpoint thread: it can wait for review for days, and a crash resumes from the
last finished step instead of starting over. The run rules live here and nowhere else:
- one open run (awaiting review or interrupted) per content: a second start is refused with
  a message naming the open run;
- one process at a time drives a run (a lock file per run under ZETTELGRAPH_HOME/locks): a
  second decision or resume while one is in progress is refused as such, not as "interrupted";
- the decisions a reader can take on a proposal are ACTIONS (`proposal_runs.py`).
What file locks cannot see (two machines sharing a store and a checkpoint database) the store
settles: a start claims its content there (`run_claims`), and the commit re-checks inside its
transaction that no other run committed the content since this one started
(ChangeSet.expect_processed).
"""

from __future__ import annotations

import dataclasses
import threading
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.errors import GraphRecursionError
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from zettelgraph.context import Services
from zettelgraph.services import run_claims
from zettelgraph.services.checkpoints import thread_heads
from zettelgraph.services.errors import MODEL_UNUSABLE
from zettelgraph.services.ids import IdKind, resolve_id
from zettelgraph.services.run_locks import RunLocks
from zettelgraph.services.run_view import (
    OPEN_STATUSES,
    OpenRunError,
    RunError,
    RunView,
    StepCallback,
)

# The reader's decisions on a proposal (`ProposalRuns.answer`).


class WorkflowRuns:
    """The runs of one reviewed workflow over one store and checkpoint database.

    What every such workflow shares lives here: run ids with the workflow's own prefix (two
    workflows share a checkpoint database and each lists only its own runs), the locks, the
    one-open-run-per-content rule, driving, viewing and listing runs, and the reader's
    answers. A subclass builds its graph and says what starting a run takes.
    """

    # A thread of the checkpoint database is a run of this workflow when its id starts so.
    run_prefix: str
    # The workflow's step limit (its graph module's RECURSION_LIMIT).
    recursion_limit: int
    # How a reader is told about this workflow's ids: "no run ...; `zettelgraph runs` ...".
    noun = "run"
    listing = "zettelgraph runs"

    def __init__(self, services: Services, checkpointer: BaseCheckpointSaver[Any]) -> None:
        self.services = services
        self.checkpointer = checkpointer
        self.graph = self._build_graph()
        self.locks = RunLocks(Path(services.settings.home) / "locks")
        # Views of the runs as last listed, by run id: (the run's head mark, the view, whether
        # it stopped in the middle). A run whose head has not moved is not read again.
        self._listed: dict[str, tuple[str, RunView, bool]] = {}
        self._listed_lock = threading.Lock()

    def _build_graph(self) -> CompiledStateGraph[Any, Any, Any, Any]:
        raise NotImplementedError

    def owns(self, run_id: str) -> bool:
        """Whether `run_id` names a run of this workflow.

        Args:
            run_id: a whole run id.

        Returns:
            True when it starts with this workflow's `run_prefix`.
        """
        return run_id.startswith(self.run_prefix)

    def resolve_run_id(self, given: str) -> str:
        """The run `given` names: its id or a unique prefix, `run-` or not (`ab12`,
        `run-ab12`); IdError when it names none or several (services/ids.py).

        Args:
            given: what the reader typed.

        Returns:
            The run's whole id.

        Raises:
            IdError: `given` names no run of this workflow, or several.
        """
        if self.owns(given) and self.checkpointer.get_tuple(self._config(given)) is not None:
            return given  # a whole id: one read, not a listing of every run
        return resolve_id(given, self.id_kind(), self._threads())

    def id_kind(self) -> IdKind:
        """How this workflow's run ids are named to the reader and given by them.

        Returns:
            An `IdKind` with the workflow's noun, listing command and run prefix.
        """
        return IdKind(self.noun, self.listing, (self.run_prefix,))

    def _content_lock(self, content_id: str) -> str:
        """The lock held while a run of `content_id` starts."""
        return f"content-{content_id}"

    def open_run_of(self, content_id: str) -> RunView | None:
        """The run of this content that is still open (awaiting review, interrupted or
        running; the newest), if any.

        Args:
            content_id: the content's full id.

        Returns:
            The run's view, or None when no run of the content is open.
        """
        for view in self.list():
            if view.content_id == content_id and view.status in OPEN_STATUSES:
                return view
        return None

    def _config(self, run_id: str) -> RunnableConfig:
        return {
            "configurable": {"thread_id": run_id},
            "recursion_limit": self.recursion_limit,
            "max_concurrency": self.services.llms.sizing_profile.concurrency,
        }

    def _start(
        self, content_id: str, payload: dict[str, Any], on_step: StepCallback | None
    ) -> RunView:
        """Run `payload` (which names the run) from the start up to the review, or the end.

        Refused (OpenRunError) when the content has an open run of this workflow, and
        (BusyError) while another process is starting one."""
        run_id = self.new_run_id()
        payload = {**payload, "content_id": content_id, "run_id": run_id}
        busy = "another run of this content is being started right now; `zettelgraph runs`"
        key = self._content_lock(content_id)
        with self.locks.exclusive(key, busy + " lists it"):
            existing = self.open_run_of(content_id)
            if existing is not None:
                raise OpenRunError(existing)
            # What the lock file cannot see (another machine) the store's claim settles.
            mine = run_claims.claim_content(self.services.store, key, run_id, self.view)
            try:
                self._launch(run_id, payload, on_step, busy)
            except MODEL_UNUSABLE:
                run_claims.release(self.services.store, key, mine)
                raise
        return self.view(run_id)

    def new_run_id(self) -> str:
        """A new run's id: the workflow's `run_prefix` and 12 random hex digits.

        Returns:
            The id, unique for practical purposes (48 random bits).
        """
        return f"{self.run_prefix}{uuid.uuid4().hex[:12]}"

    def _launch(
        self, run_id: str, payload: dict[str, Any], on_step: StepCallback | None, busy: str
    ) -> None:
        """Drive a new run from its first step, holding its lock."""
        with self.locks.exclusive(run_id, busy):
            try:
                self._drive(payload, run_id, on_step)
            except MODEL_UNUSABLE:
                # The model could not be used at all, so the run read nothing a reader
                # would resume; kept, it would hold the content as an open run.
                self.checkpointer.delete_thread(run_id)
                raise

    def resume_review(
        self,
        run_id: str,
        answer: dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]],
        on_step: StepCallback | None,
    ) -> RunView:
        """Resume a run waiting for review with the reader's `answer`, holding its lock.
        `answer` may be a function of the run's state (read under the lock), for decisions
        that must be checked against the proposal as it stands.

        Args:
            run_id: the run's whole id.
            answer: the reader's decision as the review takes it, or a function from the run's state
                to it.
            on_step: called with each step's name as the run goes on; None for silence.

        Returns:
            The run once it waits for review again or ends.

        Raises:
            RunError: there is no such run, or it is not waiting for review.
            BusyError: another decision on the run is in progress.
        """
        busy = (
            f"another decision on run {run_id} is in progress; wait for it to finish "
            "(`zettelgraph runs` shows the run's state) instead of deciding again"
        )
        with self.locks.exclusive(run_id, busy):
            view, values = self._view_and_values(run_id, locked=True)
            if view.status != "awaiting_review":
                raise RunError(f"run {run_id} is {view.status}, not waiting for review")
            resume = answer(values) if callable(answer) else answer
            self._drive(Command(resume=resume), run_id, on_step)
        return self._after_decision(self.view(run_id), on_step)

    def resume(self, run_id: str, on_step: StepCallback | None = None) -> RunView:
        """Continue a run that stopped in the middle (a crash, a killed process).

        Args:
            run_id: the run's whole id.
            on_step: told each step's name as it finishes.

        Returns:
            The run once it waits for review again or ends.

        Raises:
            RunError: it is not interrupted.
            BusyError: another process drives it.
        """
        busy = f"run {run_id} is being driven by another process right now; let it finish"
        with self.locks.exclusive(run_id, busy):
            view = self.view(run_id, locked=True)
            if view.status != "interrupted":
                raise RunError(f"run {run_id} is {view.status}; only an interrupted run resumes")
            self._drive(None, run_id, on_step)
        return self._after_decision(self.view(run_id), on_step)

    def _after_decision(self, view: RunView, on_step: StepCallback | None) -> RunView:
        """What follows a decision or a resume once the workflow has run (nothing here)."""
        return view

    def _drive(self, payload: Any, run_id: str, on_step: StepCallback | None) -> None:
        try:
            self._stream(payload, run_id, on_step)
        except GraphRecursionError:
            # Past its step limit a run is shown with what it has, not lost in an error. The
            # workflow says how (`_at_recursion_limit`); LangGraph drops the pending steps and
            # follows the edges of the node the update is made as.
            config = self._config(run_id)
            snapshot = self.graph.get_state(config)
            if not snapshot.next:
                return  # it ended on its last allowed step, which LangGraph counts as past it
            routed = self._at_recursion_limit(dict(snapshot.values or {}), list(snapshot.next))
            if routed is None:
                raise RunError(
                    f"run {run_id} stopped after {self.recursion_limit} steps (the workflow's "
                    f"recursion limit); `zettelgraph resume {run_id}` goes on from there"
                ) from None
            update, as_node = routed
            self.graph.update_state(config, update, as_node=as_node)
            self._stream(None, run_id, on_step)

    def _at_recursion_limit(
        self, values: dict[str, Any], pending: list[str]
    ) -> tuple[Mapping[str, Any], str] | None:
        """The update (and the node it is made as) that ends a run stopped by the recursion
        limit before `pending`; None leaves it interrupted, for `resume`."""
        return None

    def _stream(self, payload: Any, run_id: str, on_step: StepCallback | None) -> None:
        # durability="sync": each step's checkpoint is on disk before the next step starts, so
        # a process killed between the store commit and the vault resumes at the vault.
        for update in self.graph.stream(
            payload, self._config(run_id), stream_mode="updates", durability="sync"
        ):
            if on_step is not None and isinstance(update, dict):
                for name in update:
                    if not name.startswith("__"):
                        on_step(name)

    def view(self, run_id: str, *, locked: bool = False) -> RunView:
        """The run as it stands. A run that looks stopped in the middle is `running` while a
        process holds its lock.

        Args:
            run_id: the run's whole id.
            locked: the caller holds the run's lock, so no one else can be driving it.

        Returns:
            The run's view.

        Raises:
            RunError: there is no such run.
        """
        return self._view_and_values(run_id, locked=locked)[0]

    def _view_and_values(
        self, run_id: str, *, locked: bool = False
    ) -> tuple[RunView, dict[str, Any]]:
        """The run's view and its whole state, from one read of its checkpoint."""
        snapshot = self.graph.get_state(self._config(run_id)) if self.owns(run_id) else None
        values: dict[str, Any] = dict(snapshot.values or {}) if snapshot else {}
        if snapshot is None or not values:
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
            status = "running" if not locked and self.locks.held(run_id) else "interrupted"
        else:
            status = values.get("status", "running")
        updated = snapshot.created_at
        view = RunView(
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
        return view, values

    def state_of(self, run_id: str) -> dict[str, Any]:
        """The run's whole state as its last checkpoint holds it.

        Args:
            run_id: the run's whole id.

        Returns:
            Its state's values, by field name.

        Raises:
            RunError: there is no such run.
        """
        return self._view_and_values(run_id)[1]

    def list(self) -> list[RunView]:
        """Every run, newest first.

        The inbox and every source page list the runs: a run is read from its checkpoint
        only when its head (`checkpoints.thread_heads`) moved since the last listing, so a
        listing is one query plus the runs that changed (5 runs: 93 ms before, 2 ms after).
        Each view is a copy the caller may change.

        Returns:
            A `RunView` per run of this workflow, newest first.
        """
        heads = thread_heads(self.checkpointer)
        if heads is None:
            runs = [self.view(thread) for thread in self._threads()]
        else:
            runs = [self._listed_view(t, head) for t, head in heads.items() if self.owns(t)]
        return sorted(runs, key=lambda r: r.updated_at or "", reverse=True)

    def _listed_view(self, run_id: str, head: str) -> RunView:
        with self._listed_lock:
            known = self._listed.get(run_id)
        if known is None or known[0] != head:
            # Read as if locked: whether a stopped run is running is asked below, each time.
            view = self.view(run_id, locked=True)
            known = (head, view, view.status == "interrupted")
            with self._listed_lock:
                self._listed[run_id] = known
        _, view, stopped = known
        # A copy: callers may add warnings to what they are given.
        status = "running" if stopped and self.locks.held(run_id) else view.status
        return dataclasses.replace(view, status=status, warnings=list(view.warnings))

    def _threads(self) -> tuple[str, ...]:
        """The ids of this workflow's runs in the checkpoint database, each once."""
        heads = thread_heads(self.checkpointer)
        if heads is not None:
            return tuple(t for t in heads if self.owns(t))
        threads = (
            item.config["configurable"]["thread_id"] for item in self.checkpointer.list(None)
        )
        return tuple(dict.fromkeys(t for t in threads if self.owns(t)))
