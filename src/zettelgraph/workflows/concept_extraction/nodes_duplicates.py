"""The duplicate check of each merged candidate against the graph, tiered so the LLM is asked
only when the embedder finds a similar concept, and the fan-in that turns the answers into
the proposal."""

from __future__ import annotations

from zettelgraph.context import Services
from zettelgraph.models import NodeLabel
from zettelgraph.prompts import detect_duplicate
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.workflows.calls import ask
from zettelgraph.workflows.concept_extraction.proposal import (
    quote_map,
    resolve_quotes,
    unattributed,
)
from zettelgraph.workflows.concept_extraction.state import (
    Attribution,
    DraftConcept,
    DuplicateDecision,
    DuplicatePayload,
    ExtractionState,
    empty_proposal,
)


def detect_duplicate_node(payload: DuplicatePayload, services: Services) -> ExtractionState:
    """Is one candidate a duplicate of an existing concept (a `Send` branch), tiered to skip
    the LLM when it can."""
    candidate: DraftConcept = payload["candidate"]
    settings = services.settings
    decision = DuplicateDecision(key=candidate["key"], duplicate_of=None, llm=False, reason="")
    if not payload["graph_has_concepts"]:
        return {"duplicate_decisions": [{**decision, "reason": "empty graph"}]}
    vector = services.embedder.embed([f"{candidate['title']}. {candidate['summary_short']}"])[0]
    hits = services.store.vector_search(
        NodeLabel.CONCEPT, vector, settings.duplicate_top_k, min_score=services.thresholds.duplicate
    )
    if not hits:
        return {"duplicate_decisions": [{**decision, "reason": "no similar concept"}]}
    emap = LocalIds("e", (h.id for h in hits))
    existing = {c.id: c for c in (services.store.get_concept(h.id) for h in hits) if c}
    qmap = quote_map({"id": q} for q in payload["all_quote_ids"])
    data = detect_duplicate.DetectDuplicateInput(
        title=candidate["title"],
        concept=candidate["concept"],
        analysis=candidate["analysis"],
        quote_ids=[qmap.local(q) for q in candidate["quote_ids"]],
        existing=[
            detect_duplicate.ExistingConcept(
                id=emap.local(cid), title=c.title, summary_short=c.summary_short
            )
            for cid, c in existing.items()
        ],
    )
    where = f"{detect_duplicate.NAME} ({candidate['title']!r})"
    asked = ask(
        services,
        name=detect_duplicate.NAME,
        messages=detect_duplicate.messages(data),
        response_model=detect_duplicate.DuplicateDecision,
        subject=candidate["key"],
    )
    if asked.answer is None:
        unchecked: ExtractionState = {
            "duplicate_decisions": [{**decision, "llm": True, "reason": "check failed"}]
        }
        return asked.failed(unchecked, f"{where} failed, kept as new")
    result = asked.answer
    warnings: list[str] = []
    decision["llm"] = True
    decision["reason"] = result.reasoning
    decision["confidence"] = result.confidence
    if result.is_duplicate:
        target = emap.real(result.existing_concept_id or "")
        if target is None or target not in existing:
            warnings.append(f"{where}: duplicate of an id not in the prompt; kept as new")
        else:
            moved = resolve_quotes(result.quote_ids_to_transfer, qmap, where, warnings)
            moved = [q for q in moved if q in candidate["quote_ids"]] or candidate["quote_ids"]
            decision["duplicate_of"] = target
            decision["title"] = existing[target].title
            decision["quote_ids"] = moved
    return {"duplicate_decisions": [decision], "warnings": warnings, "llm_calls": [asked.record]}


def collect_duplicates(state: ExtractionState, services: Services) -> ExtractionState:
    """Fan-in: novel candidates become the proposal; duplicates attribute quotes instead."""
    decisions = {d["key"]: d for d in state.get("duplicate_decisions", [])}
    proposal = empty_proposal()
    attributions: dict[str, Attribution] = {}
    for candidate in state.get("candidates", []):
        decision = decisions.get(candidate["key"])
        target = decision["duplicate_of"] if decision is not None else None
        if decision is None or target is None:
            proposal["concepts"].append(candidate)
            continue
        entry = attributions.setdefault(
            target,
            Attribution(
                concept_id=target,
                title=decision.get("title", ""),
                quote_ids=[],
                reason=decision["reason"],
                history=[detect_duplicate.NAME],
            ),
        )
        entry["quote_ids"] = list(dict.fromkeys([*entry["quote_ids"], *decision["quote_ids"]]))
    proposal["attributions"] = list(attributions.values())
    proposal["unattributed_quote_ids"] = unattributed(
        proposal, (q["id"] for q in state.get("quotes", []))
    )
    return {"proposal": proposal}
