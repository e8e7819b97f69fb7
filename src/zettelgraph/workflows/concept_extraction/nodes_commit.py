"""Phase 3: one store transaction, then the Obsidian notes (compensation pattern).

Every id and timestamp written here is derived from the run's state (run id, concept key,
approval time), so running `commit` again after a crash writes exactly the same graph.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from zettelgraph.context import Services
from zettelgraph.models import (
    ChangeSet,
    Concept,
    Relation,
    embedding_text,
    stable_id,
)
from zettelgraph.models.revisions import revised
from zettelgraph.packs.relations import SUPPORTS
from zettelgraph.store.base import ConflictError
from zettelgraph.text.summaries import SHORT_SUMMARY_WORDS, SUMMARY_WORDS, clip_words, short_summary
from zettelgraph.vault.report import REPAIR
from zettelgraph.workflows.concept_extraction.kept import READER, kept_outcome, verdict
from zettelgraph.workflows.concept_extraction.proposal import first_appearance, other_names
from zettelgraph.workflows.concept_extraction.state import (
    Committed,
    DraftConcept,
    ExtractionState,
    empty_review,
)


def concept_id_for(run_id: str, key: str) -> str:
    return stable_id("concept", run_id, key)


def commit(state: ExtractionState, services: Services) -> ExtractionState:
    """Write exactly what the reader kept (`kept.py`), in one store transaction."""
    store = services.store
    run_id = state["run_id"]
    review = state.get("review") or empty_review()
    doubts = state.get("doubts", {})
    outcome = kept_outcome(
        state["proposal"],
        review,
        doubts,
        services.concept_vocabulary,
        [q["id"] for q in state.get("quotes", [])],
    )
    approved_at = datetime.fromisoformat(state["approved_at"] or "")
    decision = {
        "approved_at": state["approved_at"],
        "feedback_rounds": state.get("phase_2_iteration", 0),
        "critique_iterations": state.get("phase_1_iteration", 0),
    }
    warnings: list[str] = []
    ids = {c["key"]: concept_id_for(run_id, c["key"]) for c in outcome.concepts}

    def reviewed(key: str) -> dict[str, Any]:
        """How the reader's review treated an item: decided by them, or left to its flag."""
        _, decided = verdict(key, review, doubts)
        doubt = doubts.get(key)
        return {
            "decided_by": READER if decided else "default",
            **({"doubt": doubt["score"]} if doubt else {}),
        }

    model_texts = {c["key"]: c for c in state["proposal"]["concepts"]}
    concepts = [
        _as_written(
            Concept(
                id=ids[c["key"]],
                created_at=approved_at,
                # The model's text first: a reader's edit is a revision of it (below).
                **_texts(model_texts.get(c["key"], c) if c["key"] in outcome.model_texts else c),
                language=services.settings.concept_language,
                synonyms=other_names(c["title"], c.get("synonyms", [])),
                first_appearance=first_appearance(c["quote_ids"], state.get("quotes", [])),
                vault_sync_pending=True,  # cleared once its note is written
                provenance={
                    "run": run_id,
                    "content_id": state["content_id"],
                    "quotes": c["quote_ids"],
                    "llm_calls": [h for h in c["history"] if h != READER],
                    "model": services.llms.main_spec,
                    "rationale": c["rationale"],
                    "review": reviewed(c["key"]),
                    **decision,
                },
            ),
            c,
            review["concepts"].get(c["key"], {}).get("at"),
            edited=c["key"] in outcome.model_texts,
        )
        for c in outcome.concepts
    ]

    def resolve(end: str) -> str | None:
        if end in ids:
            return ids[end]
        if store.get_concept(end) is None:
            warnings.append(f"concept {end} disappeared during the review; its relation dropped")
            return None
        return end

    relations: list[Relation] = []
    for r in outcome.relations:
        source, target = resolve(r["source"]), resolve(r["target"])
        if source is None or target is None:
            continue
        by_reader = r["history"] == [READER]
        model_type = next(
            (m["type"] for m in state["proposal"]["relations"] if m.get("key") == r.get("key")),
            None,
        )
        relations.append(
            Relation(
                source_id=source,
                target_id=target,
                type=r["type"],
                created_at=approved_at,
                properties={
                    "run": run_id,
                    "explanation": r["explanation"],
                    "confidence": r["confidence"],
                    "llm_calls": [h for h in r["history"] if h != READER],
                    "model": None if by_reader else services.llms.main_spec,
                    "review": {"added_by": READER} if by_reader else reviewed(r.get("key", "")),
                    **(
                        {"retyped_from": model_type}
                        if model_type and model_type != r["type"]
                        else {}
                    ),
                    **decision,
                },
            )
        )
    # Quote -> concept SUPPORTS edges, kept apart from concept -> concept relations (which
    # may be SUPPORTS too) so each is counted as what it is.
    attributions: list[Relation] = []
    for c in outcome.concepts:
        attributions.extend(
            _supports(q, ids[c["key"]], run_id, c["history"], approved_at, decision)
            for q in c["quote_ids"]
        )
    touched: list[str] = []
    for a in outcome.attributions:
        if resolve(a["concept_id"]) is None:
            continue
        touched.append(a["concept_id"])
        attributions.extend(
            _supports(q, a["concept_id"], run_id, a["history"], approved_at, decision)
            for q in a["quote_ids"]
        )
    content = store.get_content(state["content_id"])
    if content is None:
        raise ValueError(f"content {state['content_id']} no longer exists; nothing was written")
    vectors = services.embedder.embed([embedding_text(c) for c in concepts])
    services.store.ensure_embedder(services.embedder.name, services.embedder.dim)
    changes = ChangeSet(
        contents=[content.model_copy(update={"processed_date": approved_at})],
        concepts=concepts,
        relations=[*relations, *attributions],
        vectors={c.id: vectors[i] for i, c in enumerate(concepts)},
    )
    if "processed_at_start" in state:
        # Nobody else may have committed this content since the run started (checked by the
        # store inside the write); this run's own date is a replay after a crash. Runs
        # checkpointed before this rule carry no date to check.
        at_start = state["processed_at_start"]
        changes.expect_processed = {
            content.id: [datetime.fromisoformat(at_start) if at_start else None, approved_at]
        }
    try:
        store.apply(changes)
    except ConflictError as exc:
        return {
            "status": "superseded",
            "committed": {"concepts": [], "relations": 0, "attributions": 0},
            "warnings": [f"{exc}; extract again with --force to add this run's ideas"],
        }
    touched.extend(end for r in relations for end in (r.source_id, r.target_id))
    return {
        "status": "committed",
        "committed": {
            "concepts": [c.id for c in concepts],
            "relations": len(relations),
            "attributions": len(attributions),
            "touched_existing": sorted(set(touched) - set(ids.values())),
            # What the reader's decisions left out, and the quotes no kept concept cites
            # (a later `extract` of the content proposes for those).
            "left_out": outcome.left_out,
            "open_quotes": len(outcome.open_quote_ids),
            "edited": sorted(ids[k] for k in outcome.model_texts),
        },
        "warnings": warnings,
    }


