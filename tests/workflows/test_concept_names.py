"""Issue 31, item 18: a concept keeps the other names a reader may search it by (`synonyms`)
and where in its content it first appears (`first_appearance`): in the review, in the store
of every backend, in the vault note's `aliases`, and in full-text search."""

from __future__ import annotations

from harness import PASSING_CRITIQUE, QUOTES, MakeHarness, concept_reply
from rich.console import Console

from zettelgraph.cli.report_view import print_report
from zettelgraph.models import NodeLabel
from zettelgraph.vault.markdown import parse_note

TITLE = "La duda como método"
SYNONYMS = ["Escepticismo metódico", "la duda como MÉTODO", "Duda cartesiana", "Duda  cartesiana"]


def test_synonyms_and_first_appearance_reach_the_review_the_store_and_the_vault(
    make_harness: MakeHarness,
) -> None:
    concept = {**concept_reply(TITLE, ["q3", "q1"]), "synonyms": SYNONYMS}
    h = make_harness(
        {
            "extract_concepts": [{"candidate_concepts": [concept]}],
            "self_critique": [PASSING_CRITIQUE],
        }
    )
    view = h.runs.start(h.add_content("Libro", QUOTES))
    assert view.report is not None
    proposed = view.report["concepts"][0]
    # The title and a repeated name (case, accents and spacing aside) are not synonyms.
    assert proposed["synonyms"] == ["Escepticismo metódico", "Duda cartesiana"]
    # The earliest cited quote in reading order, not the first one cited: the first quote.
    assert proposed["first_appearance"] == "p. 1"
    console = Console(record=True, width=200)
    print_report(console, view.report)
    shown = console.export_text()
    assert "Also called: Escepticismo metódico, Duda cartesiana" in shown
    assert "First appears: p. 1" in shown

    h.runs.answer(view.run_id, "approve")
    store = h.services.store
    (stored,) = store.list_concepts()
    assert stored.synonyms == ["Escepticismo metódico", "Duda cartesiana"]
    assert stored.first_appearance == "p. 1"
    # A reader searching by another name finds it: no other text of it says "escepticismo".
    hits = store.text_search("escepticismo", 5, label=NodeLabel.CONCEPT)
    assert [hit.id for hit in hits] == [stored.id]
    note = h.services.vault.note_path(stored).read_text(encoding="utf-8")
    front, _ = parse_note(note)
    assert {"Escepticismo metódico", "Duda cartesiana"} <= set(front["aliases"])
