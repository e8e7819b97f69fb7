"""Small-model tasks (`ZETTELGRAPH_SMALL_MODEL_TASK`, compact answers only): each design makes
the calls it says, fills the fields it says, and the proposal checks do not undo it. Fake LLM
with scripted answers, real stores and checkpoints; nothing here asserts a real model's words."""

from __future__ import annotations

from typing import Any

from harness import PASSING_CRITIQUE, Harness, MakeHarness

from zettelgraph.workflows.concept_extraction.doubt_questions import statement_check

FORTUNA = "No ha de fiarse el hombre prudente de la fortuna, que es mudable como la luna llena."
ARPA = (
    "Del salón en el ángulo oscuro, de su dueña tal vez olvidada, silenciosa y cubierta de "
    "polvo veíase el arpa."
)
DETAIL = "Our life is frittered away by detail, and simplicity is what we have lost."

# Keeps most of the quote's words (a copy by the paraphrase rule), but not the whole quote.
FORTUNA_EXTRACTIVE = "El hombre prudente no debe fiarse de la fortuna, mudable como la luna."


def harness(make_harness: MakeHarness, task: str, replies: dict[str, list[Any]]) -> Harness:
    return make_harness(
        {**replies, "self_critique": [PASSING_CRITIQUE]},
        compact_answers=True,
        cover_quotes=False,
        extraction_batch_size=1,
        small_model_task=task,
    )


def concepts_of(h: Harness, quotes: list[str]) -> dict[str, dict[str, Any]]:
    view = h.runs.start(h.add_content("Oráculo", quotes))
    assert view.report is not None
    return {c["quotes"][0]["text"]: c for c in view.report["concepts"]}


def test_an_extractive_statement_keeps_its_quotes_words_and_only_a_whole_paste_is_rewritten(
    make_harness: MakeHarness,
) -> None:
    prompts: list[str] = []
    rewrites: list[str] = []

    def extract(prompt: str) -> dict[str, Any]:
        prompts.append(prompt)
        if FORTUNA in prompt:
            concept = {"title": "Fortuna mudable", "concept": FORTUNA_EXTRACTIVE}
        else:  # the quote pasted whole: no statement at all
            concept = {"title": "El arpa olvidada", "concept": ARPA}
        return {"candidate_concepts": [concept]}

    def rewrite(prompt: str) -> dict[str, Any]:
        rewrites.append(prompt)
        return {"title": "El arpa olvidada", "concept": "En un rincón del salón, el arpa callaba."}

    h = harness(
        make_harness, "extractive", {"extract_concepts": [extract], "repair_concept": [rewrite]}
    )
    concepts = concepts_of(h, [FORTUNA, ARPA])
    assert all("lo que afirma la cita" in p and "tradúcela fielmente" in p for p in prompts)
    # Most of its words are the quote's, which is the design: kept as written.
    assert concepts[FORTUNA]["concept"] == FORTUNA_EXTRACTIVE
    # The whole quote pasted is a copy: one rewrite, asked to stay extractive.
    assert h.calls("repair_concept") == 1
    assert "pega la cita entera" in rewrites[0] and "lo que afirma la cita" in rewrites[0]
    assert "con tus propias palabras" not in rewrites[0]
    assert concepts[ARPA]["concept"] == "En un rincón del salón, el arpa callaba."


def test_a_meaning_statement_is_asked_to_explain_old_words_and_may_keep_the_quotes(
    make_harness: MakeHarness,
) -> None:
    prompts: list[str] = []

    def extract(prompt: str) -> dict[str, Any]:
        prompts.append(prompt)
        return {"candidate_concepts": [{"title": "Fortuna mudable", "concept": FORTUNA_EXTRACTIVE}]}

    h = harness(make_harness, "meaning", {"extract_concepts": [extract]})
    concepts = concepts_of(h, [FORTUNA])
    assert "lo que quiere decir la cita" in prompts[0] and "explica sus palabras" in prompts[0]
    assert h.calls("repair_concept") == 0
    assert concepts[FORTUNA]["concept"] == FORTUNA_EXTRACTIVE


def test_a_gloss_comes_first_and_the_idea_is_written_from_it(make_harness: MakeHarness) -> None:
    gloss = "En un rincón oscuro del salón estaba el arpa, olvidada por su dueña y llena de polvo."
    prompts: list[str] = []

    def extract(prompt: str) -> dict[str, Any]:
        prompts.append(prompt)
        return {
            "candidate_concepts": [
                {"title": "El arpa olvidada", "concept": "Lo que nadie usa cae en el olvido."}
            ]
        }

    h = harness(
        make_harness, "gloss", {"gloss_quote": [{"gloss": gloss}], "extract_concepts": [extract]}
    )
    concepts = concepts_of(h, [ARPA])
    # Two calls for the quote: the gloss, then the idea with the gloss shown under the quote.
    assert h.calls("gloss_quote") == 1 and h.calls("extract_concepts") == 1
    assert f"Sentido: {gloss}" in prompts[0].split("Quotes:")[-1]
    assert "parte de él y no lo contradigas" in prompts[0]
    assert concepts[ARPA]["concept"] == "Lo que nadie usa cae en el olvido."
    assert concepts[ARPA]["rationale"] == f"Sentido de la cita: {gloss}"


