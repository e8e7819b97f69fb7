"""`zettelgraph experiment`: questions over what you read. `new` analyses the experiment and
proposes a plan (which tools on which contents), `review` approves, modifies or rejects it
(approving runs the tools and writes the cited report), `show`, `list`, `resume`."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from zettelgraph.cli.common import JsonOption, fail, print_json, resolve_content_id, stdout
from zettelgraph.cli.extract import drive_with_progress, open_workflow_runs

if TYPE_CHECKING:
    from zettelgraph.services.experiments import ExperimentRuns, ExperimentView

experiment_app = typer.Typer(
    help="Experiments over your reading: how a term is used across contents, with a cited report.",
    no_args_is_help=True,
)

ExperimentId = Annotated[
    str, typer.Argument(help="The experiment (exp-..., or its first characters).")
]


@contextmanager
def open_experiments(ctx: typer.Context) -> Iterator[ExperimentRuns]:
    from zettelgraph.services.experiments import ExperimentRuns

    with open_workflow_runs(ctx, ExperimentRuns) as runs:
        yield runs


def _show(view: ExperimentView, as_json: bool) -> None:
    from zettelgraph.cli.experiment_view import print_experiment

    if as_json:
        print_json(view.as_dict())
    else:
        print_experiment(stdout(), view.as_dict())


@experiment_app.command("new")
def new(
    ctx: typer.Context,
    term: Annotated[str, typer.Option("--term", help="The focus term, e.g. honra.")],
    contents: Annotated[
        list[str],
        typer.Option("--contents", help="A content id or its first characters (repeat)."),
    ],
    kind: Annotated[
        str,
        typer.Option(
            "--type",
            help="temporal, cross_domain, document_analysis or single_document.",
        ),
    ] = "document_analysis",
    goal: Annotated[str | None, typer.Option("--goal", help="What you want to find out.")] = None,
    definition: Annotated[
        str | None, typer.Option("--definition", help="The term's baseline meaning.")
    ] = None,
    source: Annotated[
        str | None, typer.Option("--source", help="Where the definition is from.")
    ] = None,
    domain: Annotated[
        str | None,
        typer.Option(
            "--domain", help="The field the term belongs to, e.g. derecho (up to 100 characters)."
        ),
    ] = None,
    anchor: Annotated[
        list[str] | None,
        typer.Option("--anchor", help="A word that pins the baseline meaning (repeat)."),
    ] = None,
    match: Annotated[
        Literal["stems", "exact"],
        typer.Option(
            "--match",
            help="stems: the term as search finds it (gobernar finds gobernó); "
            "exact: only the very word, case and accents aside.",
        ),
    ] = "stems",
    as_json: JsonOption = False,
) -> None:
    """Analyse an experiment and propose a plan, up to your review."""
    from zettelgraph.services.experiments import FocusTermError, focus_term

    started = time.monotonic()
    try:
        focus = focus_term(
            term,
            definition=definition or "",
            source=source or "",
            domain=domain or "",
            anchors=anchor or [],
            match=match,
        )
    except FocusTermError as exc:
        option = "anchor" if exc.field == "anchors" else exc.field
        fail(f"--{option}: {exc.problem}")
    with open_experiments(ctx) as runs:
        ids = [resolve_content_id(runs.services, given) for given in contents]
        view = drive_with_progress(
            lambda step: runs.new(kind, focus, ids, goal=goal, on_step=step), started
        )
        _show(view, as_json)


def _strategy(given: list[str], view: ExperimentView) -> dict[str, list[str]]:
    """`--tools CONTENT=TOOL,TOOL` (or `--tools TOOL,TOOL` for every content) as a strategy."""
    from zettelgraph.services.ids import CONTENT, IdError, resolve_id

    documents = [d["id"] for d in view.values.get("documents", [])]
    strategy: dict[str, list[str]] = {}
    for item in given:
        where, _, names = item.rpartition("=")
        tools = [n.strip() for n in names.split(",") if n.strip()]
        if not where:
            for content_id in documents:
                strategy.setdefault(content_id, []).extend(tools)
            continue
        try:
            content_id = resolve_id(where, CONTENT, documents)
        except IdError as exc:
            fail(
                f"--tools {item}: {exc}; this experiment's contents: "
                + ", ".join(d[:8] for d in documents)
            )
        strategy.setdefault(content_id, []).extend(tools)
    return strategy


@experiment_app.command("review")
def review(
    ctx: typer.Context,
    experiment_id: ExperimentId,
    approve: Annotated[bool, typer.Option("--approve", help="Run the plan as proposed.")] = False,
    reject: Annotated[bool, typer.Option("--reject", help="End the experiment here.")] = False,
    tools: Annotated[
        list[str] | None,
        typer.Option(
            "--tools",
            help="Run this plan instead: CONTENT=TOOL,TOOL (repeat per content) or TOOL,TOOL "
            "for every content.",
        ),
    ] = None,
    notes: Annotated[str, typer.Option("--notes", help="Your notes on the plan.")] = "",
    as_json: JsonOption = False,
) -> None:
    """Show the proposed plan, or decide on it: --approve, --tools (modify) or --reject."""
    chosen = [
        flag
        for flag, on in (("approve", approve), ("reject", reject), ("modify", bool(tools)))
        if on
    ]
    if len(chosen) > 1:
        fail("choose one of --approve, --tools or --reject")
    started = time.monotonic()
    with open_experiments(ctx) as runs:
        experiment_id = runs.resolve_run_id(experiment_id)
        view = runs.show(experiment_id)
        if not chosen:
            _show(view, as_json)
            if view.status == "awaiting_review" and not as_json:
                stdout().print(
                    f"\nDecide: zettelgraph experiment review {experiment_id} --approve | "
                    "--tools CONTENT=TOOL,TOOL | --reject  [--notes TEXT]"
                )
            return
        action = chosen[0]
        strategy: dict[str, Any] | None = (
            _strategy(tools or [], view) if action == "modify" else None
        )
        result = drive_with_progress(
            lambda step: runs.review(
                experiment_id, action, strategy=strategy, notes=notes, on_step=step
            ),
            started,
        )
        _show(result, as_json)


@experiment_app.command("show")
def show(
    ctx: typer.Context,
    experiment_id: ExperimentId,
    as_json: JsonOption = False,
) -> None:
    """An experiment: its plan, its results and where its report is."""
    with open_experiments(ctx) as runs:
        _show(runs.show(runs.resolve_run_id(experiment_id)), as_json)


@experiment_app.command("list")
def list_experiments(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Every experiment, newest first."""
    with open_experiments(ctx) as runs:
        views = runs.experiments()
        if as_json:
            print_json([v.as_dict() for v in views])
            return
        from zettelgraph.cli.experiment_view import print_experiment_list

        print_experiment_list(stdout(), [v.as_dict() for v in views])


@experiment_app.command("resume")
def resume(
    ctx: typer.Context,
    experiment_id: ExperimentId,
    as_json: JsonOption = False,
) -> None:
    """Continue an experiment that stopped in the middle (a crash, a provider outage)."""
    started = time.monotonic()
    with open_experiments(ctx) as runs:
        whole_id = runs.resolve_run_id(experiment_id)
        view = drive_with_progress(lambda step: runs.continue_run(whole_id, on_step=step), started)
        _show(view, as_json)
