"""The concept workflow end to end on a changed zettelkasten pack in the home folder: the
relation call may only answer with the pack's types, and what it answers is committed with
the pack's reverses and written to the vault under the pack's types."""

from __future__ import annotations

from pathlib import Path

from harness import PASSING_CRITIQUE, QUOTES, MakeHarness, concept_reply

from pack_files import changed_zettelkasten


def relation(kind: str) -> dict[str, object]:
    return {
        "relations": [
            {
                "target_concept_id": "c2",
                "relation_type": kind,
                "explanation": "La idea uno lleva a la idea dos.",
                "confidence": 0.8,
            }
        ]
    }


def replies(kind: str) -> dict[str, list[object]]:
    return {
        "extract_concepts": [
            {
                "candidate_concepts": [
                    concept_reply("Idea uno", ["q1"]),
                    concept_reply("Idea dos", ["q2", "q3"]),
                ]
            }
        ],
        "create_relations": [relation(kind)],
        "self_critique": [PASSING_CRITIQUE],
    }


def with_changed_pack(tmp_path: Path, index: int) -> None:
    packs = tmp_path / f"home{index}" / "packs"  # the harness's home for its nth harness
    packs.mkdir(parents=True)
    (packs / "zettelkasten.yaml").write_text(changed_zettelkasten(), encoding="utf-8")


def test_a_new_type_of_the_pack_is_proposed_committed_and_written(
    tmp_path: Path, make_harness: MakeHarness
) -> None:
    with_changed_pack(tmp_path, 0)
    h = make_harness(replies("CAUSES"))
    view = h.runs.start(h.add_content("Libro", QUOTES))
    assert view.report is not None
    assert [(r["type"], r["reverse"]) for r in view.report["relations"]] == [
        ("CAUSES", "CAUSED_BY")
    ]
    h.runs.answer(view.run_id, "approve")
    store = h.services.store
    kinds = sorted(r.type for r in store.relations() if r.type in {"CAUSES", "CAUSED_BY"})
    assert kinds == ["CAUSED_BY", "CAUSES"]
    notes = {p.stem: p.read_text(encoding="utf-8") for p in h.settings.vault_path.rglob("*.md")}
    assert "- CAUSES: [[Idea dos]]" in notes["Idea uno"]
    assert "- CAUSED_BY: [[Idea uno]]" in notes["Idea dos"]
    assert all("SIMILAR_TO" not in text for text in notes.values())


def test_a_type_the_pack_removed_cannot_be_answered(
    tmp_path: Path, make_harness: MakeHarness
) -> None:
    with_changed_pack(tmp_path, 0)
    h = make_harness(replies("SIMILAR_TO"), llm_retries=0)
    view = h.runs.start(h.add_content("Libro", QUOTES))
    assert view.report is not None
    assert view.report["relations"] == []
    assert any("create_relations" in w and "no relations" in w for w in view.warnings)
