"""The checks on an experiment's synthesis (`guards/synthesis.py`)."""

from __future__ import annotations

from zettelgraph.guards.synthesis import (
    borrowed,
    new_sentences,
    off_language,
    sentences,
    shared,
)
from zettelgraph.text.language import detector_for


def test_sentences_split_at_their_ends() -> None:
    assert sentences("Uno.  Dos?  ¡Tres!\nCuatro") == ["Uno.", "Dos?", "¡Tres!", "Cuatro"]
    assert sentences("   ") == []


def test_a_sentence_said_before_is_not_new_whatever_its_case_accents_or_wording() -> None:
    said = ["La honra vale más que la hacienda del hidalgo."]
    assert new_sentences("la HONRA vale mas que la hacienda!  Y se pierde pronto.", said) == [
        "Y se pierde pronto."
    ]
    # Repeated inside one text too, and a shorter sentence made of an earlier one's words.
    assert new_sentences("Se pierde pronto. Se pierde.", []) == ["Se pierde pronto."]
    assert (
        new_sentences(
            "Both approach life in different ways.",
            ["Both writers stress facts of life, but approach life in different ways."],
        )
        == []
    )


def test_only_a_plainly_foreign_statement_is_off_language() -> None:
    detect = detector_for("es")
    assert off_language("Honour matters more than money to both of these writers.", "es", detect)
    assert not off_language("La honra pesa más que la hacienda en Cervantes.", "es", detect)
    # Names read as Latin to the detector; the sentence is still English enough.
    english = "Marcus Aurelius' 'Meditations' is a philosophical guide on living a fulfilling life."
    assert not off_language(english, "en", detector_for("en"))
    assert not off_language("Vida deliberada.", "en", detect)  # too short to judge


def test_sentences_said_of_two_groups_are_named_for_both() -> None:
    rows = {
        "Walden": ["Thoreau lives deliberately.", "He also describes the present and the future."],
        "Meditations": ["Life is what thoughts make.", "He also describes the present and future."],
    }
    assert shared(rows) == {"Walden": {1}, "Meditations": {1}}
    assert shared({"a": ["x y z"], "b": ["u v w"]}) == {"a": set(), "b": set()}


def test_a_sentence_made_of_another_groups_passages_is_borrowed() -> None:
    walden = "I went to the woods because I wished to live deliberately. Our life is frittered."
    meditations = "The universe is change; our life is what our thoughts make it."
    sentence = "He also says life is change and what our thoughts make."
    assert borrowed(sentence, walden, meditations, {"life"})
    assert not borrowed(
        "Thoreau went to the woods to live deliberately.", walden, meditations, {"life"}
    )
    # One shared word is not enough to tell.
    assert not borrowed("Thoreau speaks of change.", walden, meditations, {"life"})
