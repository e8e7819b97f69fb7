"""The reader's review: a report of what would be written and what was dropped, an interrupt,
and their answer (approve, feedback that extracts again with their note, or abort)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from zettelgraph.context import Services
from zettelgraph.workflows.graph_extraction.decisions import (
    doubt_of,
    empty_graph_review,
    is_doubtful,
    kept_graph,
    relationship_id,
)
from zettelgraph.workflows.graph_extraction.state import GraphState, Passage, Verdict
from zettelgraph.workflows.review import ReaderAnswer, ask_reader

# Passages shown per entity or relationship in the report.
SHOWN_PASSAGES = 3


def build_report(state: GraphState) -> dict[str, Any]:
    """What the reader needs to decide: entities (new or matched to the graph's), the
    relationships between them, every drop with its reason, and what the calls cost."""
    proposal = state["proposal"]
    passages = {p["id"]: p for p in state.get("passages", [])}
    names = {e["id"]: e["name"] for e in proposal["entities"]}
    names.update({k: v["name"] for k, v in proposal["referenced"].items()})

    def shown(ids: list[str]) -> list[Passage]:
        return [
            {"id": pid, "text": passages[pid]["text"], "page": passages[pid].get("page")}
            for pid in ids[:SHOWN_PASSAGES]
            if pid in passages
        ]

    current = state.get("extraction_round", 0)
    calls = state.get("llm_calls", [])
    this_round = [c for c in calls if c.get("id", "").startswith(f"extract_graph#r{current}b")]
    connected = {r["source"] for r in proposal["relationships"]} | {
        r["target"] for r in proposal["relationships"]
    }
    review = state.get("review") or empty_graph_review()
    kept, left_out = kept_graph(proposal, review)

    def decision(made: Verdict | None, doubtful: bool = False) -> dict[str, Any]:
        undecided = "drop" if doubtful else "keep"  # a doubtful one is left out unless kept
        shown: dict[str, Any] = {
            "verdict": made["verdict"] if made else undecided,
            "decided": bool(made),
        }
        if made and made.get("type"):
            shown["type"] = made["type"]
        return shown

    entity_decisions = {e["id"]: review["entities"].get(e["id"]) for e in proposal["entities"]}
    decided = [*review["entities"].values(), *review["relationships"].values()]
    return {
        "run_id": state.get("run_id"),
        "kind": "graph",
        "content": {"id": state.get("content_id"), **state.get("content", {})},
        "packs": state.get("pack_versions", []),
        "passages": len(passages),
        "entities": [
            {
                "key": f"n{number}",
                "decision": decision(entity_decisions[e["id"]]),
                "id": e["id"],
                "name": e["name"],
                "type": e["type"],
                "description": e["description"],
                "properties": e["properties"],
                "status": "existing" if e["existing"] else "new",
                "matched_by": e["matched_by"],
                "names": e["names"],
                "passages": shown(e["passage_ids"]),
                "connected": e["id"] in connected,
            }
            for number, e in enumerate(proposal["entities"], 1)
        ],
        "relationships": [
            {
                "key": f"r{number}",
                "decision": decision(
                    review["relationships"].get(relationship_id(r)), is_doubtful(r)
                ),
                "source": names.get(r["source"], r["source"]),
                "type": r["type"],
                "target": names.get(r["target"], r["target"]),
                "source_id": r["source"],
                "target_id": r["target"],
                "description": r["description"],
                "confidence": r.get("confidence"),
                "doubt": doubt_of(r),
                "passages": shown(r["passage_ids"]),
            }
            for number, r in enumerate(proposal["relationships"], 1)
        ],
        "referenced": proposal["referenced"],
        "already_stored": proposal["already_stored"],
        "dropped": proposal["dropped"],
        "dropped_by_reason": dict(Counter(d["reason"] for d in proposal["dropped"])),
        "counts": {
            "entities_new": sum(1 for e in proposal["entities"] if not e["existing"]),
            "entities_existing": sum(1 for e in proposal["entities"] if e["existing"]),
            "relationships": len(proposal["relationships"]),
            "already_stored": len(proposal["already_stored"]),
            "dropped": len(proposal["dropped"]),
        },
        "review": {
            "counts": {
                "kept": sum(d.get("verdict") == "keep" and not d.get("type") for d in decided),
                "edited": sum(bool(d.get("type")) for d in decided),
                "merged": 0,
                "dropped": sum(d.get("verdict") == "drop" for d in decided),
                "undecided": len(proposal["entities"])
                + len(proposal["relationships"])
                - len(decided),
                "doubtful": sum(
                    1
                    for r in proposal["relationships"]
                    if is_doubtful(r) and relationship_id(r) not in review["relationships"]
                ),
            },
            "decisions": len(review["log"]),
            "writes": {
                "entities": len(kept["entities"]),
                "relationships": len(kept["relationships"]),
            },
            "left_out": left_out,
        },
        "usage": usage_of(calls, this_round),
        "warnings": list(dict.fromkeys(state.get("warnings", []))),
        "feedback_log": state.get("feedback_log", []),
        "feedback_rounds": state.get("review_rounds", 0),
    }


def usage_of(
    calls: Sequence[Mapping[str, Any]], this_round: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """LLM calls and tokens of the whole run, and of the round the proposal comes from (read
    with `get`: a run checkpointed before the records had one shape lacks some keys)."""

    def total(items: Sequence[Mapping[str, Any]], key: str) -> int:
        return int(sum(item.get(key, 0) or 0 for item in items))

    return {
        "calls": len(calls),
        "input_tokens": total(calls, "input_tokens"),
        "output_tokens": total(calls, "output_tokens"),
        "round_calls": len(this_round),
        "failed_calls": sum(1 for c in calls if c.get("mode") == "failed"),
        "modes": dict(Counter(c.get("mode", "") for c in calls)),
    }


def present_for_review(state: GraphState, services: Services) -> ReaderAnswer:
    """Pause for the reader (`interrupt`); resume with approve, feedback or abort."""
    rounds = state.get("review_rounds", 0)
    return ask_reader(build_report(state), rounds, services.settings.review_max_rounds)


def incorporate_feedback(state: GraphState, services: Services) -> GraphState:
    """Start the next extraction round: every batch again, with the reader's note."""
    rounds = state.get("review_rounds", 0) + 1
    feedback = state.get("human_feedback") or ""
    return {
        "review_rounds": rounds,
        "extraction_round": state.get("extraction_round", 0) + 1,
        "decision": None,
        "feedback_log": [{"round": rounds, "feedback": feedback}],
    }


def extraction_note(state: GraphState) -> str | None:
    """What the extraction calls are told from the reader: their suggestions at the start,
    and every feedback since, newest last."""
    parts = [state.get("suggestions") or ""]
    parts += [entry["feedback"] for entry in state.get("feedback_log", [])]
    text = "\n".join(part for part in parts if part.strip())
    return text or None
