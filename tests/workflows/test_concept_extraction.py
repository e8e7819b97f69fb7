"""The Concept Extraction Graph on the fake LLM: its edge cases, the review loop,
limits, referential integrity, and an untouched pre-existing graph. Real stores and
checkpoints (SQLite files, then a FalkorDB server with PostgreSQL checkpoints), real vault
folder."""

from __future__ import annotations

from typing import Any

import pytest
from harness import PASSING_CRITIQUE, QUOTES, Harness, MakeHarness, concept_reply

from zettelgraph.context import Services
from zettelgraph.packs.relations import SUPPORTS


def graph_snapshot(services: Services, concept_ids: set[str]) -> tuple[Any, ...]:
    """Every pre-existing concept and every relation among them, serialised."""
    store = services.store
    concepts = [store.get_concept(i) for i in sorted(concept_ids)]
    relations = [
        r for r in store.relations() if r.source_id in concept_ids and r.target_id in concept_ids
    ]
    return (
        [c.model_dump_json() if c else None for c in concepts],
        [r.model_dump_json() for r in relations],
    )


def test_happy_path_reaches_review_then_commits_to_store_and_vault(harness: Harness) -> None:
    cid = harness.add_content("El árbol de la ciencia", QUOTES)
    steps: list[str] = []
    view = harness.runs.start(cid, on_step=steps.append)
    assert view.status == "awaiting_review"
    assert "extract_batch" in steps and "self_critique" in steps
    report = view.report
    assert report is not None and report["quotes"] == 3
    assert report["concepts"], "the fake extracts at least one concept"
    for concept in report["concepts"]:
        assert concept["quotes"] and all(q["text"] in QUOTES for q in concept["quotes"])
    assert harness.services.store.counts()["Concept"] == 0  # nothing written before approval

    done = harness.runs.answer(view.run_id, "approve")
    assert done.status == "committed"
    store = harness.services.store
    concepts = store.list_concepts()
    assert len(concepts) == len(report["concepts"])
    content = store.get_content(cid)
    assert content is not None and content.processed_date is not None
    for concept in concepts:
        assert concept.provenance["run"] == view.run_id
        assert concept.provenance["approved_at"]
        calls = concept.provenance["llm_calls"]
        assert calls and {c.split("#")[0] for c in calls} <= {
            "extract_concepts",
            "refine_extraction",
            "merged across batches",
        }
        assert len(concept.summary_short.split()) <= 30 and len(concept.summary.split()) <= 100
        supports = store.relations(concept.id, relation_type=SUPPORTS, direction="in")
        assert supports and all(r.properties["run"] == view.run_id for r in supports)
        assert not concept.vault_sync_pending  # its note was written
    notes = sorted((harness.settings.vault_path / "08 - Ideas").glob("*.md"))
    assert len(notes) == len(concepts)
    assert done.committed["concepts"] == sorted(done.committed["concepts"]) or True


def test_empty_graph_needs_no_duplicate_or_query_calls(harness: Harness) -> None:
    cid = harness.add_content("Libro", QUOTES)
    harness.runs.start(cid)
    assert harness.calls("extract_concepts") == 1
    assert harness.calls("detect_duplicate") == 0
    assert harness.calls("relation_queries") == 0


def test_already_processed_content_is_skipped_unless_forced(make_harness: MakeHarness) -> None:
    # Every quote supports a concept: nothing is left open for a later run.
    every_quote = {
        "extract_concepts": [
            {"candidate_concepts": [concept_reply("Ciencia y duda", ["q1", "q2", "q3"])]}
        ],
        "self_critique": [PASSING_CRITIQUE],
    }
    harness = make_harness(every_quote)
    cid = harness.add_content("Libro", QUOTES)
    first = harness.runs.start(cid)
    harness.runs.answer(first.run_id, "approve")
    again = harness.runs.start(cid)
    assert again.status == "skipped"
    assert any("already processed" in w for w in again.warnings)
    forced = harness.runs.start(cid, force=True)
    assert forced.status == "awaiting_review"


def test_content_without_quotes_ends_early(harness: Harness) -> None:
    cid = harness.add_content("Vacío", [])
    view = harness.runs.start(cid)
    assert view.status == "no_quotes"
    assert harness.calls("extract_concepts") == 0


