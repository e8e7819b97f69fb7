"""What a generation did, for the reader and the benchmarks (a pure function of its state)."""

from __future__ import annotations

from collections import Counter

from zettelgraph.models import ItemStatus
from zettelgraph.workflows.learning_items.state import (
    CardRecord,
    GenerationReport,
    GenerationState,
)


def build_report(state: GenerationState, written: list[CardRecord]) -> GenerationReport:
    proposed = [w for w in written if w["status"] == ItemStatus.PROPOSED]
    dropped = list(state.get("dropped", []))
    targets = state.get("targets", [])
    tested = {cid for w in proposed for cid in w["concept_ids"]}
    return {
        "generation_id": state.get("generation_id"),
        "targets": len(targets),
        "proposed": len(proposed),
        "per_type": dict(Counter(w["item_type"] for w in proposed)),
        "per_difficulty": dict(Counter(w["difficulty"] for w in proposed)),
        # Every card a check set aside, duplicates included, with the check's name and why.
        "dropped": dropped,
        "checks": dict(Counter(d["guard"] for d in dropped)),
        "duplicates": sum(1 for w in written if w["duplicate_of"]),
        # Flashcards a check dropped, kept in the store as dropped (a reader may approve one).
        "set_aside": sum(1 for w in written if w["provenance"].get("dropped_by")),
        "duplicate_share_before": round(state.get("duplicate_share_before", 0.0), 4),
        "duplicate_share_after": round(state.get("duplicate_share_after", 0.0), 4),
        # Cards not made because the concept (or pair) has one of that kind already.
        "skipped": state.get("skipped", {}),
        "skipped_concepts": state.get("skipped_concepts", 0),
        "already_stored": state.get("already_stored", 0),
        "calls": len(state.get("llm_calls", [])),
        "concepts_with_cards": sum(1 for t in targets if t["id"] in tested),
        "warnings": list(dict.fromkeys(state.get("warnings", []))),
    }
