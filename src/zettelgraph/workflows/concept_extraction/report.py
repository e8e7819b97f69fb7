"""The review report (seed 000, step 2.1): what the reader needs to approve or give feedback."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from zettelgraph.guards import count_findings
from zettelgraph.relations import RelationVocabulary
from zettelgraph.store.base import GraphStore
from zettelgraph.workflows.concept_extraction.proposal import referenced_existing
from zettelgraph.workflows.concept_extraction.state import ExtractionState, Proposal


def existing_titles(store: GraphStore, proposal: Proposal) -> dict[str, str]:
    """Titles of the existing concepts a proposal refers to."""
    titles: dict[str, str] = {}
    for concept_id in sorted(referenced_existing(proposal)):
        concept = store.get_concept(concept_id)
        titles[concept_id] = concept.title if concept else f"(missing concept {concept_id[:8]})"
    return titles


def build_report(
    state: ExtractionState, store: GraphStore, vocabulary: RelationVocabulary
) -> dict[str, Any]:
    proposal = state["proposal"]
    quotes = {q["id"]: q for q in state.get("quotes", [])}
    titles = existing_titles(store, proposal)
    reasons = state.get("unattributed_reasons", {})
    names = {**titles, **{c["key"]: c["title"] for c in proposal["concepts"]}}

    def quote_view(quote_id: str) -> dict[str, Any]:
        quote = quotes.get(quote_id, {})
        return {"id": quote_id, "text": quote.get("text", ""), "page": quote.get("page")}

    supported: dict[str, list[str]] = defaultdict(list)
    for concept in proposal["concepts"]:
        for quote_id in concept["quote_ids"]:
            supported[quote_id].append(concept["title"])
    for attribution in proposal["attributions"]:
        for quote_id in attribution["quote_ids"]:
            supported[quote_id].append(f"{attribution['title']} (existing)")

    connected = {r["source"] for r in proposal["relations"]} | {
        r["target"] for r in proposal["relations"]
    }
    disconnected = [c["title"] for c in proposal["concepts"] if c["key"] not in connected]
    return {
        "run_id": state.get("run_id"),
        "content": {"id": state.get("content_id"), **state.get("content", {})},
        "quotes": len(quotes),
        "concepts": [
            {
                "key": c["key"],
                "title": c["title"],
                "concept": c["concept"],
                "analysis": c["analysis"],
                "summary_short": c["summary_short"],
                "rationale": c["rationale"],
                "quotes": [quote_view(q) for q in c["quote_ids"]],
            }
            for c in proposal["concepts"]
        ],
        "relations": [
            {
                "source": names.get(r["source"], r["source"]),
                "type": r["type"],
                "target": names.get(r["target"], r["target"]),
                # Empty for a one-way type (a pack may define one), which gets no reverse.
                "reverse": vocabulary.reverse_of(r["type"]) or "",
                "explanation": r["explanation"],
                "confidence": r["confidence"],
                "source_is_new": r["source"] in {c["key"] for c in proposal["concepts"]},
                "target_is_new": r["target"] in {c["key"] for c in proposal["concepts"]},
            }
            for r in proposal["relations"]
        ],
        "attributions": [
            {
                "quote": quote_view(quote_id),
                "concepts": concepts,
                "several": len(concepts) > 1,
            }
            for quote_id, concepts in supported.items()
        ],
        "existing_attributions": [
            {"concept": a["title"], "concept_id": a["concept_id"], "quotes": len(a["quote_ids"])}
            for a in proposal["attributions"]
        ],
        # With the model's reason, when it gave one (an empty reason: it gave none, or the
        # quote lost its concept to a check or to the reader's feedback).
        "unattributed_quotes": [
            {**quote_view(q), "reason": reasons.get(q, "")}
            for q in proposal["unattributed_quote_ids"]
        ],
        "disconnected_concepts": disconnected,
        "warnings": list(dict.fromkeys(state.get("warnings", []))),
        # What the proposal checks did, per check and action (each also a warning above).
        "checks": count_findings(state.get("check_log", [])),
        "critique_log": state.get("critique_log", []),
        "feedback_log": state.get("feedback_log", []),
        "extraction_notes": state.get("extraction_notes", []),
        "notes": proposal["notes"],
        "feedback_rounds": state.get("phase_2_iteration", 0),
    }
