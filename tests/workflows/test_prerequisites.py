"""What must be understood first (issue 31): the relation call may propose PREREQUISITE_FOR
between two new concepts, the reader's approval stores it with its reverse REQUIRES, and Study
shows the prerequisite's new cards first, on every backend."""

from __future__ import annotations

from harness import PASSING_CRITIQUE, QUOTES, MakeHarness, concept_reply

from new_cards import T0, new_card
from zettelgraph.models import ChangeSet, Difficulty
from zettelgraph.services.study import study_queue


def replies() -> dict[str, list[object]]:
    return {
        "extract_concepts": [
            {
                "candidate_concepts": [
                    concept_reply("El límite de una función", ["q1"]),
                    concept_reply("La derivada", ["q2", "q3"]),
                ]
            }
        ],
        "create_relations": [
            {
                "relations": [
                    {
                        "target_concept_id": "c2",
                        "relation_type": "PREREQUISITE_FOR",
                        "explanation": "Sin el límite de una función no se entiende la derivada.",
                        "confidence": 0.9,
                    }
                ]
            },
            {"relations": []},
        ],
        "self_critique": [PASSING_CRITIQUE],
    }


def test_a_prerequisite_is_proposed_stored_and_studied_first(make_harness: MakeHarness) -> None:
    h = make_harness(replies())
    view = h.runs.start(h.add_content("Cálculo", QUOTES))
    assert view.report is not None
    assert [(r["type"], r["reverse"]) for r in view.report["relations"]] == [
        ("PREREQUISITE_FOR", "REQUIRES")
    ]
    h.runs.answer(view.run_id, "approve")
    store = h.services.store
    ids = {c.title: c.id for c in store.list_concepts()}
    limit, derivative = ids["El límite de una función"], ids["La derivada"]
    kinds = {(r.source_id, r.type, r.target_id) for r in store.relations()}
    assert {(limit, "PREREQUISITE_FOR", derivative), (derivative, "REQUIRES", limit)} <= kinds

    # The derivative's card is easy and the limit's hard: without the prerequisite, easy
    # comes first.
    store.apply(ChangeSet(learning_items=[new_card(derivative), new_card(limit, Difficulty.HARD)]))
    queue = study_queue(store, h.settings, now=T0)
    assert [i.concept_ids[0] for i in queue.new] == [limit, derivative]
