"""Titles read word by word: a phrase left in another language is caught, a proper name or a
single loanword in an otherwise Spanish title is not (the real lingua detector)."""

from __future__ import annotations

import pytest

from zettelgraph.guards.language import foreign_phrase, off_language_fields
from zettelgraph.text.language import LinguaDetector

DETECT = LinguaDetector()
BODY = {
    "concept": "Las comodidades que la sociedad llama necesarias estorban el progreso del alma.",
    "analysis": "Thoreau desconfía de los lujos porque atan a quien los posee.",
    "summary_short": "Los lujos estorban.",
}


@pytest.mark.parametrize(
    "title",
    [
        "Las luces y los so-called comodidades no son necesarios",
        "El hombre and the mar",
        "La vida es un work in progress",
    ],
)
def test_a_spanish_title_with_an_english_phrase_is_flagged(title: str) -> None:
    assert foreign_phrase(title, "es", DETECT)
    assert off_language_fields({**BODY, "title": title}, "es", DETECT) == ["title"]


@pytest.mark.parametrize(
    "title",
    [
        "Las comodidades no son necesarias",
        "El marketing de la atención",  # one loanword
        "El feedback que nadie pide",
        "Leer a Thoreau en el bosque",  # a proper name
        "Vivir sin prisa en Walden Pond",
        "Séneca y la brevedad de la vida",
        "La felicidad del hombre sencillo",
    ],
)
def test_proper_names_and_single_loanwords_pass(title: str) -> None:
    assert foreign_phrase(title, "es", DETECT) == []
    assert off_language_fields({**BODY, "title": title}, "es", DETECT) == []


def test_an_english_graph_catches_spanish_phrases_too() -> None:
    assert foreign_phrase("Men lead lives de la quiet desperation", "en", DETECT) == ["de", "la"]
    assert foreign_phrase("Men lead lives of quiet desperation", "en", DETECT) == []
