"""`zettelgraph review`: show a run waiting for review, decide on its items one by one (flags
for scripts, a decisions file, or the interactive triage `-i`), then approve, give feedback
or abort. Graph extraction runs (`graph-...`) take approve, feedback and abort.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from zettelgraph.cli.common import JsonOption, fail, stdout
from zettelgraph.cli.editing import edited_in_editor
from zettelgraph.cli.editor import feedback_in_editor
from zettelgraph.cli.extract import _show, drive_with_progress, open_every_run

if TYPE_CHECKING:
    from zettelgraph.services.proposal_runs import ProposalRuns
    from zettelgraph.services.review import ItemDecision
    from zettelgraph.services.run_view import RunView

Items = Annotated[
    list[str] | None,
    typer.Option(help="Items (c1, r2 ...), comma-separated or repeated.", show_default=False),
]


def review(
    ctx: typer.Context,
    run_id: Annotated[
        str | None, typer.Argument(help="Run id; default: the latest waiting.")
    ] = None,
    keep: Items = None,
    drop: Items = None,
    undecide: Annotated[
        list[str] | None,
        typer.Option(help="Take decisions back (c1, r2 ...).", show_default=False),
    ] = None,
    retype: Annotated[
        list[str] | None,
        typer.Option(
            help="Give a relation or 'related?' suggestion a type: r1=SIMILAR_TO.",
            show_default=False,
        ),
    ] = None,
    merge: Annotated[
        list[str] | None,
        typer.Option(
            help="Merge a concept into another: c5=c1 (or c5=ID of an existing concept).",
            show_default=False,
        ),
    ] = None,
    edit: Annotated[
        list[str] | None,
        typer.Option(
            help="Edit a concept in $EDITOR (title, statement, analysis).", show_default=False
        ),
    ] = None,
    decisions_file: Annotated[
        Path | None,
        typer.Option("--decisions", help="Decisions in a YAML or JSON file.", show_default=False),
    ] = None,
    interactive: Annotated[
        bool, typer.Option("--interactive", "-i", help="Decide item by item, one key each.")
    ] = False,
    approve: Annotated[bool, typer.Option("--approve", help="Approve and write.")] = False,
    feedback: Annotated[
        str | None,
        typer.Option("--feedback", help="What to change; '-' writes it in $EDITOR."),
    ] = None,
    abort: Annotated[bool, typer.Option("--abort", help="Stop the run, write nothing.")] = False,
    full: Annotated[
        bool, typer.Option("--full", help="Show every quote whole, none cut short.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Show a run waiting for review, decide on its items, then approve, give feedback or
    abort. Undecided items are kept unless flagged doubtful."""
    chosen = [name for name, on in (("approve", approve), ("abort", abort)) if on]
    if feedback is not None:
        chosen.append("feedback")
    if len(chosen) > 1:
        fail("give only one of --approve, --feedback and --abort", code=2)
    decisions = _flag_decisions(keep, drop, undecide, retype, merge)
    if decisions_file is not None:
        decisions += _file_decisions(decisions_file)
    with open_every_run(ctx) as every:
        from zettelgraph.services.proposal_runs import find_run

        runs, run_id = find_run(every, run_id or _latest_waiting(every))
        view = runs.view(run_id)
        if edit:
            decisions += [edited_in_editor(view, key) for key in _split(edit)]
        if decisions:
            view = _decide(runs, run_id, decisions)
        if interactive:
            from zettelgraph.cli.triage import triage

            if view.status != "awaiting_review":
                fail(f"run {run_id} is {view.status}, not waiting for review")
            action, text = triage(runs, view)
            if action == "quit":
                return
            chosen, feedback = [action], text
        if not chosen:
            _show(view, as_json, full=full)
            if decisions or as_json or view.status != "awaiting_review" or not _interactive():
                return
            action, text = _ask()
            if action == "items":
                from zettelgraph.cli.triage import triage

                action, text = triage(runs, view)
        else:
            action = chosen[0]
            wants_editor = action == "feedback" and (feedback or "-").strip() in ("", "-")
            text = feedback_in_editor() if wants_editor else feedback
        if action == "quit":
            return
        answered = run_id
        # The clock starts here, not with the command: time at the prompt or in $EDITOR is the
        # reader's, not the workflow's.
        view = drive_with_progress(lambda step: runs.answer(answered, action, text, on_step=step))
    _show(view, as_json, full=full)
    if action == "feedback" and view.feedback_error:
        fail(
            f"the feedback was not applied in full: {view.feedback_error}. Run {answered} "
            f"waits for review with what was applied: `zettelgraph review {answered}`"
        )


