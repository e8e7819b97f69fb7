"""Routing of the Concept Extraction Graph: pure functions of state (and limits)."""

from __future__ import annotations

from typing import Literal

from langgraph.types import Send

from zettelgraph.workflows.concept_extraction.proposal import quote_texts
from zettelgraph.workflows.concept_extraction.sections import batches_of
from zettelgraph.workflows.concept_extraction.state import (
    BatchPayload,
    DuplicatePayload,
    ExtractionState,
    RelationsPayload,
    RepairPayload,
)
from zettelgraph.workflows.review import after_review as after_review

# Key words shown for a rewrite: a concept citing several quotes gets their first ones.
KEY_WORDS_SHOWN = 6


def after_check(state: ExtractionState) -> Literal["load_content_quotes", "__end__"]:
    return "__end__" if state.get("status") == "skipped" else "load_content_quotes"


def after_merge(state: ExtractionState) -> Literal["check_concepts", "__end__"]:
    return "__end__" if state.get("status") == "failed" else "check_concepts"


def after_commit(state: ExtractionState) -> Literal["write_vault", "__end__"]:
    return "write_vault" if state.get("status") == "committed" else "__end__"


def to_batches(state: ExtractionState, batch_size: int) -> list[Send] | Literal["__end__"]:
    """Fan-out of the extraction: one branch per batch of quotes (a document's kept with the
    others of their section, `sections.batches_of`)."""
    quotes = state.get("quotes", [])
    if not quotes:
        return "__end__"
    return [
        Send(
            "extract_batch",
            BatchPayload(
                index=index,
                quotes=batch,
                all_quotes=[{"id": q["id"]} for q in quotes],
                content=state["content"],
                suggestions=state.get("suggestions"),
            ),
        )
        for index, batch in enumerate(batches_of(quotes, batch_size))
    ]


def to_repairs(
    state: ExtractionState,
) -> list[Send] | Literal["collect_duplicates"]:
    """Fan-out of the rewrites the concept checks asked for, else on to the duplicate checks."""
    requests = {r["key"]: r for r in state.get("repair_requests", [])}
    if not requests:
        return to_duplicate_checks(state)
    quotes = quote_texts(state.get("quotes", []))
    words = {q["id"]: q.get("key_words", []) for q in state.get("quotes", [])}
    sends = []
    for c in state.get("candidates", []):
        if c["key"] not in requests:
            continue
        request = requests[c["key"]]
        payload = RepairPayload(
            concept=c,
            quotes=[quotes[q] for q in c["quote_ids"] if q in quotes],
            key_words=list(dict.fromkeys(w for q in c["quote_ids"] for w in words.get(q, [])))[
                :KEY_WORDS_SHOWN
            ],
            # What the rewrite must fix: the flaws the checks found.
            wrong_language=request["wrong_language"],
            copies_quote=request["copies_quote"],
            long_title=request["long_title"],
            source=state["content"],
        )
        if "off_topic" in request:
            payload["off_topic"] = request["off_topic"]
        if "uncovered" in request:
            payload["uncovered"] = request["uncovered"]
        sends.append(Send("repair_concept", payload))
    return sends


def to_duplicate_checks(state: ExtractionState) -> list[Send] | Literal["collect_duplicates"]:
    """Fan-out of the duplicate check: one branch per candidate."""
    candidates = state.get("candidates", [])
    if not candidates:
        return "collect_duplicates"
    all_ids = [q["id"] for q in state.get("quotes", [])]
    return [
        Send(
            "detect_duplicate",
            DuplicatePayload(
                candidate=c,
                all_quote_ids=all_ids,
                graph_has_concepts=state.get("graph_concepts", 0) > 0,
            ),
        )
        for c in candidates
    ]


def to_relation_queries(
    state: ExtractionState, ask_for_queries: bool = True
) -> list[Send] | Literal["search_relation_candidates", "check_relations"]:
    """Fan-out of the relation queries, skipped when there is nothing to relate or search, or
    when the model is too small to write better queries than the concept's own title and summary."""
    concepts = state["proposal"]["concepts"]
    if not concepts:
        return "check_relations"
    if not state.get("graph_concepts", 0) or not ask_for_queries:
        return "search_relation_candidates"
    return [Send("generate_relation_queries", RelationsPayload(concept=c)) for c in concepts]


def to_relations(state: ExtractionState) -> list[Send] | Literal["collect_relations"]:
    """Fan-out of the relations: one branch per new concept that has something to relate to."""
    concepts = state["proposal"]["concepts"]
    pools = state.get("relation_pools", {})
    sends = []
    neighbours = state.get("relation_neighbours", {})
    for concept in concepts:
        near = set(neighbours.get(concept["key"], []))
        others = [c for c in concepts if c["key"] in near]
        pool = pools.get(concept["key"], [])
        if others or pool:
            sends.append(
                Send(
                    "create_relations", RelationsPayload(concept=concept, others=others, pool=pool)
                )
            )
    return sends or "collect_relations"


def after_checks(
    state: ExtractionState, critique: bool
) -> Literal["self_critique", "prepare_review"]:
    return "self_critique" if critique else "prepare_review"


def after_critique(
    state: ExtractionState, max_iterations: int
) -> Literal["refine", "prepare_review"]:
    if state.get("quality_passes") or state.get("phase_1_iteration", 0) >= max_iterations:
        return "prepare_review"
    if state.get("stopped_at_limit"):  # limits.at_recursion_limit
        return "prepare_review"
    return "refine"
