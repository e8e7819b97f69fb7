"""The relation vocabulary's reverse rules, name normalisation and deterministic ids."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime

import pytest

from zettelgraph.models import Relation, content_id, person_id, quote_id, stable_id
from zettelgraph.packs.relations import DEFAULT_VOCABULARY, RelationVocabulary
from zettelgraph.text.normalize import normalize_name, normalize_text

REVERSES = {
    "GENERALIZES": "SPECIFIC_OF",
    "SPECIFIC_OF": "GENERALIZES",
    "PART_OF": "HAS_PART",
    "HAS_PART": "PART_OF",
    "SUPPORTS": "SUPPORTED_BY",
    "SUPPORTED_BY": "SUPPORTS",
    "OPPOSES": "OPPOSES",
    "SIMILAR_TO": "SIMILAR_TO",
    "RELATES_TO": "RELATES_TO",
    "PREREQUISITE_FOR": "REQUIRES",
    "REQUIRES": "PREREQUISITE_FOR",
}
WHEN = datetime(2024, 5, 1, tzinfo=UTC)


def rel(source: str, kind: str, target: str, **properties: object) -> Relation:
    return Relation(
        source_id=source, target_id=target, type=kind, properties=properties, created_at=WHEN
    )


def test_default_vocabulary_has_the_eleven_types() -> None:
    assert DEFAULT_VOCABULARY.types == frozenset(REVERSES)
    assert set(DEFAULT_VOCABULARY.descriptions) == set(REVERSES)


@pytest.mark.parametrize(("kind", "reverse"), sorted(REVERSES.items()))
def test_reverse_of_every_type(kind: str, reverse: str) -> None:
    assert DEFAULT_VOCABULARY.reverse_of(kind) == reverse
    assert DEFAULT_VOCABULARY.reverse_of(reverse) == kind
    assert DEFAULT_VOCABULARY.is_symmetric(kind) == (kind == reverse)


@pytest.mark.parametrize(("kind", "reverse"), sorted(REVERSES.items()))
def test_with_reverses_adds_the_reverse_edge(kind: str, reverse: str) -> None:
    out = DEFAULT_VOCABULARY.with_reverses([rel("a", kind, "b", run="r1")])
    assert [r.key for r in out] == [("a", kind, "b"), ("b", reverse, "a")]
    forward, backward = out
    assert forward.properties == {"run": "r1"}
    assert backward.properties == {"run": "r1", "inferred_reverse_of": kind}
    assert backward.created_at == WHEN


def test_with_reverses_dedups_repeated_relations() -> None:
    relations = [rel("a", "GENERALIZES", "b"), rel("a", "GENERALIZES", "b")]
    keys = [r.key for r in DEFAULT_VOCABULARY.with_reverses(relations)]
    assert keys == [("a", "GENERALIZES", "b"), ("b", "SPECIFIC_OF", "a")]


def test_with_reverses_dedups_symmetric_pairs() -> None:
    relations = [rel("a", "SIMILAR_TO", "b"), rel("b", "SIMILAR_TO", "a")]
    out = DEFAULT_VOCABULARY.with_reverses(relations)
    assert sorted(r.key for r in out) == [("a", "SIMILAR_TO", "b"), ("b", "SIMILAR_TO", "a")]


def test_a_given_relation_keeps_its_own_properties_over_an_inferred_one() -> None:
    relations = [
        rel("a", "GENERALIZES", "b", reason="first"),
        rel("b", "SPECIFIC_OF", "a", reason="second"),
    ]
    out = {r.key: r for r in DEFAULT_VOCABULARY.with_reverses(relations)}
    assert len(out) == 2
    assert out[("b", "SPECIFIC_OF", "a")].properties == {"reason": "second"}
    assert out[("a", "GENERALIZES", "b")].properties == {"reason": "first"}


def test_with_reverses_keeps_distinct_relations_between_the_same_nodes() -> None:
    relations = [rel("a", "SUPPORTS", "b"), rel("a", "RELATES_TO", "b")]
    keys = {r.key for r in DEFAULT_VOCABULARY.with_reverses(relations)}
    assert keys == {
        ("a", "SUPPORTS", "b"),
        ("b", "SUPPORTED_BY", "a"),
        ("a", "RELATES_TO", "b"),
        ("b", "RELATES_TO", "a"),
    }


def test_unknown_type_raises_naming_the_known_ones() -> None:
    with pytest.raises(ValueError, match="CONTRADICTS") as info:
        DEFAULT_VOCABULARY.reverse_of("CONTRADICTS")
    for kind in REVERSES:
        assert kind in str(info.value)
    with pytest.raises(ValueError, match="unknown relation type"):
        DEFAULT_VOCABULARY.with_reverses([rel("a", "AUTHORED_BY", "b")])


def test_a_custom_vocabulary_uses_its_own_rules() -> None:
    vocabulary = RelationVocabulary(reverses={"CAUSES": "CAUSED_BY", "CAUSED_BY": "CAUSES"})
    out = vocabulary.with_reverses([rel("x", "CAUSES", "y")])
    assert [r.key for r in out] == [("x", "CAUSES", "y"), ("y", "CAUSED_BY", "x")]
    with pytest.raises(ValueError, match="known: CAUSED_BY, CAUSES"):
        vocabulary.reverse_of("GENERALIZES")


def ascii_strip(text: str) -> str:
    """The approach STYLE.md warns about: drop every non-ASCII letter."""
    return " ".join(re.sub(r"[^a-z0-9 ]", "", text.lower()).split())


def test_normalize_name_ignores_case_accents_and_spacing() -> None:
    assert normalize_name("José  ORTEGA") == normalize_name("jose ortega") == "jose ortega"
    assert normalize_name("  Gabriel\tGARCÍA\nMárquez ") == "gabriel garcia marquez"


@pytest.mark.parametrize(
    ("name", "expected"),
    [("Muñoz", "munoz"), ("Ibáñez", "ibanez"), ("Peña Nieto", "pena nieto"), ("Núñez", "nunez")],
)
def test_normalize_name_keeps_the_base_letter_of_n_tilde(name: str, expected: str) -> None:
    assert normalize_name(name) == expected
    # An ASCII filter loses the letter entirely, merging names that differ.
    assert ascii_strip(name) != expected


def test_normalize_name_tells_apart_names_an_ascii_filter_merges() -> None:
    assert ascii_strip("Peña") == ascii_strip("Pea")
    assert normalize_name("Peña") != normalize_name("Pea")


def test_normalize_text_keeps_case_and_accents() -> None:
    assert normalize_text("  El  Niño\n juega ") == "El Niño juega"
    # Composed and decomposed forms of "ñ" are the same text.
    assert normalize_text("Nin\u0303o") == normalize_text("Niño")


def test_ids_are_deterministic_uuid5() -> None:
    first = content_id("Meditaciones del Quijote", "José Ortega y Gasset")
    assert first == content_id("Meditaciones del Quijote", "José Ortega y Gasset")
    assert uuid.UUID(first).version == 5


def test_ids_use_normalised_names() -> None:
    assert content_id("El Quijote", "Cervantes") == content_id("el  QUIJOTE", "cervántes")
    assert person_id("José  ORTEGA") == person_id("jose ortega")
    assert content_id("El Quijote", None) == content_id("El Quijote", "")
    assert content_id("El Quijote", "Cervantes") != content_id("El Quijote", None)


def test_quote_ids_keep_case_but_not_spacing() -> None:
    content = content_id("Libro", "Autora")
    assert quote_id(content, "La vida  es sueño.") == quote_id(content, "La vida es sueño.")
    assert quote_id(content, "La vida es sueño.") != quote_id(content, "la vida es sueño.")
    assert quote_id(content, "Texto") != quote_id(content_id("Otro", None), "Texto")


def test_ids_are_distinct_across_kinds() -> None:
    ids = {
        stable_id("content", "ortega"),
        stable_id("person", "ortega"),
        stable_id("quote", "ortega"),
        stable_id("concept", "ortega"),
        content_id("ortega", None),
        person_id("ortega"),
        quote_id("ortega", ""),
    }
    assert len(ids) == 6  # stable_id("person", x) is person_id(x)
    assert person_id("ortega") == stable_id("person", "ortega")


def test_stable_id_parts_do_not_run_together() -> None:
    assert stable_id("content", "ab", "c") != stable_id("content", "a", "bc")
