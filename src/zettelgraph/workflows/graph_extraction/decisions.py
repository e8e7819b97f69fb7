"""The reader's item-by-item decisions on a graph extraction run: keep or drop each entity
(n1, n2 ...) and each relationship (r1, r2 ...), and give a relationship another type the
packs allow between its two entities' types.

Keys follow the proposal's order, but decisions are saved by what an item is (an entity's
id; a relationship's ends and type): a feedback round extracts everything again, and a
decision must stay with its item, not with a position. An undecided item is kept, except a
relationship the model was unsure of (`doubtful`), which is left out unless the reader keeps
it, as the concept review does with its doubtful items. Dropping an entity takes the run's
relationships that touch it; a relationship to an entity already in the graph is written only
when that entity is kept too (approving writes exactly what is kept).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from zettelgraph.guards.doubt import LOW_MEANS, Doubt
from zettelgraph.packs.schema import PackSchema
from zettelgraph.workflows.graph_extraction.state import (
    DraftRelationship,
    Proposal,
    Review,
    Verdict,
)
from zettelgraph.workflows.review import DecisionError, ItemDecision, logged

# What a graph run's item takes: no editing, merging or quote moves (those are the concept
# runs'); the entity pages and `zettelgraph link` correct the graph after the commit.
GRAPH_ACTIONS = ("keep", "drop", "retype", "undecide")
# Which of a review's decisions an item's are.
Kind = Literal["entities", "relationships"]


# A relationship the model gave less than this confidence is doubtful. Not calibrated (no
# graded graph runs yet): under one half the model itself rates it nearer a guess than a
# statement of the passages, and an edge left out costs less than a wrong one in the graph.
DOUBTFUL_BELOW = 0.5


def doubt_of(relationship: Mapping[str, Any]) -> Doubt | None:
    """The relationship's doubt, as the concept review shows one (score, doubtful, reasons),
    from the model's confidence; None when the model gave none."""
    confidence = relationship.get("confidence")
    if confidence is None:
        return None
    doubtful = confidence < DOUBTFUL_BELOW
    return {
        "score": confidence,
        "doubtful": doubtful,
        "reasons": [LOW_MEANS["confidence"]] if doubtful else [],
        "signals": {"confidence": confidence},
    }


def is_doubtful(relationship: Mapping[str, Any]) -> bool:
    doubt = doubt_of(relationship)
    return bool(doubt and doubt["doubtful"])


def empty_graph_review() -> Review:
    return {"entities": {}, "relationships": {}, "log": []}


def relationship_id(relationship: Mapping[str, Any]) -> str:
    """What a relationship is, whatever its position: its ends and its model-given type."""
    return f"{relationship['source']}|{relationship['type']}|{relationship['target']}"


def item_keys(proposal: Proposal) -> dict[str, tuple[Kind, str]]:
    """n1 ... and r1 ... as the review shows them -> (kind, stable id)."""
    keys: dict[str, tuple[Kind, str]] = {
        f"n{i}": ("entities", entity["id"]) for i, entity in enumerate(proposal["entities"], 1)
    }
    keys.update(
        {
            f"r{i}": ("relationships", relationship_id(r))
            for i, r in enumerate(proposal["relationships"], 1)
        }
    )
    return keys


def decide_graph(
    proposal: Proposal,
    review: Review | None,
    decisions: Iterable[ItemDecision],
    *,
    schema: PackSchema,
    types: Mapping[str, str],
    now: str,
) -> Review:
    """The review with `decisions` applied; DecisionError at the first that does not fit.
    `types`: entity id -> its type, for the relationships' ends (the run's and the graph's)."""
    result = copy.deepcopy(review) if review else empty_graph_review()
    keys = item_keys(proposal)
    relationships = {relationship_id(r): r for r in proposal["relationships"]}
    for decision in decisions:
        if decision.action not in GRAPH_ACTIONS:
            raise DecisionError(
                f"{decision.action} {decision.item}: a graph run's items are kept, dropped or "
                "retyped; correct entities on their pages after the commit"
            )
        found = keys.get(decision.item)
        if found is None:
            raise DecisionError(
                f"no item {decision.item!r} in this run; its items are "
                + (", ".join(keys) or "none")
            )
        kind, ident = found
        if decision.action == "undecide":
            result[kind].pop(ident, None)
        elif decision.action == "retype":
            if kind != "relationships":
                raise DecisionError(f"retype {decision.item}: only a relationship has a type")
            relationship = relationships[ident]
            wanted = (decision.type or "").strip().upper().replace(" ", "_")
            ends = (types.get(relationship["source"]), types.get(relationship["target"]))
            if not ends[0] or not ends[1] or not schema.allows(wanted, ends[0], ends[1]):
                raise DecisionError(
                    f"retype {decision.item}: the packs have no type {wanted!r} from "
                    f"{ends[0]} to {ends[1]}"
                )
            kept: Verdict = {"verdict": "keep", "at": now}
            if wanted != relationship["type"]:
                kept["type"] = wanted
            result[kind][ident] = kept
        else:
            result[kind][ident] = {"verdict": decision.action, "at": now}
        entry = logged(decision, now)
        entry["id"] = ident
        result["log"].append(entry)
    return result


def kept_graph(proposal: Proposal, review: Review | None) -> tuple[Proposal, list[str]]:
    """What approving writes, and what it leaves out (one line each)."""
    review = review or empty_graph_review()
    chosen = {e["id"]: _verdict(review["entities"].get(e["id"])) for e in proposal["entities"]}
    left_out = [
        f"{e['name']} ({e['type']}): dropped by the reader"
        for e in proposal["entities"]
        if chosen[e["id"]] == "drop"
    ]
    names = {e["id"]: e["name"] for e in proposal["entities"]}
    names.update({k: v["name"] for k, v in proposal["referenced"].items()})
    relationships: list[DraftRelationship] = []
    for r in proposal["relationships"]:
        made = review["relationships"].get(relationship_id(r))
        source, target = names.get(r["source"], r["source"]), names.get(r["target"], r["target"])
        label = f"{source} {r['type']} {target}"
        if made is None and is_doubtful(r):
            left_out.append(
                f"{label}: the model was not sure of it ({r.get('confidence'):.2f}); keep it "
                "to write it"
            )
            continue
        if _verdict(made) == "drop":
            left_out.append(f"{label}: dropped by the reader")
            continue
        if chosen.get(r["source"]) == "drop" or chosen.get(r["target"]) == "drop":
            left_out.append(f"{label}: one of its entities was dropped")
            continue
        relationships.append({**r, "type": made.get("type", r["type"]) if made else r["type"]})
    kept: Proposal = {
        **proposal,
        "entities": [e for e in proposal["entities"] if chosen[e["id"]] != "drop"],
        "relationships": relationships,
    }
    return kept, left_out


def _verdict(made: Verdict | None) -> str:
    """An item's verdict: keep when the reader has not decided."""
    return made["verdict"] if made is not None else "keep"
