"""The review report: what the reader needs to approve or give feedback."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from zettelgraph.guards import count_findings
from zettelgraph.packs.relations import RelationVocabulary
from zettelgraph.store.base import GraphStore
from zettelgraph.workflows.concept_extraction.decisions import quote_keys
from zettelgraph.workflows.concept_extraction.kept import is_doubtful, kept_outcome, verdict
from zettelgraph.workflows.concept_extraction.proposal import (
    first_appearance,
    referenced_existing,
    with_keys,
)
from zettelgraph.workflows.concept_extraction.state import (
    Doubt,
    ExtractionState,
    Proposal,
    Review,
    empty_review,
)


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
    proposal = with_keys(state["proposal"])
    quotes: dict[str, Mapping[str, Any]] = {q["id"]: q for q in state.get("quotes", [])}
    qkeys = {v: k for k, v in quote_keys(list(quotes)).items()}
    titles = existing_titles(store, proposal)
    reasons = state.get("unattributed_reasons", {})
    review: Review = state.get("review") or empty_review()
    doubts: dict[str, Doubt] = dict(state.get("doubts", {}))
    names = {**titles, **{c["key"]: c["title"] for c in proposal["concepts"]}}
    new_keys = {c["key"] for c in proposal["concepts"]}

    def quote_view(quote_id: str) -> dict[str, Any]:
        quote = quotes.get(quote_id, {})
        return {
            "id": quote_id,
            "key": qkeys.get(quote_id, ""),
            "text": quote.get("text", ""),
            "page": quote.get("page"),
        }

    def decision_of(key: str) -> dict[str, Any]:
        chosen, decided = verdict(key, review, doubts)
        section = review["concepts"] if key in new_keys else review["relations"]
        made = section.get(key, {})
        return {
            "verdict": chosen,
            "decided": decided,
            "edited": bool(made.get("edit")),
            **({"into": made["into"]} if made.get("into") else {}),
            **({"type": made["type"]} if made.get("type") else {}),
        }

    def doubt_of(key: str) -> Doubt | None:
        return doubts.get(key)

    outcome = kept_outcome(proposal, review, doubts, vocabulary, list(quotes))
    supported: dict[str, list[str]] = defaultdict(list)
    for concept in outcome.concepts:
        for quote_id in concept["quote_ids"]:
            supported[quote_id].append(concept["title"])
    for attribution in outcome.attributions:
        title = attribution["title"] or _title_of(store, attribution["concept_id"])
        for quote_id in attribution["quote_ids"]:
            supported[quote_id].append(f"{title} (existing)")

    connected = {r["source"] for r in outcome.relations} | {r["target"] for r in outcome.relations}
    concepts = []
    for c in proposal["concepts"]:
        edit = review["concepts"].get(c["key"], {}).get("edit", {})
        quote_ids = review["quotes"].get(c["key"], c["quote_ids"])
        cited = [quote_view(q) for q in quote_ids]
        statement = edit.get("concept", c["concept"])
        concepts.append(
            {
                "key": c["key"],
                "title": edit.get("title", c["title"]),
                "concept": statement,
                # A draft whose statement is its quote (a small model's `titles` task): the
                # review shows the quote once.
                "is_quote": [q["text"] for q in cited] == [statement],
                "analysis": edit.get("analysis", c["analysis"]),
                "summary_short": "" if "concept" in edit else c["summary_short"],
                "rationale": c["rationale"],
                "synonyms": c.get("synonyms", []),
                "first_appearance": first_appearance(quote_ids, state.get("quotes", [])),
                "quotes": cited,
                "decision": decision_of(c["key"]),
                "doubt": doubt_of(c["key"]),
                **({"model_text": {k: c[k] for k in edit}} if edit else {}),  # type: ignore[literal-required]
            }
        )
    relations = []
    for r in proposal["relations"]:
        key = r.get("key", "")
        decision = decision_of(key)
        shown_type = decision.get("type", r["type"])
        relations.append(
            {
                "key": key,
                "source": names.get(r["source"], r["source"]),
                "type": shown_type,
                "target": names.get(r["target"], r["target"]),
                "source_key": r["source"] if r["source"] in new_keys else "",
                "target_key": r["target"] if r["target"] in new_keys else "",
                # Empty for a one-way type (a pack may define one), which gets no reverse.
                "reverse": vocabulary.reverse_of(shown_type) or "",
                "explanation": r["explanation"],
                "confidence": r["confidence"],
                "source_is_new": r["source"] in new_keys,
                "target_is_new": r["target"] in new_keys,
                "model_type": r["type"],
                "decision": decision,
                "doubt": doubt_of(key),
            }
        )
    related = [
        {
            "key": s["key"],
            "source": names.get(s["source"], s["source"]),
            "target": names.get(s["target"], s["target"]),
            "proposed_type": s["proposed_type"],
            "explanation": s["explanation"],
            "decision": decision_of(s["key"]),
            "doubt": doubt_of(s["key"]),
            "source_key": s["source"] if s["source"] in new_keys else "",
            "target_key": s["target"] if s["target"] in new_keys else "",
        }
        for s in proposal.get("related", [])
    ]
    added = [
        {
            "key": a["key"],
            "source": names.get(a["source"], a["source"]),
            "type": a["type"],
            "target": names.get(a["target"], a["target"]),
            "explanation": a.get("explanation", ""),
        }
        for a in review["added"]
    ]
    return {
        "run_id": state.get("run_id"),
        "content": {"id": state.get("content_id"), **state.get("content", {})},
        "quotes": len(quotes),
        # The doubtful first: they are where the reader's attention pays most.
        "concepts": _doubtful_first(concepts),
        "relations": _doubtful_first(relations),
        "related": related,
        "added_relations": added,
        "attributions": [
            {
                "quote": quote_view(quote_id),
                "concepts": concepts_of,
                "several": len(concepts_of) > 1,
            }
            for quote_id, concepts_of in supported.items()
        ],
        "existing_attributions": [
            {
                "key": f"e{number}",
                "concept": a["title"],
                "concept_id": a["concept_id"],
                "quotes": len(a["quote_ids"]),
                "decision": decision_of(f"e{number}"),
            }
            for number, a in enumerate(proposal["attributions"], 1)
        ],
        # With the model's reason, when it gave one (an empty reason: it gave none, or the
        # quote lost its concept to a check or to the reader's feedback).
        "unattributed_quotes": [
            {**quote_view(q), "reason": reasons.get(q, "")}
            for q in proposal["unattributed_quote_ids"]
        ],
        "disconnected_concepts": [
            c["title"] for c in outcome.concepts if c["key"] not in connected
        ],
        "review": review_summary(proposal, review, doubts, outcome, quote_view),
        "warnings": list(dict.fromkeys(state.get("warnings", []))),
        # What the proposal checks did, per check and action (each also a warning above).
        "checks": count_findings(state.get("check_log", [])),
        "critique_log": state.get("critique_log", []),
        # Without the concepts as they were before each round (check_revisions' own record).
        "feedback_log": [
            {k: v for k, v in entry.items() if k != "before"}
            for entry in state.get("feedback_log", [])
        ],
        "extraction_notes": state.get("extraction_notes", []),
        "notes": proposal["notes"],
        "feedback_rounds": state.get("phase_2_iteration", 0),
    }


def _title_of(store: GraphStore, concept_id: str) -> str:
    concept = store.get_concept(concept_id)
    return concept.title if concept else concept_id[:8]


def _doubtful_first(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(items, key=lambda item: not (item.get("doubt") or {}).get("doubtful", False))


def review_summary(
    proposal: Proposal,
    review: Review,
    doubts: dict[str, Doubt],
    outcome: Any,
    quote_view: Any,
) -> dict[str, Any]:
    """Where the reader stands: per kind of item how many are kept, edited, merged, dropped
    and undecided, what approving now writes, and what it leaves out and why."""
    counts = {"kept": 0, "edited": 0, "merged": 0, "dropped": 0, "undecided": 0, "doubtful": 0}
    keys = [c["key"] for c in proposal["concepts"]] + [
        r["key"] for r in proposal["relations"] if "key" in r
    ]
    for key in keys:
        chosen, decided = verdict(key, review, doubts)
        # Doubtful and undecided: what approving leaves out unless the reader keeps it.
        counts["doubtful"] += is_doubtful(doubts, key) and not decided
        if not decided:
            counts["undecided"] += 1
        elif chosen == "merge":
            counts["merged"] += 1
        elif chosen == "drop":
            counts["dropped"] += 1
        elif (review["concepts"].get(key) or {}).get("edit") or (
            review["relations"].get(key) or {}
        ).get("type"):
            counts["edited"] += 1
        else:
            counts["kept"] += 1
    return {
        "counts": counts,
        "decisions": len(review["log"]),
        "writes": {
            "concepts": len(outcome.concepts),
            "relations": len(outcome.relations),
            "attributions": sum(len(c["quote_ids"]) for c in outcome.concepts)
            + sum(len(a["quote_ids"]) for a in outcome.attributions),
        },
        "left_out": outcome.left_out,
        "open_quotes": [quote_view(q) for q in outcome.open_quote_ids],
    }