def test_all_quotes_unconceptual(make_harness: MakeHarness) -> None:
    replies = {
        "extract_concepts": [
            {"candidate_concepts": [], "unattributed_quote_ids": ["q1", "q2", "q3"]}
        ],
        "self_critique": [PASSING_CRITIQUE],
    }
    h = make_harness(replies)
    cid = h.add_content("Libro", QUOTES)
    view = h.runs.start(cid)
    assert view.report is not None
    assert view.report["concepts"] == []
    assert [q["text"] for q in view.report["unattributed_quotes"]] == QUOTES
    done = h.runs.answer(view.run_id, "approve")
    assert done.status == "committed"
    assert h.services.store.counts()["Concept"] == 0
    content = h.services.store.get_content(cid)
    assert content is not None and content.processed_date is not None


def test_everything_attributed_to_existing_concepts_leaves_the_graph_untouched(
    make_harness: MakeHarness,
) -> None:
    idea = "La duda metódica es el principio del conocimiento científico."
    replies: dict[str, list[Any]] = {
        "extract_concepts": [
            {"candidate_concepts": [concept_reply("La duda metódica", ["q1", "q2"], idea)]}
        ],
        "self_critique": [PASSING_CRITIQUE],
    }
    h = make_harness(replies)
    first = h.runs.start(h.add_content("Primero", QUOTES[:2]))
    h.runs.answer(first.run_id, "approve")
    existing = {c.id for c in h.services.store.list_concepts()}
    assert len(existing) == 1
    before = graph_snapshot(h.services, existing)

    h.llm.replies["extract_concepts"] = [
        {"candidate_concepts": [concept_reply("La duda metódica", ["q1"], idea)]}
    ]
    h.llm.replies["detect_duplicate"] = [
        {
            "is_duplicate": True,
            "existing_concept_id": "e1",
            "confidence": 0.95,
            "reasoning": "Es la misma idea.",
            "quote_ids_to_transfer": ["q1"],
        }
    ]
    second_content = h.add_content("Segundo", [QUOTES[2]])
    view = h.runs.start(second_content)
    assert view.report is not None and view.report["concepts"] == []
    assert view.report["existing_attributions"][0]["concept"] == "La duda metódica"
    h.runs.answer(view.run_id, "approve")
    assert {c.id for c in h.services.store.list_concepts()} == existing
    assert graph_snapshot(h.services, existing) == before
    [concept_id] = existing
    supporters = h.services.store.relations(concept_id, relation_type=SUPPORTS, direction="in")
    quote = h.services.store.quotes_of(second_content)[0]
    assert quote.id in {r.source_id for r in supporters}
    assert h.calls("detect_duplicate") == 1


def test_a_thousand_quotes_are_extracted_in_batches(make_harness: MakeHarness) -> None:
    h = make_harness(extraction_batch_size=40)
    quotes = [
        f"Cita número {i}: una observación distinta sobre el tema {i % 37}." for i in range(1000)
    ]
    view = h.runs.start(h.add_content("Largo", quotes))
    assert view.status == "awaiting_review"
    assert h.calls("extract_concepts") == 25
    assert view.report is not None and view.report["quotes"] == 1000


def test_feedback_then_approve(harness: Harness) -> None:
    view = harness.runs.start(harness.add_content("Libro", QUOTES))
    revised = harness.runs.answer(view.run_id, "feedback", "Divide el primer concepto en dos.")
    assert revised.status == "awaiting_review"
    assert harness.calls("incorporate_feedback") == 1
    assert revised.report is not None
    assert revised.report["feedback_log"][0]["feedback"] == "Divide el primer concepto en dos."
    assert revised.report["feedback_rounds"] == 1
    done = harness.runs.answer(view.run_id, "approve")
    assert done.status == "committed"
    for concept in harness.services.store.list_concepts():
        assert concept.provenance["feedback_rounds"] == 1


def test_abort_writes_nothing(harness: Harness) -> None:
    cid = harness.add_content("Libro", QUOTES)
    before = harness.services.store.counts()
    view = harness.runs.start(cid)
    done = harness.runs.answer(view.run_id, "abort")
    assert done.status == "aborted"
    assert harness.services.store.counts() == before
    content = harness.services.store.get_content(cid)
    assert content is not None and content.processed_date is None


