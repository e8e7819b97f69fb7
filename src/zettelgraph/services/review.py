"""The reader's item-by-item review of a concept run: the one place where the CLI, the web
app, the JSON API and the MCP server record decisions on single items (keep, drop, edit,
merge, move a quote, retype, relate, undo) before approving exactly what was kept.

Decisions are checked against the run's proposal as it stands, under the run's lock, and
saved with the run's checkpoint at once (a crash or Ctrl-C keeps every decision made); they
can be changed until the run is approved. What they mean is `workflows/concept_extraction/
decisions.py`'s; what approving then writes, `kept.py`'s.

Decisions come as a list of objects (`{"item": "c1", "action": "keep"}`), or grouped, as a
reader writes them in a file or a script:

    keep: [c1, c3]
    drop: [c2, r4]
    retype: {r1: SIMILAR_TO, s2: OPPOSES}
    edit: {c4: {title: ..., concept: ..., analysis: ...}}
    merge: {c5: c1}
    move_quote: [{item: c1, quote: q3, to: c2}]
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from zettelgraph.models import utcnow
from zettelgraph.services.graph_runs import GraphRuns
from zettelgraph.services.links import LinkError, find_concept
from zettelgraph.services.run_view import RunError, RunView, StepCallback
from zettelgraph.services.runs import WorkflowRuns
from zettelgraph.text import bounded_yaml
from zettelgraph.workflows.concept_extraction.decisions import Decider
from zettelgraph.workflows.concept_extraction.proposal import is_key
from zettelgraph.workflows.graph_extraction.decisions import decide_graph
from zettelgraph.workflows.review import ACTIONS, DecisionError, ItemDecision

__all__ = ["ItemDecision", "ReviewError", "decide", "decisions_from", "decisions_from_file"]

# The grouped form's keys whose value lists items (the rest map items to a value).
LISTED = ("keep", "drop", "undecide")
# Largest decisions file read: a review of a few hundred items is a few kilobytes.
MAX_FILE_BYTES = 1_000_000
# A megabyte of decisions is at most about 100,000 values; aliases may not make it more.
DECISION_LIMITS = bounded_yaml.YamlLimits(nodes=200_000)


class ReviewError(RunError):
    """A decision that cannot be taken; the message names the item, field or file line."""


def decisions_from(data: Any, where: str = "decisions") -> list[ItemDecision]:
    """Decisions from parsed JSON or YAML: a list of objects, or the grouped form.

    Args:
        data: the parsed file or request: a list of `{item, action, ...}`, the grouped form (`keep:
            [...]`, `drop: [...]`, `retype: {r1: TYPE}`, ...), or either under a single `decisions`
            key.
        where: what the errors name as the place (the file's path); "decisions" by default.

    Returns:
        One `ItemDecision` per decision, in the order given.

    Raises:
        ReviewError: the data has neither form, or a decision is not valid (the message names it).
    """
    if isinstance(data, Mapping) and "decisions" in data and len(data) == 1:
        data = data["decisions"]
    if isinstance(data, Mapping):
        return _grouped(data, where)
    if isinstance(data, list):
        out = []
        for number, entry in enumerate(data, 1):
            if not isinstance(entry, Mapping):
                raise ReviewError(f"{where}: decision {number} is not an object with item, action")
            out.append(_decision(dict(entry), f"{where}: decision {number}"))
        return out
    raise ReviewError(
        f"{where}: give a list of decisions ({{item, action}}) or the grouped form "
        "(keep: [...], drop: [...], retype: {r1: TYPE}, ...)"
    )


def _grouped(data: Mapping[str, Any], where: str) -> list[ItemDecision]:
    out: list[ItemDecision] = []
    for action, value in data.items():
        if action not in ACTIONS:
            raise ReviewError(f"{where}: {action!r} is not a decision; use {', '.join(ACTIONS)}")
        at = f"{where}: {action}"
        if action in LISTED:
            items = [value] if isinstance(value, str) else value
            if not isinstance(items, list):
                raise ReviewError(f"{at}: give a list of items, e.g. [c1, c3]")
            out += [_decision({"item": str(i), "action": action}, at) for i in items]
        elif action in ("move_quote", "remove_quote", "relate"):
            entries = value if isinstance(value, list) else [value]
            for entry in entries:
                if not isinstance(entry, Mapping):
                    raise ReviewError(f"{at}: give objects such as {{item: c1, quote: q3}}")
                out.append(_decision({**entry, "action": action}, at))
        elif isinstance(value, Mapping):
            for item, detail in value.items():
                field = {"retype": "type", "merge": "into"}.get(action)
                fields = dict(detail) if isinstance(detail, Mapping) else {field or "": detail}
                out.append(_decision({"item": str(item), "action": action, **fields}, at))
        else:
            raise ReviewError(f"{at}: give a mapping of items, e.g. {{r1: SIMILAR_TO}}")
    return out


def _decision(fields: dict[str, Any], where: str) -> ItemDecision:
    try:
        return ItemDecision.model_validate(fields)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'decision'}: {error['msg']}"
            for error in exc.errors()[:5]
        )
        raise ReviewError(f"{where}: {problems}") from None


def decisions_from_file(path: Path) -> list[ItemDecision]:
    """Decisions from a YAML or JSON file; a bad file is refused naming it and the line.

    Args:
        path: a `.json` file, or YAML (any other suffix).

    Returns:
        The decisions, as `decisions_from` gives them.

    Raises:
        ReviewError: the file is too large, cannot be read, is not valid JSON or YAML, or holds a
            decision that is not valid.
    """
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ReviewError(
                f"{path}: larger than {MAX_FILE_BYTES // 1000} kB; is it the right file?"
            )
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReviewError(f"cannot read the decisions file {path}: {exc}") from exc
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            data = bounded_yaml.load(text, DECISION_LIMITS)[1]
    except bounded_yaml.YamlLimitError as exc:
        raise ReviewError(f"{path}, line {exc.line}: {exc.problem}") from exc
    except json.JSONDecodeError as exc:
        raise ReviewError(f"{path}, line {exc.lineno}: not valid JSON ({exc.msg})") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f", line {mark.line + 1}" if mark is not None else ""
        raise ReviewError(f"{path}{line}: not valid YAML ({exc})") from exc
    return decisions_from(data, str(path))


def decide(
    runs: WorkflowRuns,
    run_id: str,
    decisions: Sequence[ItemDecision],
    on_step: StepCallback | None = None,
) -> RunView:
    """Record `decisions` on a concept run waiting for review; none is saved when one does
    not fit.

    Args:
        runs: the run's workflow (concept or graph extraction).
        run_id: the run's whole id.
        decisions: one per item (keep, drop, edit, ...), as every front end sends them.
        on_step: told each step's name as it finishes.

    Returns:
        The run, still waiting for review, with the decisions recorded.

    Raises:
        ReviewError: a decision does not fit (the message names it).
    """
    if not decisions:
        raise ReviewError("no decision given: name an item and what to do with it")
    if isinstance(runs, GraphRuns):
        return _decide_graph(runs, run_id, decisions, on_step)
    store = runs.services.store

    def existing(given: str) -> str:
        """A concept of the graph named by id, unique id prefix or exact title -> its id."""
        try:
            return find_concept(store, given).id
        except LinkError as exc:
            raise ReviewError(str(exc)) from None

    def answer(values: dict[str, Any]) -> dict[str, Any]:
        proposal = values.get("proposal")
        if not proposal:
            raise ReviewError(f"run {run_id} has no proposal to decide on")
        resolved = [_with_existing_ids(d, existing) for d in decisions]

        def title(concept_id: str) -> str | None:
            concept = store.get_concept(concept_id)
            return concept.title if concept else None

        decider = Decider(
            proposal,
            values.get("review"),
            quote_ids=[q["id"] for q in values.get("quotes", [])],
            vocabulary=runs.services.concept_vocabulary,
            existing_title=title,
            doubts=values.get("doubts"),
            now=utcnow().isoformat(),
        )
        try:
            review = decider.apply(resolved)
        except DecisionError as exc:
            raise ReviewError(f"nothing saved: {exc}") from None
        return {"action": "decide", "review": review}

    return runs.resume_review(run_id, answer, on_step)


def _with_existing_ids(decision: ItemDecision, existing: Any) -> ItemDecision:
    """A merge into, or a relation to, an existing concept named by prefix or title: by id."""
    changes: dict[str, str] = {}
    # A key (c9) names a concept of this run, found or not: the decider says which exist.
    if decision.action == "merge" and decision.into and not is_key(decision.into):
        changes["into"] = existing(decision.into)
    if decision.action == "relate" and decision.target and not is_key(decision.target):
        changes["target"] = existing(decision.target)
    if decision.action == "relate" and not is_key(decision.item):
        changes["item"] = existing(decision.item)
    return decision.model_copy(update=changes) if changes else decision


def _decide_graph(
    runs: GraphRuns,
    run_id: str,
    decisions: Sequence[ItemDecision],
    on_step: StepCallback | None,
) -> RunView:
    """Decisions on a graph extraction run's entities and relationships (keep, drop,
    retype to a type the packs allow between the two entities' types)."""

    def answer(values: dict[str, Any]) -> dict[str, Any]:
        proposal = values.get("proposal")
        if not proposal:
            raise ReviewError(f"run {run_id} has no proposal to decide on")
        types = {e["id"]: e["type"] for e in proposal["entities"]}
        types.update({k: v.get("type", "") for k, v in proposal["referenced"].items()})
        try:
            review = decide_graph(
                proposal,
                values.get("review"),
                decisions,
                schema=runs.schema(values.get("packs")),
                types=types,
                now=utcnow().isoformat(),
            )
        except DecisionError as exc:
            raise ReviewError(f"nothing saved: {exc}") from None
        return {"action": "decide", "review": review}

    return runs.resume_review(run_id, answer, on_step)
