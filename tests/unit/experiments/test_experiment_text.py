"""The shared text rules: folding like `normalize_name`, offsets back into the original, and
the term-matching rule (search's stems, several words in a row; or the exact word)."""

from __future__ import annotations

import unicodedata

import pytest
from experiment_corpus import Corpus

from zettelgraph.experiments.text import (
    TermMatcher,
    clip,
    evenly,
    fold,
    fold_text,
    passages_with_term,
    per_10k,
)
from zettelgraph.models import NodeLabel, Quote
from zettelgraph.text.normalize import normalize_name


@pytest.mark.parametrize(
    "text",
    ["Nación", "ÁRBOL Ñandú", "Straße", "ﬁn del año", "Él dijo: «¡Qué honra!»", "plain ascii"],
)
def test_fold_agrees_with_normalize_name(text: str) -> None:
    assert " ".join(fold(text).split()) == normalize_name(text)


def test_offsets_lead_back_to_the_original_when_folding_changes_lengths() -> None:
    # Decomposed accents (NFD, as some PDFs give them) and "ß" change lengths when folded.
    text = unicodedata.normalize("NFD", "La canción de la Straße y la honra")
    folded = fold_text(text)
    assert folded.offsets is not None
    matcher = TermMatcher("cancion")
    ((start, end),) = matcher.spans(folded)
    assert folded.surface(start, end) == unicodedata.normalize("NFD", "canción")
    ((start, end),) = TermMatcher("strasse").spans(folded)
    assert folded.surface(start, end) == "Straße"
    ((start, end),) = TermMatcher("honra").spans(folded)
    assert folded.surface(start, end) == "honra"


def test_a_term_matches_its_inflections_as_search_stems_them_accents_and_case_ignored() -> None:
    matcher = TermMatcher("Nación")
    text = fold_text("La nacion, las NACIONES y la nación; nacionalismo no; naciónes sí.")
    assert matcher.count(text) == 4
    honra = fold_text("honras honra honrado deshonra honraes")
    assert TermMatcher("honra").count(honra) == 4
    # An English passage is stemmed in English, as search indexes it.
    laws = fold_text("The laws of the land and the law of the lawyer")
    assert TermMatcher("law").count(laws) == 2


def test_the_exact_concordance_finds_only_the_very_word() -> None:
    text = fold_text("Gobernar, gobernó, gobernaba; honras, honra y HONRA.")
    assert TermMatcher("gobernar", "exact").count(text) == 1
    assert TermMatcher("gobernar").count(text) == 3
    assert TermMatcher("honra", "exact").count(text) == 2
    assert TermMatcher("honra").count(text) == 3


def test_a_multi_word_term_matches_its_words_in_a_row() -> None:
    matcher = TermMatcher("rey católico")
    text = fold_text("Los Reyes Católicos; el rey, católico; el rey muy católico; rey católicos")
    assert matcher.count(text) == 3
    keys = matcher.keys_of(fold_text("los reyes catolicos y el rey catolico"))
    assert matcher.token_matches(keys) == [1, 5]


def test_token_matches_agree_with_spans() -> None:
    text = fold_text("honra honra, la honra; honras y deshonra")
    matcher = TermMatcher("honra")
    assert len(matcher.token_matches(matcher.keys_of(text))) == len(matcher.spans(text)) == 4


def test_a_term_without_words_is_refused() -> None:
    with pytest.raises(ValueError, match="no word"):
        TermMatcher("¡!")


def test_passages_with_term() -> None:
    passages = [
        Quote(id=f"q{i}", content_id="c", text=text, position=i)
        for i, text in enumerate(["La honra.", "Nada.", "Las HONRAS."])
    ]
    assert [p.id for p in passages_with_term(passages, "honra")] == ["q0", "q2"]
    assert passages_with_term(passages, "…") == []


# Spanish inflections Snowball brings to one stem (gobern, nacion, honr, catol), and words it
# keeps apart ("gobiernos" is "gobi", "gobierno" "gobiern"; "nacionalismo" "nacional").
_PASSAGES = [
    "El rey gobernó con prudencia.",
    "Gobernaba mal y lo sabía.",
    "Los gobernantes callan.",
    "Quería gobernar sin consejo.",
    "El gobierno del reino.",
    "Los gobiernos pasan.",
    "La nación entera.",
    "Las naciones vecinas.",
    "El nacionalismo de entonces.",
    "Su honra y sus honras.",
    "Un hombre honrado.",
    "Los Reyes Católicos.",
    "Nada de esto.",
]


@pytest.mark.parametrize(
    ("term", "query", "forms"),
    [
        ("gobernar", "gobernar", 4),  # gobernó, gobernaba, gobernantes, gobernar
        ("gobierno", "gobierno", 1),
        ("gobiernos", "gobiernos", 1),
        ("nación", "nación", 2),  # nación, naciones
        ("honra", "honra", 2),  # honra y honras, honrado
        # Several words are found in a row, as a quoted phrase is searched.
        ("reyes católicos", '"reyes católicos"', 1),
    ],
)
def test_the_experiment_finds_the_term_where_search_finds_it(
    corpus: Corpus, term: str, query: str, forms: int
) -> None:
    passages = corpus.book("Crónica del reino", _PASSAGES)
    searched = {hit.id for hit in corpus.store.text_search(query, 50, label=NodeLabel.QUOTE)}
    found = {p.id for p in passages_with_term(passages, term)}
    assert found == searched
    assert len(found) == forms
    # The exact concordance keeps to the very word.
    exact = passages_with_term(passages, term, "exact")
    assert len(exact) == 1


def test_small_helpers() -> None:
    assert evenly(list(range(10)), 3) == [0, 4, 9]
    assert evenly([1, 2], 5) == [1, 2]
    assert per_10k(3, 1500) == 20.0
    assert per_10k(1, 0) == 0.0
    assert clip("a  b\nc", 10) == "a b c"
    assert clip("x" * 20, 10) == "x" * 9 + "…"
