"""The shared text rules: folding like `normalize_name`, offsets back into the original, and
the term-matching rule (plurals in -s/-es, several words in a row)."""

from __future__ import annotations

import unicodedata

import pytest

from zettelgraph.analysis.text import (
    TermMatcher,
    clip,
    evenly,
    fold,
    fold_text,
    passages_with_term,
    per_10k,
)
from zettelgraph.models import Quote
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
    ((start, end),) = matcher.spans(folded.folded)
    assert folded.surface(start, end) == unicodedata.normalize("NFD", "canción")
    ((start, end),) = TermMatcher("strasse").spans(folded.folded)
    assert folded.surface(start, end) == "Straße"
    ((start, end),) = TermMatcher("honra").spans(folded.folded)
    assert folded.surface(start, end) == "honra"


def test_a_term_matches_itself_and_its_plurals_in_s_and_es_accents_and_case_ignored() -> None:
    matcher = TermMatcher("Nación")
    text = fold("La nacion, las NACIONES y la nación; nacionalismo no; naciónes sí.")
    assert matcher.count(text) == 4
    assert TermMatcher("honra").count(fold("honras honra honrado deshonra honraes")) == 3
    assert TermMatcher("law").count(fold("Laws, law, lawyer")) == 2


def test_a_multi_word_term_matches_its_words_in_a_row() -> None:
    matcher = TermMatcher("rey católico")
    text = fold("Los Reyes Católicos; el rey, católico; el rey muy católico; rey católicos")
    assert matcher.count(text) == 3
    tokens = fold("los reyes catolicos y el rey catolico").split()
    assert matcher.token_matches(tokens) == [1, 5]


def test_token_matches_agree_with_spans() -> None:
    text = fold("honra honra, la honra; honras y honrado")
    matcher = TermMatcher("honra")
    assert len(matcher.token_matches(text.replace(",", "").replace(";", "").split())) == len(
        matcher.spans(text)
    )


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


def test_small_helpers() -> None:
    assert evenly(list(range(10)), 3) == [0, 4, 9]
    assert evenly([1, 2], 5) == [1, 2]
    assert per_10k(3, 1500) == 20.0
    assert per_10k(1, 0) == 0.0
    assert clip("a  b\nc", 10) == "a b c"
    assert clip("x" * 20, 10) == "x" * 9 + "…"
