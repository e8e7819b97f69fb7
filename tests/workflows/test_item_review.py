"""Item-by-item review on the fake LLM: the reader keeps, drops, edits, merges, moves quotes,
retypes and adds relations; decisions are saved with the run and approving writes exactly
what was kept, on SQLite and on FalkorDB (with PostgreSQL checkpoints)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from harness import PASSING_CRITIQUE, Harness, MakeHarness

from zettelgraph.guards.doubt import DoubtModel, choose
from zettelgraph.packs.relations import SUPPORTS
from zettelgraph.services.review import ReviewError, decide, decisions_from
from zettelgraph.workflows.concept_extraction.decisions import ItemDecision

QUOTES = [
    "La libertad es uno de los más preciosos dones que a los hombres dieron los cielos.",
    "Cada uno es hijo de sus obras, y no de su linaje ni de su fortuna.",
    "El que lee mucho y anda mucho, ve mucho y sabe mucho de los hombres.",
]


def concept(title: str, text: str, quote_ids: list[str]) -> dict[str, Any]:
    return {
        "title": title,
        "concept": text,
        "analysis": f"{title}: lo que la cita enseña.",
        "summary_short": text,
        "source_quote_ids": quote_ids,
    }


def relations_for(prompt: str) -> dict[str, Any]:
    """c1 SIMILAR_TO c2, c2 SUPPORTS c3: one answer per concept asked about."""
    asked = re.search(r"New idea \[(c\d+)\]", prompt)
    source = asked.group(1) if asked else ""
    answers = {
        "c1": [
            {
                "target_concept_id": "c2",
                "relation_type": "SIMILAR_TO",
                "explanation": "La libertad y las obras: uno es lo que elige hacer.",
                "confidence": 0.8,
            }
        ],
        "c2": [
            {
                "target_concept_id": "c3",
                "relation_type": "SUPPORTS",
                "explanation": "Las obras y la experiencia: se aprende haciendo y viendo.",
                "confidence": 0.7,
            }
        ],
    }
    return {"relations": answers.get(source, [])}


REPLIES = {
    "extract_concepts": [
        {
            "candidate_concepts": [
                concept("La libertad como don", "La libertad es el mayor bien del hombre.", ["q1"]),
                concept("Somos lo que hacemos", "Cada persona se define por sus actos.", ["q2"]),
                concept("Leer y viajar enseñan", "La experiencia y la lectura dan saber.", ["q3"]),
            ]
        }
    ],
    "create_relations": [relations_for],
    "self_critique": [PASSING_CRITIQUE],
}
OPEN = {"relation_min_similarity": -1.0, "relation_unrelated_below": -1.0}


def start(h: Harness) -> tuple[str, dict[str, Any]]:
    view = h.runs.start(h.add_content("Don Quijote", QUOTES))
    assert view.status == "awaiting_review" and view.report is not None
    return view.run_id, view.report


def by_key(report: dict[str, Any], key: str) -> dict[str, Any]:
    items = [*report["concepts"], *report["relations"]]
    return next(item for item in items if item["key"] == key)


def decisions(data: Any) -> list[ItemDecision]:
    return decisions_from(data)


def test_approve_writes_exactly_what_was_kept(make_harness: MakeHarness) -> None:
    h = make_harness(REPLIES, **OPEN)
    run_id, report = start(h)
    assert [c["key"] for c in report["concepts"]] == ["c1", "c2", "c3"]
    assert {r["key"] for r in report["relations"]} == {"r1", "r2"}

    view = decide(
        h.runs,
        run_id,
        decisions(
            {
                "keep": ["c1"],
                "drop": ["c2"],
                "edit": {"c3": {"title": "Leer y andar dan saber", "concept": "Se sabe viendo."}},
            }
        ),
    )
    assert view.status == "awaiting_review" and view.report is not None
    summary = view.report["review"]
    assert summary["counts"] == {
        "kept": 1,
        "edited": 1,
        "merged": 0,
        "dropped": 1,
        "undecided": 2,
        "doubtful": 0,
    }
    # Both relations touch the dropped c2: they go with it, and the review says so.
    assert summary["writes"] == {"concepts": 2, "relations": 0, "attributions": 2}
    assert {gone["item"] for gone in summary["left_out"]} == {"c2", "r1", "r2"}
    assert [q["key"] for q in summary["open_quotes"]] == ["q2"]
    assert h.services.store.counts()["Concept"] == 0  # nothing written before approval

    done = h.runs.answer(run_id, "approve")
    assert done.status == "committed"
    store = h.services.store
    titles = sorted(c.title for c in store.list_concepts())
    assert titles == ["La libertad como don", "Leer y andar dan saber"]
    assert not [r for r in store.relations() if r.type == "SIMILAR_TO"]
    assert done.committed["open_quotes"] == 1
    assert {gone["item"] for gone in done.committed["left_out"]} == {"c2", "r1", "r2"}
    edited = next(c for c in store.list_concepts() if c.title == "Leer y andar dan saber")
    assert edited.text_by == "reader"
    [revision] = edited.revisions
    assert revision.by == "model" and revision.replaced_in == "review"
    assert revision.title == "Leer y viajar enseñan"
    assert edited.provenance["review"]["decided_by"] == "reader"
    assert "reader" not in edited.provenance["llm_calls"]
    notes = sorted(p.stem for p in (h.settings.vault_path / "08 - Ideas").glob("*.md"))
    assert notes == ["La libertad como don", "Leer y andar dan saber"]

    # The quote the dropped concept cited stays open: the next run proposes only for it.
    again = h.runs.start(store.list_contents()[0].id)
    assert again.status == "awaiting_review" and again.report is not None
    assert again.report["quotes"] == 1
    assert any("support no concept yet" in w for w in again.warnings)


def test_decisions_are_saved_and_can_change_until_approval(make_harness: MakeHarness) -> None:
    h = make_harness(REPLIES, **OPEN)
    run_id, _ = start(h)
    decide(h.runs, run_id, decisions({"drop": ["c1", "r2"]}))
    # Another process (a new harness on the same home and checkpoints) sees them.
    view = h.runs.view(run_id)
    assert view.report is not None
    assert by_key(view.report, "c1")["decision"] == {
        "verdict": "drop",
        "decided": True,
        "edited": False,
    }
    decide(h.runs, run_id, decisions({"undecide": ["c1"], "keep": ["r2"]}))
    report = h.runs.view(run_id).report
    assert report is not None
    assert by_key(report, "c1")["decision"]["decided"] is False
    assert by_key(report, "r2")["decision"]["verdict"] == "keep"
    actions = [entry["action"] for entry in report["review"]["left_out"]]
    assert actions == []
    done = h.runs.answer(run_id, "approve")
    assert len(done.committed["concepts"]) == 3


def test_merge_moves_quotes_and_relations(make_harness: MakeHarness) -> None:
    h = make_harness(REPLIES, **OPEN)
    run_id, _ = start(h)
    view = decide(h.runs, run_id, decisions({"merge": {"c2": "c1"}}))
    assert view.report is not None
    summary = view.report["review"]
    # c1 SIMILAR_TO c2 becomes c1 to itself (left out); c2 SUPPORTS c3 becomes c1 SUPPORTS c3.
    assert summary["writes"]["concepts"] == 2 and summary["writes"]["relations"] == 1
    assert any(g["item"] == "r1" and "itself" in g["why"] for g in summary["left_out"])
    done = h.runs.answer(run_id, "approve")
    store = h.services.store
    liberty = next(c for c in store.list_concepts() if c.title == "La libertad como don")
    quotes = store.relations(liberty.id, relation_type=SUPPORTS, direction="in")
    assert len(quotes) == 2
    out = [r for r in store.relations(liberty.id, direction="out") if r.type == "SUPPORTS"]
    assert len(out) == 1
    assert done.committed["open_quotes"] == 0


def test_move_quote_retype_and_relate(make_harness: MakeHarness) -> None:
    two = {
        "candidate_concepts": [
            concept("La libertad como don", "La libertad es el mayor bien del hombre.", ["q1"]),
            concept("Somos lo que hacemos", "Cada persona se define por sus actos.", ["q2", "q3"]),
            concept("Leer y viajar enseñan", "La experiencia y la lectura dan saber.", ["q3"]),
        ]
    }
    h = make_harness({**REPLIES, "extract_concepts": [two]}, **OPEN)
    run_id, _ = start(h)
    view = decide(
        h.runs,
        run_id,
        [
            ItemDecision(item="c3", action="relate", target="c1", type="supports"),
            ItemDecision(item="r1", action="retype", type="RELATES_TO"),
        ],
    )
    assert view.report is not None
    assert [a["key"] for a in view.report["added_relations"]] == ["a1"]
    assert by_key(view.report, "r1")["type"] == "RELATES_TO"
    # The only quote of a concept cannot be taken off: the error says what to do instead.
    with pytest.raises(ReviewError, match="only quote"):
        decide(h.runs, run_id, [ItemDecision(item="c1", action="remove_quote", quote="q1")])
    with pytest.raises(ReviewError, match="only quote"):
        decide(h.runs, run_id, [ItemDecision(item="c1", action="move_quote", quote="q1", to="c2")])
    decide(h.runs, run_id, [ItemDecision(item="c2", action="move_quote", quote="q3", to="c1")])
    report = h.runs.view(run_id).report
    assert report is not None
    assert [q["key"] for q in by_key(report, "c1")["quotes"]] == ["q1", "q3"]
    assert [q["key"] for q in by_key(report, "c2")["quotes"]] == ["q2"]
    done = h.runs.answer(run_id, "approve")
    store = h.services.store
    types = sorted(r.type for r in store.relations() if r.type not in (SUPPORTS, "QUOTED_IN"))
    # RELATES_TO is symmetric (two edges); SUPPORTS from the reader and from the model each
    # come with their SUPPORTED_BY reverse.
    assert types.count("RELATES_TO") == 2
    added = [r for r in store.relations() if r.properties.get("review", {}).get("added_by")]
    assert added and all(r.properties["model"] is None for r in added)
    retyped = [r for r in store.relations() if r.properties.get("retyped_from")]
    assert retyped and retyped[0].properties["retyped_from"] == "SIMILAR_TO"
    assert done.status == "committed"


def test_a_bad_decision_saves_none_and_names_the_item(make_harness: MakeHarness) -> None:
    h = make_harness(REPLIES, **OPEN)
    run_id, _ = start(h)
    with pytest.raises(ReviewError, match="no concept 'c9'"):
        decide(h.runs, run_id, decisions({"keep": ["c1"], "edit": {"c9": {"title": "x"}}}))
    with pytest.raises(ReviewError, match="not a relation type"):
        decide(h.runs, run_id, decisions({"retype": {"r1": "LOVES"}}))
    with pytest.raises(ReviewError, match="cannot be empty"):
        decide(h.runs, run_id, decisions({"edit": {"c1": {"title": "  "}}}))
    report = h.runs.view(run_id).report
    assert report is not None and report["review"]["decisions"] == 0


def test_doubtful_items_are_left_out_unless_kept(make_harness: MakeHarness) -> None:
    h = make_harness(REPLIES, **OPEN)
    # A calibration under which everything is doubtful: nothing is written by default.
    strict = {
        kind: DoubtModel(kind=kind, signals=(), mean=(), scale=(), weights=(), bias=0.0, floor=1.0)
        for kind in ("concept", "relation")
    }
    h.services.doubt_models_given = strict  # type: ignore[assignment]
    run_id, report = start(h)
    assert all(c["doubt"]["doubtful"] for c in report["concepts"])
    assert report["review"]["writes"]["concepts"] == 0
    decide(h.runs, run_id, decisions({"keep": ["c2"]}))
    done = h.runs.answer(run_id, "approve")
    assert [h.services.store.get_concept(c).title for c in done.committed["concepts"]] == [  # type: ignore[union-attr]
        "Somos lo que hacemos"
    ]
    left = {g["item"]: g["why"] for g in done.committed["left_out"]}
    assert left["c1"].startswith("doubtful")


def test_feedback_applies_to_undecided_items_only(make_harness: MakeHarness) -> None:
    rewrite = {
        "upsert_concepts": [
            {**concept("Cambiado", "Otro texto.", ["q1"]), "id": "c1", "summary": "Otro."},
            {**concept("También cambiado", "Otra idea.", ["q2"]), "id": "c2", "summary": "Otra."},
        ],
        "feedback_interpretation": "cambiar títulos",
    }
    h = make_harness({**REPLIES, "incorporate_feedback": [rewrite]}, **OPEN)
    run_id, _ = start(h)
    decide(h.runs, run_id, decisions({"keep": ["c1"]}))
    view = h.runs.answer(run_id, "feedback", "cambia los títulos")
    assert view.report is not None
    titles = {c["key"]: c["title"] for c in view.report["concepts"]}
    assert titles["c1"] == "La libertad como don"  # decided: left as it was
    assert titles["c2"] == "También cambiado"
    assert any("c1 is decided by you" in w for w in view.warnings)


def test_calibrate_refits_the_flags_to_the_readers_decisions(
    make_harness: MakeHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zettelgraph.services import calibration

    h = make_harness(REPLIES, **OPEN)
    first, _ = start(h)
    # Too few decisions: the shipped flags stay, and the report says how many are missing.
    decide(h.runs, first, decisions({"keep": ["c1", "c3"], "drop": ["c2"]}))
    early = calibration.calibrate(h.runs)
    assert not early.written
    assert early.kinds[0].reason.startswith("3 of the 50")

    monkeypatch.setattr(calibration, "MIN_DECISIONS", 3)
    done = calibration.calibrate(h.runs)
    concepts = done.kinds[0]
    assert done.written and concepts.refitted and concepts.decisions == 3
    assert concepts.yours["recall"] >= 0.8  # the one drop falls under the new floor
    saved = h.settings.calibration_path
    assert saved.is_file() and "concept" in saved.read_text(encoding="utf-8")
    # Later reviews flag with it; --reset goes back to the shipped models.
    chosen = choose(h.services.doubt_models, "concept", small=False)
    assert "3 of your decisions" in chosen.fitted_on
    assert calibration.reset(h.runs) and not saved.exists()


def test_every_item_gets_its_signals_and_unconfirmed_relations_become_suggestions(
    make_harness: MakeHarness,
) -> None:
    h = make_harness(REPLIES, confirmed_relations=True, **OPEN)
    # Relations are doubtful under this floor; concepts keep the shipped calibration.
    strict = DoubtModel(
        kind="relation", signals=(), mean=(), scale=(), weights=(), bias=0.0, floor=1.0
    )
    h.services.doubt_models_given = {**h.services.doubt_models, "relation": strict}
    run_id, report = start(h)
    for concept in report["concepts"]:
        # The fake answers the checks with log-probabilities, as a local server does.
        assert {"copy", "foreign_quote", "check", "idea"} <= set(concept["doubt"]["signals"])
    assert report["relations"] == []
    related = report["related"]
    assert [s["proposed_type"] for s in related] == ["SIMILAR_TO", "SUPPORTS"]
    assert all("stance" in s["doubt"]["signals"] for s in related)
    assert h.calls("check_statement") == 6 and h.calls("check_relation") == 2
    assert h.calls("check_idea") == 6  # both orders, for each of the three concepts
    # A suggestion is written only once typed.
    decide(h.runs, run_id, decisions({"retype": {related[0]["key"]: "SIMILAR_TO"}}))
    done = h.runs.answer(run_id, "approve")
    assert done.committed["relations"] == 1


def test_the_doubt_checks_are_asked_together(make_harness: MakeHarness) -> None:
    # One after another, the checks of a 1,000-quote run took 34 s of 300 ms calls.
    h = make_harness(REPLIES, **OPEN)
    h.llm.latency = 0.1
    start(h)
    assert h.calls("check_statement") == 6 and h.calls("check_idea") == 6
    # Every check after the first (which tells whether the model gives log-probabilities)
    # is in flight with the others: the statement checks overlap, and so do the idea checks.
    assert h.llm.most_at_once["check_statement"] > 1 and h.llm.most_at_once["check_idea"] > 1


def test_the_model_is_asked_only_the_checks_the_flags_use(make_harness: MakeHarness) -> None:
    h = make_harness(REPLIES, **OPEN)
    # A fitted concept model on two signals: the statement check (two calls a concept) is
    # not asked, the idea check is, and the flags are scored on what was measured.
    fitted = DoubtModel(
        kind="concept",
        signals=("generic", "idea"),
        mean=(0.2, 0.6),
        scale=(0.1, 0.1),
        weights=(1.0, 1.0),
        bias=0.0,
        floor=0.5,
    )
    h.services.doubt_models_given = {**h.services.doubt_models, "concept": fitted}
    _, report = start(h)
    assert h.calls("check_statement") == 0 and h.calls("check_idea") == 6
    for concept in report["concepts"]:
        signals = concept["doubt"]["signals"]
        assert "idea" in signals and "check" not in signals


def test_keys_are_numbered_as_shown_after_a_concept_goes(make_harness: MakeHarness) -> None:
    # Feedback takes c2 away before any decision: the review lists c1, c2, not c1, c3.
    dropped = {"remove_concept_ids": ["c2"], "feedback_interpretation": "quitar c2"}
    h = make_harness({**REPLIES, "incorporate_feedback": [dropped]}, **OPEN)
    run_id, _ = start(h)
    view = h.runs.answer(run_id, "feedback", "quita la segunda idea")
    assert view.report is not None
    shown = [(c["key"], c["title"]) for c in view.report["concepts"]]
    assert shown == [("c1", "La libertad como don"), ("c2", "Leer y viajar enseñan")]
    # The keys shown are the keys decisions take.
    decide(h.runs, run_id, decisions({"drop": ["c2"]}))
    done = h.runs.answer(run_id, "approve")
    titles = [h.services.store.get_concept(c).title for c in done.committed["concepts"]]  # type: ignore[union-attr]
    assert titles == ["La libertad como don"]


def test_keys_stay_once_a_decision_names_them(make_harness: MakeHarness) -> None:
    dropped = {"remove_concept_ids": ["c2"], "feedback_interpretation": "quitar c2"}
    h = make_harness({**REPLIES, "incorporate_feedback": [dropped]}, **OPEN)
    run_id, _ = start(h)
    decide(h.runs, run_id, decisions({"keep": ["c3"]}))
    view = h.runs.answer(run_id, "feedback", "quita la segunda idea")
    assert view.report is not None
    shown = {c["key"]: (c["title"], c["decision"]["decided"]) for c in view.report["concepts"]}
    # Renumbering now would make the decision on c3 name another concept, or none.
    assert shown == {"c1": ("La libertad como don", False), "c3": ("Leer y viajar enseñan", True)}
