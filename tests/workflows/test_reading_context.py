"""Issue 31, items 7 and 17: the extraction call knows what it reads. It is told the content's
kind (a book's quotes, a document's passages, a deck's slides), and a document's passages reach
it grouped by their section with the section's text shown as context, never as evidence."""

from __future__ import annotations

from harness import PASSING_CRITIQUE, QUOTES, MakeHarness, concept_reply
from test_seed_fidelity import recorder

from zettelgraph.prompts.extract_concepts import HOW_TO_READ

ONE_CONCEPT = {"candidate_concepts": [concept_reply("La ciencia como instrumento", ["q1"])]}


def test_the_extraction_call_is_told_what_kind_of_content_it_reads(
    make_harness: MakeHarness,
) -> None:
    prompts: list[str] = []
    h = make_harness(
        {"extract_concepts": [recorder(prompts, ONE_CONCEPT)], "self_critique": [PASSING_CRITIQUE]}
    )
    view = h.runs.start(h.add_content("Presentación", QUOTES, kind="pptx"))
    assert view.status == "awaiting_review"
    assert len(prompts) == 1
    assert f"What it is: {HOW_TO_READ['pptx']}." in prompts[0]
    assert HOW_TO_READ["book"] not in prompts[0]


DOUBT = "El método empieza por dudar de todo lo recibido."
SENSES = [
    "Los sentidos engañan a veces, y no conviene fiarse de quien nos engañó una vez.",
    "Ni siquiera la vigilia se distingue con certeza del sueño.",
    "Solo queda cierto que pienso mientras dudo.",
]
GOD = [
    "La idea de perfección no puede venir de un ser imperfecto.",
    "Un dios veraz no permitiría que me engañara en lo que concibo con claridad.",
]
DOCUMENT = [
    ("Primera meditación", DOUBT, SENSES),
    ("Tercera meditación", "La prueba de Dios sostiene el conocimiento.", GOD),
]


def test_a_documents_passages_reach_the_call_with_their_section_as_context(
    make_harness: MakeHarness,
) -> None:
    """Four passages a batch: in reading order the second section's first passage would join
    the first section's batch, away from its section's text."""
    prompts: list[str] = []
    reply = {"candidate_concepts": [concept_reply("Dudar para saber", ["q1"])]}
    god = concept_reply("La perfección no viene de lo imperfecto", ["q4"])
    god_reply = {"candidate_concepts": [god]}
    h = make_harness(
        {
            "extract_concepts": [
                lambda p: recorder(prompts, god_reply if "Tercera" in p else reply)(p),
                lambda p: recorder(prompts, god_reply if "Tercera" in p else reply)(p),
            ],
            "self_critique": [PASSING_CRITIQUE],
        },
        extraction_batch_size=4,
    )
    view = h.runs.start(h.add_document("Meditaciones", DOCUMENT))
    assert view.status == "awaiting_review"
    assert len(prompts) == 2
    first, second = sorted(prompts, key=lambda p: "Tercera" in p)
    assert f"What it is: {HOW_TO_READ['pdf']}." in first
    # Each call holds one section's passages, under its title and (clipped) text, marked as
    # context and not as something to cite.
    assert all(p in first for p in SENSES) and not any(p in first for p in GOD)
    assert all(p in second for p in GOD) and not any(p in second for p in SENSES)
    assert 'Section s1 "Primera meditación": context only, not a quote' in first
    assert DOUBT in first and "Tercera" not in first
    assert 'Section s1 "Tercera meditación"' in second
    # What the concepts cite are passages, which grounding checks them against.
    report = view.report
    assert report is not None
    cited = {q["text"] for c in report["concepts"] for q in c["quotes"]}
    assert cited == {SENSES[0], GOD[0]}
