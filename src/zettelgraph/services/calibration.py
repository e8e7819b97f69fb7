"""Your decisions teach the doubt flags: `zettelgraph calibrate` refits them to the keeps,
drops and edits you made in your reviews, and says how well they separate them.

Every decision is saved with its run (`services/review.py`), and every proposed item carries
the signals its doubt came from (`nodes_doubts.py`). A concept you kept or edited counts as
usable and one you dropped as not; a merged one says nothing about its meaning and is left
out. A relation you kept counts as holding, and one you dropped or gave another type as not.
Only your own decisions count, never the defaults an approval applied to undecided items.
The fit is the shipped models' (`guards/doubt.py`): the same signals, the floor set so that
80% of the items you dropped fall under it. It is written to ZETTELGRAPH_HOME/calibration.json
and used by every later run; `--reset` goes back to the shipped calibration.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from zettelgraph.context import Services
from zettelgraph.guards.doubt import DoubtModel, Kind, choose, fit, separation, shipped_models
from zettelgraph.models import utcnow
from zettelgraph.services.run_view import RunView
from zettelgraph.workflows.concept_extraction.proposal import is_key

# Fewer decisions than this of a kind leave its shipped model in place: a floor fitted on a
# handful of items would move with every new one.
MIN_DECISIONS = 50
# The share of the items you drop that the refitted floor flags.
RECALL = 0.8


class DecidedRuns(Protocol):
    """What calibration reads of the concept runs: each run and its saved state, and the
    services whose settings say where the calibration goes and whose doubt models it resets.
    `ExtractionRuns` is one; the runs call `calibrate_after_approval` with themselves."""

    services: Services

    def list(self) -> Sequence[RunView]:
        """Every run, newest first.

        Returns:
            Each run's view (its id first of all).
        """
        ...

    def state_of(self, run_id: str) -> Mapping[str, Any]:
        """The run's whole state as its last checkpoint holds it.

        Args:
            run_id: the run.

        Returns:
            Its state: the reader's `review` decisions and the proposal's `doubts`.

        Raises:
            ValueError: the run is gone (RunError).
        """
        ...


@dataclass
class Decided:
    """One item you decided on, with the signals its doubt was computed from."""

    run_id: str
    key: str
    kind: Kind
    usable: bool
    signals: dict[str, float]


@dataclass
class KindReport:
    kind: Kind
    decisions: int
    usable: int
    refitted: bool
    reason: str = ""
    # How the shipped and your own model separate your decisions (recall, clean, flagged, auc).
    shipped: dict[str, float] = field(default_factory=dict)
    yours: dict[str, float] = field(default_factory=dict)


@dataclass
class CalibrationReport:
    path: str
    kinds: list[KindReport]
    written: bool

    def as_dict(self) -> dict[str, Any]:
        """What `zettelgraph calibrate --json` prints.

        Returns:
            `path` (the reader's calibration file), `kinds` (per kind, concept and relation: the
            numbers of `decisions` and `usable` ones, `refitted`, the `reason` when not, and how the
            `shipped` and `yours` models separate the decisions) and `written`.
        """
        return asdict(self)


def decided_items(values: Mapping[str, Any], run_id: str) -> list[Decided]:
    """The items of one run's state that the reader decided on and that have signals.

    Args:
        values: a concept run's state, as its checkpoint holds it.
        run_id: the run's id, recorded with each decision.

    Returns:
        One `Decided` per concept or relation kept or dropped that has doubt signals: `usable` is
        True for a concept kept, or a relation kept with its type unchanged.
    """
    review = values.get("review") or {}
    doubts = values.get("doubts") or {}
    out: list[Decided] = []
    for key, made in {**review.get("concepts", {}), **review.get("relations", {})}.items():
        signals = (doubts.get(key) or {}).get("signals")
        verdict = made.get("verdict")
        if not signals or verdict not in ("keep", "drop"):
            continue
        if is_key(key):
            out.append(Decided(run_id, key, "concept", verdict == "keep", dict(signals)))
        elif key.startswith("r"):
            holds = verdict == "keep" and not made.get("type")
            out.append(Decided(run_id, key, "relation", holds, dict(signals)))
    return out


def your_decisions(runs: DecidedRuns) -> list[Decided]:
    """Every decision of every concept run in the checkpoint database, newest run first.

    Args:
        runs: the concept extraction runs.

    Returns:
        `decided_items` of every run, newest run first; a run gone since it was listed is left out.
    """
    out: list[Decided] = []
    for view in runs.list():
        try:
            values = runs.state_of(view.run_id)
        except ValueError:  # RunError: gone since it was listed
            continue
        out.extend(decided_items(values, view.run_id))
    return out


def calibrate(runs: DecidedRuns, *, write: bool = True) -> CalibrationReport:
    """Refit each kind's model to your decisions when there are enough of them.

    Args:
        runs: the concept extraction runs, with the services whose settings name the calibration
            file.
        write: save the refitted models to the calibration file (the default); False only reports
            what a refit would give.

    Returns:
        A `CalibrationReport`: per kind, how many decisions there were, whether it was refitted (or
        why not) and how each model separates them; `written` when the file was saved.
    """
    settings = runs.services.settings
    decided = your_decisions(runs)
    shipped = shipped_models()
    small = runs.services.llms.main_profile.small
    models: dict[str, DoubtModel] = {}
    reports: list[KindReport] = []
    for kind in ("concept", "relation"):
        rows = [d for d in decided if d.kind == kind]
        usable = [d.usable for d in rows]
        report = KindReport(kind=kind, decisions=len(rows), usable=sum(usable), refitted=False)
        base = choose(shipped, kind, small=small)
        if rows:
            scores = [base.score(d.signals) for d in rows]
            report.shipped = separation(scores, usable, base.floor)
        if len(rows) < MIN_DECISIONS:
            report.reason = f"{len(rows)} of the {MIN_DECISIONS} decisions it needs"
        elif all(usable) or not any(usable):
            report.reason = "every decision was the same; nothing to separate"
        else:
            model = fit(
                kind,
                base.signals,
                [d.signals for d in rows],
                usable,
                recall=RECALL,
                fitted_on=f"{len(rows)} of your decisions, {utcnow():%Y-%m-%d}",
            )
            models[kind] = model
            report.refitted = True
            report.yours = dict(model.quality)
        reports.append(report)
    path = settings.calibration_path
    written = False
    if write and models:
        # A kind refitted replaces the reader's earlier one; the other kind stays as it was.
        earlier = {k: v for k, v in _own(path).items() if k not in models}
        data = {**earlier, **{k: m.as_dict() for k, m in models.items()}}
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".json.partial")
        partial.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        partial.replace(path)  # a reader never sees half a file
        runs.services.doubt_models_given = None  # read again on next use
        written = True
    return CalibrationReport(path=str(path), kinds=reports, written=written)


def _own(path: Any) -> dict[str, Any]:
    """The reader's calibration file as it is (nothing when missing or unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def reset(runs: DecidedRuns) -> bool:
    """Back to the shipped calibration; whether there was one of the reader's to remove.

    Args:
        runs: the concept extraction runs, with the services whose settings name the calibration
            file.

    Returns:
        True when a calibration file of the reader's was removed, False when there was none.
    """
    path = runs.services.settings.calibration_path
    existed = path.exists()
    path.unlink(missing_ok=True)
    runs.services.doubt_models_given = None
    return existed


def calibrate_after_approval(runs: DecidedRuns) -> str | None:
    """ZETTELGRAPH_AUTO_CALIBRATE: refit after an approval when there are enough decisions;
    a line for the reader when it did, None otherwise.

    Args:
        runs: the concept extraction runs, with the services whose settings say whether to refit.

    Returns:
        A line saying what was refitted, or None when the setting is off or nothing was written.
    """
    if not runs.services.settings.auto_calibrate:
        return None
    report = calibrate(runs)
    if not report.written:
        return None
    done = ", ".join(f"{k.kind}s on {k.decisions} decisions" for k in report.kinds if k.refitted)
    return f"doubt flags refitted to your decisions ({done}); `zettelgraph calibrate` shows how"
