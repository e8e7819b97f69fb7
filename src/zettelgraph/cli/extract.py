"""`zettelgraph extract`, `review`, `runs`, `resume` and `run` (ingest, then extract).

`review`, `runs` and `resume` serve graph extraction runs too (`graph-...` ids, started by
`zettelgraph graph-extract`): the id says which workflow a run belongs to.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from zettelgraph.cli.common import (
    JsonOption,
    command_services,
    fail,
    print_json,
    resolve_content_id,
    stderr,
    stdout,
)
from zettelgraph.cli.output import count, print_error

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver

    from zettelgraph.context import Services
    from zettelgraph.services.extraction_runs import ExtractionRuns
    from zettelgraph.services.graph_runs import GraphRuns
    from zettelgraph.services.proposal_runs import ProposalRuns
    from zettelgraph.services.run_view import RunView, StepCallback

RunsT = TypeVar("RunsT")
ResultT = TypeVar("ResultT")


@contextmanager
def open_workflow_runs(
    ctx: typer.Context, make: Callable[[Services, BaseCheckpointSaver[Any]], RunsT]
) -> Iterator[RunsT]:
    """What `make` builds from the command's services and checkpoints; the run, checkpoint
    and model errors end the command with their message."""
    from zettelgraph.services.checkpoints import CheckpointError, open_checkpointer
    from zettelgraph.services.ids import IdError
    from zettelgraph.services.run_view import RunError

    with (
        command_services(ctx, RunError, CheckpointError, IdError, model=True) as services,
        open_checkpointer(services.settings) as checkpointer,
    ):
        yield make(services, checkpointer)


@contextmanager
def open_runs(ctx: typer.Context) -> Iterator[ExtractionRuns]:
    from zettelgraph.services.extraction_runs import ExtractionRuns

    with open_workflow_runs(ctx, ExtractionRuns) as runs:
        yield runs


@contextmanager
def open_graph_runs(ctx: typer.Context) -> Iterator[GraphRuns]:
    from zettelgraph.services.graph_runs import GraphRuns

    with open_workflow_runs(ctx, GraphRuns) as runs:
        yield runs


@contextmanager
def open_every_run(ctx: typer.Context) -> Iterator[list[ProposalRuns]]:
    """The runs of both workflows, on one store and checkpoint database."""
    from zettelgraph.services.extraction_runs import ExtractionRuns
    from zettelgraph.services.graph_runs import GraphRuns

    def both(services: Services, checkpointer: BaseCheckpointSaver[Any]) -> list[ProposalRuns]:
        return [ExtractionRuns(services, checkpointer), GraphRuns(services, checkpointer)]

    with open_workflow_runs(ctx, both) as runs:
        yield runs


def _show(run: RunView, as_json: bool, *, full: bool = False) -> None:
    from zettelgraph.cli.report_view import print_run
    from zettelgraph.services.graph_runs import GRAPH_RUN_PREFIX

    if as_json:
        print_json(run.as_dict())
    elif run.run_id.startswith(GRAPH_RUN_PREFIX):
        from zettelgraph.cli.graph_view import print_graph_run

        print_graph_run(stdout(), run.as_dict(), full=full)
    else:
        print_run(stdout(), run.as_dict(), full=full)


def drive_with_progress(
    action: Callable[[StepCallback], ResultT], started: float | None = None
) -> ResultT:
    """Run a workflow action showing its progress on stderr (see cli/progress.py); configuration
    errors end the command cleanly. `started`: when the command started (time.monotonic)."""
    from zettelgraph.cli.progress import step_progress
    from zettelgraph.services.errors import MODEL_UNUSABLE, model_error_message

    try:
        with step_progress(stderr(), started) as step:
            return action(step)
    except MODEL_UNUSABLE as exc:
        fail(model_error_message(exc))


@contextmanager
def run_kept_on_ctrl_c(runs: ExtractionRuns, content_id: str) -> Iterator[None]:
    """Ctrl-C while a run of `content_id` is driven: the run is kept where it stopped (each
    finished step is checkpointed), so say which it is and how to go on; exit 130."""
    try:
        yield
    except KeyboardInterrupt:
        from zettelgraph.services.run_view import what_to_do

        view = runs.open_run_of(content_id)
        said = f"run {view.run_id} {what_to_do(view)}" if view else "no run was started"
        stderr().print(f"\ninterrupted: {said}", highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(130) from None


def extract(
    ctx: typer.Context,
    content_id: Annotated[str, typer.Argument(help="Content id (or its first characters).")],
    suggest: Annotated[
        str | None, typer.Option("--suggest", help="Hints for the extraction.")
    ] = None,
    force: Annotated[bool, typer.Option(help="Extract again from a processed content.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Extract concepts from a content's quotes, up to your review."""
    started = time.monotonic()
    with open_runs(ctx) as runs:
        cid = resolve_content_id(runs.services, content_id)
        with run_kept_on_ctrl_c(runs, cid):
            view = drive_with_progress(
                lambda step: runs.start(cid, suggestions=suggest, force=force, on_step=step),
                started,
            )
    _show(view, as_json)
    if view.status == "failed":
        raise typer.Exit(1)


