"""Progress of a concept-extraction run on stderr, fed by the workflow's `on_step(node)` callback.

In a terminal: one Rich row per phase, counting finished steps with the time spent in it. Anywhere
else (a pipe, CI, `2> log`) a live display prints nothing until it ends, so there it is one plain
line per finished step, flushed at once: a run of ten minutes never looks stuck.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import IO

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
)
from rich.text import Text

StepCallback = Callable[[str], None]

# The one place that knows the workflow's node names. A node missing here (the graph grows) is
# shown as a phase of its own rather than failing, so adding a node never breaks the CLI.
PHASE_OF_NODE: dict[str, str] = {
    "check_content_processed": "reading",
    "load_content_quotes": "reading",
    "extract_batch": "extracting",
    "merge_candidates": "extracting",
    "detect_duplicate": "duplicates",
    "collect_duplicates": "duplicates",
    "generate_relation_queries": "relations",
    "search_relation_candidates": "relations",
    "create_relations": "relations",
    "collect_relations": "relations",
    "check_concepts": "checks",
    "repair_concept": "checks",
    "collect_repairs": "checks",
    "check_relations": "checks",
    "self_critique": "critique",
    "refine": "critique",
    "present_for_review": "review",
    "incorporate_feedback": "review",
    "check_revisions": "checks",
    "commit": "writing",
    "write_vault": "writing",
    # Graph extraction (workflows/graph_extraction).
    "load_content": "reading",
    "materialise_entities": "entities",
    "resolve_relationships": "relationships",
    # Card generation (workflows/learning_items).
    "select_targets": "reading",
    "write_question": "questions",
    "graph_items": "cards from the graph",
    "check_items": "checks",
    "dedup": "duplicates",
    "write": "writing",
}


def phase_of(node: str) -> str:
    """The user-facing phase of a workflow node; an unknown node is a phase of its own."""
    return PHASE_OF_NODE.get(node, node.replace("_", " "))


def live_display(console: Console) -> bool:
    """Whether `console` can redraw a live display: Rich's own test (a terminal, not TERM=dumb,
    TTY_INTERACTIVE not 0), the one its live display uses to decide whether to animate."""
    return console.is_interactive


@dataclass(frozen=True)
class FinishedStep:
    node: str
    phase: str
    count: int  # how many times this node has finished in this run, this one included
    elapsed: float  # seconds since the command started


class StepCounter:
    """Counts finished steps per node and stamps each with the seconds since `started`."""

    def __init__(
        self, started: float | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._clock = clock
        self.started = clock() if started is None else started
        self._counts: Counter[str] = Counter()

    def elapsed(self) -> float:
        return self._clock() - self.started

    def finish(self, node: str) -> FinishedStep:
        self._counts[node] += 1
        return FinishedStep(node, phase_of(node), self._counts[node], self.elapsed())


def step_line(step: FinishedStep) -> str:
    """A finished step as one plain line: `[  42.1s] extracting: extract_batch done (2)`."""
    return f"[{step.elapsed:6.1f}s] {step.phase}: {step.node} done ({step.count})"


def _write_line(file: IO[str], line: str) -> None:
    file.write(line + "\n")
    # A pipe or a file is block-buffered: without the flush the lines arrive all at the end.
    file.flush()


# Seconds without a finished step after which a plain log says the run is still working: one
# step can be a model call of minutes (a feedback round on the local model), and a log that
# stays silent that long reads as a hang.
HEARTBEAT = 10.0


class PlainSteps:
    """One plain line per finished step, written straight to the file (no Rich: no ANSI codes,
    no wrapping at 80 columns), and a "still working" line after every `HEARTBEAT` seconds
    without one (from a thread, while `running()` is entered)."""

    def __init__(self, file: IO[str], counter: StepCounter, heartbeat: float = HEARTBEAT) -> None:
        self._file = file
        self._counter = counter
        self._heartbeat = heartbeat
        self._lock = threading.Lock()
        self._last_line = counter.elapsed()
        self._last_node = ""
        self._stop = threading.Event()

    def __call__(self, node: str) -> None:
        step = self._counter.finish(node)
        with self._lock:
            _write_line(self._file, step_line(step))
            self._last_line, self._last_node = step.elapsed, node

    @contextmanager
    def running(self) -> Iterator[PlainSteps]:
        beat = threading.Thread(target=self._beat, name="zettelgraph-progress", daemon=True)
        beat.start()
        try:
            yield self
        finally:
            self._stop.set()
            beat.join()

    def _beat(self) -> None:
        while not self._stop.wait(min(1.0, self._heartbeat)):
            with self._lock:
                now = self._counter.elapsed()
                if now - self._last_line < self._heartbeat:
                    continue
                after = f" after {self._last_node}" if self._last_node else ""
                _write_line(self._file, f"[{now:6.1f}s] still working{after}")
                self._last_line = now


class _PhaseTime(ProgressColumn):
    """Seconds spent in a phase: from the step before its first one to its last step."""

    def __init__(self, counter: StepCounter) -> None:
        super().__init__()
        self._counter = counter

    def render(self, task: Task) -> Text:
        ended = task.fields["ended"]
        end = self._counter.elapsed() if ended is None else ended
        return Text(f"{end - task.fields['began']:6.1f}s", style="progress.elapsed")


class PhaseBars:
    """One Rich progress row per phase, in the order the phases run.

    Fan-outs (a batch, a candidate, a concept each) are not known in advance, so a row counts
    finished steps instead of a percentage. A phase is done when a step of another phase finishes;
    a phase that runs again later (a loop back) gets a new row rather than reopening a finished one.
    """

    def __init__(self, console: Console, counter: StepCounter) -> None:
        self._counter = counter
        self._progress = Progress(
            SpinnerColumn(finished_text="[green]✓[/]"),
            TextColumn("{task.description:<11}", markup=False),
            BarColumn(bar_width=20),
            TextColumn("{task.completed:>4.0f} steps"),
            _PhaseTime(counter),
            TextColumn("{task.fields[node]}", style="dim", markup=False),
            console=console,
        )
        self._task: TaskID | None = None
        self._waiting: TaskID | None = None  # the row shown until the first step ends
        self._phase = ""
        self._steps = 0
        self._last = 0.0  # elapsed at the last finished step: where the next phase's work began

    def __enter__(self) -> PhaseBars:
        self._last = self._counter.elapsed()
        self._progress.start()
        # A row from the start: the first step can be a model call of minutes, and an empty
        # screen until it ends reads as a hang. It gives way to the first phase's row.
        self._waiting = self._progress.add_task(
            "working", total=None, completed=0, node="", began=self._last, ended=None
        )
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self._close_phase()
        elif self._task is not None:
            self._progress.update(self._task, description=f"{self._phase} (stopped)")
        self._progress.stop()

    def __call__(self, node: str) -> None:
        step = self._counter.finish(node)
        if self._waiting is not None:
            self._progress.remove_task(self._waiting)
            self._waiting = None
        shown = f"{node} ({step.count})"
        if self._task is None or step.phase != self._phase:
            self._close_phase()
            self._phase, self._steps = step.phase, 1
            self._task = self._progress.add_task(
                step.phase, total=None, completed=1, node=shown, began=self._last, ended=None
            )
        else:
            self._steps += 1
            self._progress.update(self._task, advance=1, node=shown)
        self._last = step.elapsed

    def _close_phase(self) -> None:
        if self._task is not None:
            # A total equal to the count fills the bar and turns the spinner into a tick.
            self._progress.update(self._task, total=self._steps, ended=self._last)


@contextmanager
def step_progress(console: Console, started: float | None = None) -> Iterator[StepCallback]:
    """The `on_step` callback of one workflow run, showing its progress on `console` (stderr).

    `started` is when the command started (time.monotonic), so the plain lines of `run`, one
    workflow run per book, share one clock; by default the clock starts now.
    """
    counter = StepCounter(started)
    if not live_display(console):
        with PlainSteps(console.file, counter).running() as steps:
            yield steps
        return
    with PhaseBars(console, counter) as bars:
        yield bars


def announce(console: Console, text: str) -> None:
    """A heading above a run's progress, such as which book `run` is extracting."""
    if live_display(console):
        console.print(Text(text, style="bold"))
    else:
        _write_line(console.file, text)