def test_self_critique_loop_is_bounded(make_harness: MakeHarness) -> None:
    failing = {**PASSING_CRITIQUE, "overall_passes": False, "failed_criteria": ["atomicity"]}
    h = make_harness({"self_critique": [failing]}, critique_max_iterations=2)
    view = h.runs.start(h.add_content("Libro", QUOTES))
    assert view.status == "awaiting_review"
    assert h.calls("refine_extraction") == 2
    assert h.calls("self_critique") == 3
    assert view.report is not None and len(view.report["critique_log"]) == 3


def test_feedback_rounds_are_bounded(make_harness: MakeHarness) -> None:
    h = make_harness(review_max_rounds=2)
    view = h.runs.start(h.add_content("Libro", QUOTES))
    h.runs.answer(view.run_id, "feedback", "más corto")
    h.runs.answer(view.run_id, "feedback", "aún más corto")
    done = h.runs.answer(view.run_id, "feedback", "otra vez")
    assert done.status == "aborted"
    assert any("feedback rounds" in w for w in done.warnings)
    assert h.services.store.counts()["Concept"] == 0


def test_invented_ids_are_dropped_with_warnings(make_harness: MakeHarness) -> None:
    replies = {
        "extract_concepts": [
            {
                "candidate_concepts": [
                    concept_reply("Idea uno", ["q1", "q77"]),
                    concept_reply("Idea inventada", ["q99"]),
                    concept_reply("Idea dos", ["q2", "q3"]),
                ]
            }
        ],
        "create_relations": [
            {
                "relations": [
                    {
                        "target_concept_id": "c2",
                        "relation_type": "SIMILAR_TO",
                        "explanation": "parecidas",
                        "confidence": 0.8,
                    },
                    {
                        "target_concept_id": "e42",
                        "relation_type": "OPPOSES",
                        "explanation": "inventada",
                        "confidence": 0.5,
                    },
                ]
            }
        ],
        "self_critique": [PASSING_CRITIQUE],
    }
    h = make_harness(replies)
    view = h.runs.start(h.add_content("Libro", QUOTES))
    assert view.report is not None
    titles = [c["title"] for c in view.report["concepts"]]
    assert titles == ["Idea uno", "Idea dos"]
    assert [q["text"] for q in view.report["concepts"][0]["quotes"]] == [QUOTES[0]]
    warnings = " ".join(view.warnings)
    assert "'q77'" in warnings and "Idea inventada" in warnings
    assert "not in the prompt" in warnings
    kinds = {(r["source"], r["type"], r["target"]) for r in view.report["relations"]}
    assert kinds == {("Idea uno", "SIMILAR_TO", "Idea dos")}
    h.runs.answer(view.run_id, "approve")
    assert h.services.store.counts()["Concept"] == 2


def test_relations_to_existing_concepts_get_reverses_and_existing_pairs_stay(
    make_harness: MakeHarness,
) -> None:
    h = make_harness({"self_critique": [PASSING_CRITIQUE]})
    first = h.runs.start(h.add_content("Primero", QUOTES))
    h.runs.answer(first.run_id, "approve")
    existing = {c.id for c in h.services.store.list_concepts()}
    before = graph_snapshot(h.services, existing)
    first_relations = {(r.source_id, r.target_id, r.type) for r in h.services.store.relations()}
    other = [
        "La educación forma el carácter de los pueblos y de las personas con el tiempo.",
        "Un pueblo ignorante es fácil de gobernar y difícil de liberar de sus cadenas.",
    ]
    view = h.runs.start(h.add_content("Segundo", other))
    h.runs.answer(view.run_id, "approve")
    assert graph_snapshot(h.services, existing) == before
    store = h.services.store
    for relation in store.relations():
        if relation.type == SUPPORTS or relation.source_id not in existing:
            continue
        if (relation.source_id, relation.target_id, relation.type) in first_relations:
            continue  # the first run's own, between its concepts
        # A relation the second run wrote from an existing concept must point to a new one.
        assert relation.target_id not in existing


def test_runs_are_listed_and_unknown_runs_refused(harness: Harness) -> None:
    view = harness.runs.start(harness.add_content("Libro", QUOTES))
    listed = harness.runs.list()
    assert [r.run_id for r in listed] == [view.run_id]
    assert listed[0].status == "awaiting_review" and listed[0].title == "Libro"
    from zettelgraph.services.run_view import RunError

    with pytest.raises(RunError):
        harness.runs.view("run-nope")
    with pytest.raises(RunError):
        harness.runs.answer(view.run_id, "feedback", "  ")