def test_a_gloss_in_another_language_is_retried_once_then_the_statement_is_extractive(
    make_harness: MakeHarness,
) -> None:
    english = {"gloss": "In a dark corner of the room stood the harp, forgotten and dusty."}
    prompts: list[str] = []

    def extract(prompt: str) -> dict[str, Any]:
        prompts.append(prompt)
        return {
            "candidate_concepts": [
                {"title": "El arpa olvidada", "concept": "El arpa estaba olvidada en un rincón."}
            ]
        }

    h = harness(
        make_harness, "gloss", {"gloss_quote": [english, english], "extract_concepts": [extract]}
    )
    concepts = concepts_of(h, [ARPA])
    assert h.calls("gloss_quote") == 2 and h.calls("extract_concepts") == 1
    assert "lo que afirma la cita" in prompts[0] and "Sentido:" not in prompts[0]
    assert concepts[ARPA]["rationale"] == ""


def test_titles_leave_the_quote_or_its_translation_as_a_marked_draft(
    make_harness: MakeHarness,
) -> None:
    prompts: list[str] = []
    translation = "Nuestra vida se desperdicia en detalles, y hemos perdido la sencillez."

    def extract(prompt: str) -> dict[str, Any]:
        prompts.append(prompt)
        title = "Vida perdida en detalles" if DETAIL in prompt else "El arpa olvidada"
        return {"candidate_concepts": [{"title": title}]}

    h = harness(
        make_harness,
        "titles",
        {"extract_concepts": [extract], "translate_quote": [{"translation": translation}]},
    )
    concepts = concepts_of(h, [ARPA, DETAIL])
    # A title call per quote; a translation only for the quote in another language.
    assert h.calls("extract_concepts") == 2 and h.calls("translate_quote") == 1
    assert all("Escribe solo title" in p and "no da concepto" not in p for p in prompts)
    assert f"Traducción: {translation}" in next(p for p in prompts if DETAIL in p)
    # The statement is the quote, or its translation, marked as a draft; not sent back as a copy.
    assert h.calls("repair_concept") == 0
    assert concepts[ARPA]["concept"] == ARPA
    assert concepts[ARPA]["analysis"].startswith("Borrador: el enunciado es la cita tal cual")
    assert concepts[DETAIL]["concept"] == translation
    assert "traducción de la cita" in concepts[DETAIL]["analysis"]
    # The review shows a quote once: a draft that is its quote says so.
    assert concepts[ARPA]["is_quote"] and not concepts[DETAIL]["is_quote"]


def test_a_titles_rewrite_names_the_draft_again_and_keeps_it(make_harness: MakeHarness) -> None:
    long_title = "El arpa que estaba en el ángulo oscuro del salón cubierta de polvo y olvidada"
    rewrites: list[str] = []

    def rewrite(prompt: str) -> dict[str, Any]:
        rewrites.append(prompt)
        return {"title": "El arpa olvidada"}

    h = harness(
        make_harness,
        "titles",
        {
            "extract_concepts": [{"candidate_concepts": [{"title": long_title}]}],
            "repair_concept": [rewrite],
        },
    )
    concepts = concepts_of(h, [ARPA])
    assert h.calls("repair_concept") == 1 and "Escribe de nuevo title," in rewrites[0]
    assert concepts[ARPA]["title"] == "El arpa olvidada"
    assert concepts[ARPA]["concept"] == ARPA
    assert concepts[ARPA]["analysis"].startswith("Borrador")


def test_a_titles_draft_is_checked_by_its_title_not_by_its_quote(
    make_harness: MakeHarness,
) -> None:
    # The statement of a draft is its quote, which would always be chosen as saying what the
    # quote says: the doubt check asks which of two titles names the quote's idea instead.
    h = harness(make_harness, "titles", {})
    own = {"key": "c1", "title": "El arpa olvidada", "concept": ARPA, "quote_ids": ["q1"]}
    rival = {"key": "c2", "title": "Fortuna mudable", "concept": FORTUNA, "quote_ids": ["q2"]}
    asked = statement_check(own, rival, {"q1": ARPA}, h.services)  # type: ignore[arg-type]
    assert asked is not None
    first, second = (str(messages[-1].content) for messages in asked)
    assert "títulos" in first and "A) El arpa olvidada\nB) Fortuna mudable" in first
    assert "A) Fortuna mudable\nB) El arpa olvidada" in second
    assert FORTUNA not in first  # the rival's quote is not an option
