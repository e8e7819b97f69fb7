"""Compact answers inside the workflow (`ZETTELGRAPH_COMPACT_ANSWERS`, on for the local models):
each quote's key words reach the extraction and the rewrite from a quote, an English quote's do
not, the model writes a title and a concept only, and the short summary is cut from the concept.
Fake LLM with scripted answers, real stores and checkpoints."""

from __future__ import annotations

from typing import Any

from harness import PASSING_CRITIQUE, MakeHarness

PATRIA = (
    "Pues la patria es una segunda religión, y antes que faltar a su ley, el hombre debe morir."
)
INQUINA = (
    "Ayer todo era inquina contra el ogro de Córcega, todo insultarle y ponerle por esos "
    "suelos; hoy todas son blanduras."
)
DETAIL = "Our life is frittered away by detail."

PATRIA_CONCEPT = {
    "title": "La patria como segunda religión",
    "concept": "Quien ama su tierra le debe la vida entera. Ese deber está por encima de uno.",
}
COVERING = {
    "title": "De la inquina a las blanduras",
    "concept": "La multitud cambia de juicio según sople el viento: ayer odio, hoy halago.",
}


def test_key_words_reach_a_small_model_and_short_summaries_are_cut(
    make_harness: MakeHarness,
) -> None:
    extraction: list[str] = []
    rewrites: list[str] = []

    def extract(prompt: str) -> dict[str, Any]:
        extraction.append(prompt)
        # A concept for the first quote only: the second is left to quote coverage.
        return {"candidate_concepts": [PATRIA_CONCEPT] if PATRIA in prompt else []}

    def cover(prompt: str) -> dict[str, Any]:
        rewrites.append(prompt)
        return COVERING

    h = make_harness(
        {
            "extract_concepts": [extract],
            "repair_concept": [cover],
            "self_critique": [PASSING_CRITIQUE],
        },
        compact_answers=True,
        cover_quotes=True,
        extraction_batch_size=1,
        small_model_task="paraphrase",  # the compact answer with a statement of its own
    )
    view = h.runs.start(h.add_content("Napoleón en Chamartín", [PATRIA, INQUINA, DETAIL]))
    assert view.report is not None
    # One call per quote, each showing that quote's own key words; none for the English one,
    # whose words would pull a Spanish title into English.
    assert len(extraction) == 3
    patria, inquina, detail = (
        next(p for p in extraction if q in p) for q in (PATRIA, INQUINA, DETAIL)
    )

    def shown(prompt: str) -> str:  # the key words under the quote, after the worked example
        return prompt.split("Palabras clave:")[-1].splitlines()[0]

    assert "religión" in shown(patria) and "blanduras" not in shown(patria)
    assert "blanduras" in shown(inquina)
    assert DETAIL in detail and "frittered" not in detail.split(DETAIL)[-1]
    # The rewrite from an uncovered quote sees that quote's key words too.
    inquina_rewrite = next(p for p in rewrites if INQUINA in p)
    assert "inquina" in shown(inquina_rewrite)
    concepts = {c["title"]: c for c in view.report["concepts"]}
    assert concepts[PATRIA_CONCEPT["title"]]["summary_short"] == (
        "Quien ama su tierra le debe la vida entera."
    )
    assert concepts[COVERING["title"]]["summary_short"] == COVERING["concept"]
    assert all(c["analysis"] == "" for c in concepts.values())


def test_a_full_size_model_writes_its_own_short_summary(make_harness: MakeHarness) -> None:
    prompts: list[str] = []

    def extract(prompt: str) -> dict[str, Any]:
        prompts.append(prompt)
        full = {"analysis": "El deber cívico como fe.", "summary_short": "Morir por la patria."}
        return {"candidate_concepts": [{**PATRIA_CONCEPT, **full, "source_quote_ids": ["q1"]}]}

    h = make_harness(
        {"extract_concepts": [extract], "self_critique": [PASSING_CRITIQUE]},
        compact_answers=False,
    )
    view = h.runs.start(h.add_content("Napoleón en Chamartín", [PATRIA]))
    assert view.report is not None
    assert "Palabras clave" not in prompts[0]
    assert view.report["concepts"][0]["summary_short"] == "Morir por la patria."
    assert view.report["concepts"][0]["analysis"] == "El deber cívico como fe."


def test_a_small_model_is_asked_about_the_most_related_third_of_its_concepts(
    make_harness: MakeHarness,
) -> None:
    # Six quotes, six concepts that share most of their words (all related for the test's
    # word-overlap embedder): a relation call for each of the two closest, not for all six.
    quotes = [f"La lectura {w} forma el juicio del lector atento y paciente." for w in "abcdef"]
    counter = iter(range(6))

    def extract(prompt: str) -> dict[str, Any]:
        n = next(counter)
        body = "Leer con calma forma el juicio del lector atento y paciente"
        return {"candidate_concepts": [{"title": f"Lectura {n}", "concept": f"{body} {n}."}]}

    h = make_harness(
        {"extract_concepts": [extract], "self_critique": [PASSING_CRITIQUE]},
        compact_answers=True,
        extraction_batch_size=1,
        small_model_task="paraphrase",
    )
    view = h.runs.start(h.add_content("Lecturas", quotes))
    assert view.report is not None
    assert len(view.report["concepts"]) == 6
    assert h.calls("create_relations") == 2