def _texts(concept: DraftConcept) -> dict[str, str]:
    """A proposed concept's text as a Concept holds it (summaries bounded, cut from the
    statement when the model wrote none)."""
    return {
        "title": concept["title"],
        "concept": concept["concept"],
        "analysis": concept["analysis"],
        "summary": clip_words(concept["summary"] or concept["concept"], SUMMARY_WORDS),
        "summary_short": clip_words(
            concept["summary_short"] or short_summary(concept["concept"]), SHORT_SUMMARY_WORDS
        ),
    }


def _as_written(
    concept: Concept, kept: DraftConcept, edited_at: str | None, *, edited: bool
) -> Concept:
    """The concept as approved: the reader's text where they edited it in the review, the
    model's kept as its earlier revision (`revisions.revised`, the rule of every edit)."""
    if not edited:
        return concept
    return revised(
        concept,
        title=kept["title"],
        statement=kept["concept"],
        analysis=kept["analysis"],
        at=datetime.fromisoformat(edited_at) if edited_at else concept.created_at,
        where="review",
    )


def _supports(
    quote_id: str,
    concept_id: str,
    run_id: str,
    history: list[str],
    at: datetime,
    decision: dict[str, Any],
) -> Relation:
    return Relation(
        source_id=quote_id,
        target_id=concept_id,
        type=SUPPORTS,
        created_at=at,
        properties={"run": run_id, "llm_calls": history, **decision},
    )


def write_vault(state: ExtractionState, services: Services) -> ExtractionState:
    """Notes for the new concepts and the existing ones that gained relations or quotes,
    then those an earlier write left unwritten (their concepts still `vault_sync_pending`)."""
    from zettelgraph.vault.sync import sync_concepts

    committed = state.get("committed", Committed()).copy()
    ids = [*committed.get("concepts", []), *committed.get("touched_existing", [])]
    try:
        report, repaired = sync_concepts(services.store, services.vault, ids)
    except OSError as exc:
        return {
            "committed": {**committed, "vault_errors": [str(exc)]},
            "warnings": [f"notes not written ({exc}): {REPAIR}"],
        }
    committed["notes_written"] = report.written
    committed["notes_updated"] = report.updated
    committed["notes_repaired"] = repaired.written + repaired.updated
    report.errors += repaired.errors
    committed["vault_errors"] = report.error_lines()
    return {"committed": committed, "warnings": report.repair_warnings()}
