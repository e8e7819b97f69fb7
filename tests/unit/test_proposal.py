"""Patches and referential integrity on a run's proposal (pure functions)."""

from __future__ import annotations

from zettelgraph.packs.relations import DEFAULT_VOCABULARY
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.prompts.proposal_patch import (
    AttributionChange,
    ConceptChange,
    ProposalPatch,
    RelationChange,
)
from zettelgraph.workflows.concept_extraction.proposal import (
    apply_patch,
    dedupe_relations,
    existing_map,
    quote_map,
)
from zettelgraph.workflows.concept_extraction.state import DraftConcept, DraftRelation, Proposal

QUOTES = [{"id": f"quote-{i}"} for i in range(1, 5)]
EXISTING = "6f1c3c9e-0000-4000-8000-000000000001"
OTHER_EXISTING = "6f1c3c9e-0000-4000-8000-000000000002"


def concept(key: str, quotes: list[str]) -> DraftConcept:
    return DraftConcept(
        key=key,
        title=f"Idea {key}",
        concept="texto",
        analysis="",
        summary="",
        summary_short="resumen",
        quote_ids=quotes,
        rationale="",
        history=["extract_concepts"],
    )


def relation(source: str, kind: str, target: str) -> DraftRelation:
    return DraftRelation(
        source=source, type=kind, target=target, explanation="", confidence=0.5, history=[]
    )


def proposal() -> Proposal:
    return {
        "concepts": [concept("c1", ["quote-1"]), concept("c2", ["quote-2"])],
        "attributions": [
            {
                "concept_id": EXISTING,
                "title": "Existente",
                "quote_ids": ["quote-3"],
                "reason": "",
                "history": [],
            }
        ],
        "relations": [relation("c1", "RELATES_TO", "c2"), relation("c2", "PART_OF", EXISTING)],
        "unattributed_quote_ids": ["quote-4"],
        "notes": [],
    }


def patch_and_apply(
    patch: ProposalPatch, extra_existing: tuple[str, ...] = ()
) -> tuple[Proposal, list[str]]:
    current = proposal()
    emap = existing_map(current, extra_existing)
    return apply_patch(
        current,
        patch,
        qmap=quote_map(QUOTES),
        emap=emap,
        titles={EXISTING: "Existente"},
        call="refine_extraction#1",
        vocabulary=DEFAULT_VOCABULARY,
    )


def test_removing_a_concept_removes_its_relations() -> None:
    result, warnings = patch_and_apply(ProposalPatch(remove_concept_ids=["c2"]))
    assert [c["key"] for c in result["concepts"]] == ["c1"]
    assert result["relations"] == []
    assert "quote-2" in result["unattributed_quote_ids"]
    assert warnings == []


def test_upsert_replaces_text_keeps_history_and_drops_unknown_quotes() -> None:
    change = ConceptChange(
        id="c1",
        title="Idea mejor",
        concept="nuevo",
        analysis="",
        summary="",
        summary_short="corto",
        source_quote_ids=["q1", "q4", "q9"],
    )
    result, warnings = patch_and_apply(ProposalPatch(upsert_concepts=[change]))
    first = result["concepts"][0]
    assert (first["title"], first["quote_ids"]) == ("Idea mejor", ["quote-1", "quote-4"])
    assert first["history"] == ["extract_concepts", "refine_extraction#1"]
    assert result["unattributed_quote_ids"] == []
    assert any("'q9'" in w for w in warnings)


def test_relations_between_existing_concepts_and_unknown_ids_are_dropped() -> None:
    patch = ProposalPatch(
        add_relations=[
            RelationChange(source_id="e1", relation_type="OPPOSES", target_id="e2"),
            RelationChange(source_id="c1", relation_type="OPPOSES", target_id="e7"),
            RelationChange(source_id="c1", relation_type="SIMILAR_TO", target_id="c1"),
            RelationChange(source_id="c1", relation_type="GENERALIZES", target_id="e1"),
        ]
    )
    result, warnings = patch_and_apply(patch, extra_existing=(OTHER_EXISTING,))
    added = [(r["source"], r["type"], r["target"]) for r in result["relations"]]
    assert ("c1", "GENERALIZES", EXISTING) in added
    assert not any(r[1] == "OPPOSES" for r in added)
    text = " ".join(warnings)
    assert "two existing concepts" in text and "not in the prompt" in text and "itself" in text


def test_attributions_are_set_and_cleared() -> None:
    result, _ = patch_and_apply(
        ProposalPatch(set_attributions=[AttributionChange(existing_concept_id="e1", quote_ids=[])])
    )
    assert result["attributions"] == []
    assert "quote-3" in result["unattributed_quote_ids"]


def test_a_relation_and_its_reverse_are_one_fact() -> None:
    relations = [relation("c1", "GENERALIZES", "c2"), relation("c2", "SPECIFIC_OF", "c1")]
    assert len(dedupe_relations(relations, DEFAULT_VOCABULARY)) == 1


def test_local_ids_round_trip() -> None:
    ids = LocalIds("q", ["a", "b"])
    assert (ids.local("a"), ids.local("b"), ids.local("c")) == ("q1", "q2", "q3")
    assert ids.real(" q2 ") == "b" and ids.real("q9") is None and "q1" in ids