def _latest_waiting(every: list[ProposalRuns]) -> str:
    waiting = sorted(
        (r for runs in every for r in runs.list() if r.status == "awaiting_review"),
        key=lambda r: r.updated_at or "",
        reverse=True,
    )
    if not waiting:
        fail("no run is waiting for review; `zettelgraph runs` lists them")
    return waiting[0].run_id


def _split(values: list[str] | None) -> list[str]:
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


def _pairs(values: list[str] | None, flag: str) -> list[tuple[str, str]]:
    out = []
    for part in _split(values):
        key, sep, value = part.partition("=")
        if not sep or not key.strip() or not value.strip():
            fail(f"{flag} takes KEY=VALUE, e.g. {flag} r1=SIMILAR_TO; got {part!r}", code=2)
        out.append((key.strip(), value.strip()))
    return out


def _flag_decisions(
    keep: list[str] | None,
    drop: list[str] | None,
    undecide: list[str] | None,
    retype: list[str] | None,
    merge: list[str] | None,
) -> list[ItemDecision]:
    from zettelgraph.services.review import ReviewError, decisions_from

    grouped: dict[str, Any] = {}
    for name, items in (("keep", keep), ("drop", drop), ("undecide", undecide)):
        if items:
            grouped[name] = _split(items)
    if retype:
        grouped["retype"] = dict(_pairs(retype, "--retype"))
    if merge:
        grouped["merge"] = dict(_pairs(merge, "--merge"))
    try:
        return decisions_from(grouped, "flags") if grouped else []
    except ReviewError as exc:
        fail(str(exc), code=2)


def _file_decisions(path: Path) -> list[ItemDecision]:
    from zettelgraph.services.review import ReviewError, decisions_from_file

    try:
        return decisions_from_file(path)
    except ReviewError as exc:
        fail(str(exc), code=2)


def _decide(runs: ProposalRuns, run_id: str, decisions: list[ItemDecision]) -> RunView:
    from zettelgraph.services.review import decide

    return decide(runs, run_id, decisions)


def _interactive() -> bool:
    return os.isatty(0) and os.isatty(1)


def _ask() -> tuple[str, str | None]:
    choice = (
        typer.prompt("[i]tem by item, [a]pprove, [f]eedback, a[b]ort or [q]uit", default="q")
        .strip()
        .lower()
    )
    if choice.startswith("i"):
        return "items", None
    if choice.startswith("a"):
        return "approve", None
    if choice.startswith("f"):
        return "feedback", typer.prompt("Feedback") or feedback_in_editor()
    if choice.startswith("b"):
        return "abort", None
    return "quit", None


def print_decided(view: RunView) -> None:
    """One line of where the review stands (after decisions, for scripts that do not ask
    for JSON)."""
    from zettelgraph.cli.report_view import review_line

    report = view.report or {}
    if report.get("review"):
        stdout().print(review_line(report["review"]), highlight=False, markup=False)


def calibrate(
    ctx: typer.Context,
    reset: Annotated[
        bool, typer.Option("--reset", help="Go back to the shipped calibration.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show how a refit would do; write nothing.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Refit the doubt flags to your own keep, drop and edit decisions (50 of a kind at
    least), and show how well the shipped and your flags separate them."""
    from zettelgraph.cli.common import print_json
    from zettelgraph.cli.extract import open_runs
    from zettelgraph.services import calibration

    with open_runs(ctx) as runs:
        if reset:
            removed = calibration.reset(runs)
            message = "back to the shipped calibration" if removed else "already the shipped one"
            print_json({"reset": removed}) if as_json else stdout().print(message)
            return
        report = calibration.calibrate(runs, write=not dry_run)
    if as_json:
        print_json(report.as_dict())
        return
    out = stdout()
    for kind in report.kinds:
        line = f"{kind.kind}s: {kind.decisions} decisions ({kind.usable} kept)"
        if kind.shipped:
            line += f"; shipped flags {_separates(kind.shipped)}"
        if kind.refitted:
            line += f"; yours {_separates(kind.yours)}"
        else:
            line += f"; not refitted: {kind.reason}"
        out.print(line, highlight=False, markup=False)
    if report.written:
        out.print(f"written to {report.path}; later runs flag with it", markup=False)
    elif dry_run:
        out.print("nothing written (--dry-run)", markup=False)


def _separates(quality: dict[str, float]) -> str:
    def pct(value: float) -> str:
        return "n/a" if value != value else f"{value:.0%}"  # NaN: nothing to count

    return (
        f"catch {pct(quality.get('recall', float('nan')))} of your drops, "
        f"{pct(quality.get('clean', float('nan')))} of the unflagged were kept"
    )