def list_runs(
    ctx: typer.Context,
    as_json: JsonOption = False,
) -> None:
    """List extraction runs (concepts and graph): id, kind, content, status, last change."""
    from zettelgraph.services.graph_runs import GRAPH_RUN_PREFIX

    with open_every_run(ctx) as every:
        views = sorted(
            (view for runs in every for view in runs.list()),
            key=lambda view: view.updated_at or "",
            reverse=True,
        )

    def kind(view: RunView) -> str:
        return "graph" if view.run_id.startswith(GRAPH_RUN_PREFIX) else "concepts"

    if as_json:
        print_json(
            [
                {"kind": kind(view), **{k: v for k, v in view.as_dict().items() if k != "report"}}
                for view in views
            ]
        )
        return
    from rich.table import Table

    table = Table(title=count(len(views), "run"))
    # Ids, states and times are copied or read whole: only the title may wrap on a narrow
    # terminal (a run id split over two lines cannot be copied into `review`).
    table.add_column("run", no_wrap=True, min_width=max((len(v.run_id) for v in views), default=3))
    table.add_column("kind", no_wrap=True)
    table.add_column("content", overflow="fold", ratio=1)
    table.add_column("status", no_wrap=True)
    table.add_column("updated", no_wrap=True)
    for view in views:
        updated = (view.updated_at or "")[:16].replace("T", " ")
        table.add_row(view.run_id, kind(view), view.title or "", view.status, updated)
    stdout().print(table)


def resume(
    ctx: typer.Context,
    run_id: Annotated[str, typer.Argument(help="The run that stopped.")],
    as_json: JsonOption = False,
) -> None:
    """Continue a run that stopped in the middle (a crash or a killed process)."""
    started = time.monotonic()
    from zettelgraph.services.proposal_runs import find_run

    with open_every_run(ctx) as every:
        runs, whole_id = find_run(every, run_id)
        view = drive_with_progress(lambda step: runs.resume(whole_id, on_step=step), started)
    _show(view, as_json)


def _start(runs: ExtractionRuns, content_id: str, on_step: StepCallback) -> RunView:
    return runs.start(content_id, on_step=on_step)


def run(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(help="Note files or folders of notes.")],
    as_json: JsonOption = False,
) -> None:
    """Ingest notes, then extract concepts from each new content up to your review."""
    from zettelgraph.cli.ingest import ingest_files
    from zettelgraph.cli.progress import announce

    started = time.monotonic()
    usage: dict[str, Any] = {}
    reports, errors, skipped = ingest_files(ctx, paths, quiet=as_json, usage=usage)
    views = []
    from zettelgraph.services.run_view import OPEN_STATUSES, what_to_do

    with open_runs(ctx) as runs:
        # A content already processed, or with a run still open, is not extracted again; an
        # open run is named, with what goes on with it.
        open_runs_of = {r.content_id: r for r in reversed(runs.list()) if r.status in OPEN_STATUSES}
        held = [open_runs_of[r["id"]] for r in reports if r["id"] in open_runs_of]
        if not as_json:
            for view in held:
                stderr().print(
                    f"'{view.title or view.content_id}' has an open run {view.run_id}, which "
                    + what_to_do(view),
                    highlight=False,
                    markup=False,
                    soft_wrap=True,
                )
        todo = [r for r in reports if not r["processed"] and r["id"] not in open_runs_of]
        for number, report in enumerate(todo, 1):
            announce(stderr(), f"extracting {number}/{len(todo)}: {report['title']}")
            with run_kept_on_ctrl_c(runs, report["id"]):
                views.append(drive_with_progress(partial(_start, runs, report["id"]), started))
        usage.update(runs.services.usage.as_dict())
    if as_json:
        print_json(
            {
                "contents": reports,
                "errors": errors,
                "skipped": skipped,
                "runs": [v.as_dict() for v in views],
                # Contents not extracted because a run of theirs is still open.
                "open_runs": [
                    {k: v for k, v in view.as_dict().items() if k != "report"} for view in held
                ],
                # LLM calls of this command per call name: benchmarks read cost from here.
                "usage": usage,
            }
        )
    else:
        for view in views:
            _show(view, False)
        for error in errors:
            print_error(stdout(), error["error"])
    if errors or any(v.status == "failed" for v in views):
        raise typer.Exit(1)
