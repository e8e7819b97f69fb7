"""Named entities (the capitalised-sequence fallback, typed from the graph) and temporal
expressions, on passages whose names and dates are known."""

from __future__ import annotations

from experiment_corpus import Corpus

from zettelgraph.experiments.tools_entities import METHOD, NamedEntity, named_entities
from zettelgraph.experiments.tools_time import TemporalExpression, temporal_expressions


def _entities(corpus: Corpus, passages: list[str]) -> dict[str, NamedEntity]:
    corpus.book("Relatos", passages)
    result = named_entities(corpus.context("honra"), corpus.documents())
    assert result.method == METHOD
    assert result.count == len(result.entities)
    return {e.name: e for e in result.entities}


def test_names_are_typed_from_the_graph_then_by_cues(corpus: Corpus) -> None:
    corpus.person("Miguel de Cervantes")
    corpus.entity("Sevilla", "Place")
    corpus.entity("Rocinante", "Animal")
    found = _entities(
        corpus,
        [
            "Miguel de Cervantes escribió el libro en Madrid.",
            "Después llegó don Alonso Quijano a Sevilla con Rocinante.",
            "Entonces Sancho Panza habló con el Sr. Pérez de sus cosas.",
            "La honra de Sancho Panza era grande.",
            "Sancho calló. En Madrid llovía.",
        ],
    )
    assert set(found) == {
        "Miguel de Cervantes",
        "Madrid",
        "Alonso Quijano",
        "Sevilla",
        "Rocinante",
        "Sancho Panza",
        "Sancho",
        "Pérez",
    }
    assert (found["Miguel de Cervantes"].label, found["Miguel de Cervantes"].typed_by) == (
        "PER",
        "graph",
    )
    assert (found["Sevilla"].label, found["Sevilla"].typed_by) == ("LOC", "graph")
    assert found["Rocinante"].label == "ANIMAL"
    assert (found["Alonso Quijano"].label, found["Alonso Quijano"].typed_by) == ("PER", "cue")
    assert found["Pérez"].label == "PER"  # "Sr." is a title, not the end of a sentence
    assert (found["Madrid"].label, found["Madrid"].count) == ("LOC", 2)
    assert found["Sancho Panza"].label == "MISC"
    assert (found["Sancho Panza"].count, found["Sancho Panza"].near_term) == (2, 1)
    assert len(found["Sancho Panza"].passage_ids) == 2


def test_sentence_initial_capitals_are_names_only_when_seen_mid_sentence(corpus: Corpus) -> None:
    found = _entities(
        corpus,
        [
            "Después vino la lluvia. Mañana será otro día.",
            "Galdós escribió mucho. Leímos a Galdós ayer.",
            "Clarín escribió poco.",
            "El siglo XIX vio a Pardo Bazán y a I. Valera en October.",
        ],
    )
    assert "Después" not in found and "Mañana" not in found and "El" not in found
    assert found["Galdós"].count == 2
    assert "Clarín" not in found  # never capitalised mid-sentence: could be any first word
    assert "Pardo Bazán" in found
    assert "XIX" not in found and "I" not in found and "October" not in found


def test_a_pair_joined_by_y_is_one_name_only_when_the_graph_knows_it(corpus: Corpus) -> None:
    corpus.person("Ortega y Gasset")
    found = _entities(
        corpus, ["Leímos a Ortega y Gasset, y luego a Cervantes y Galdós.", "Ortega y Gasset."]
    )
    assert found["Ortega y Gasset"].count == 2
    assert found["Ortega y Gasset"].label == "PER"
    assert "Cervantes" in found and "Galdós" in found
    assert "Cervantes y Galdós" not in found


def test_no_names_is_an_honest_empty_result(corpus: Corpus) -> None:
    corpus.book("Vacío", ["todo en minúsculas, sin nombres."])
    result = named_entities(corpus.context("honra"), corpus.documents())
    assert result.entities == [] and result.count == 0
    assert "no names" in result.summary


def _expressions(
    corpus: Corpus, passages: list[str]
) -> dict[tuple[str, str | None], TemporalExpression]:
    corpus.book("Crónica", passages)
    result = temporal_expressions(corpus.context("honra"), corpus.documents())
    assert result.count == sum(e.count for e in result.expressions)
    return {(e.kind, e.value): e for e in result.expressions}


def test_years_with_cues_and_never_page_numbers_or_quantities(corpus: Corpus) -> None:
    found = _expressions(
        corpus,
        [
            "En 1605 se publicó con gran honra la primera parte; la segunda, en 1615.",
            "Véase la p. 1234, la página 1299 y las páginas 1200-1210 del tomo 1.",
            "Murieron 2000 soldados de 3000 hombres; pesaba 1.605 kilos.",
            "En el año 711 llegaron. El Quijote (1605) es un libro.",
            "Nació el 500 a. C. y la obra tiene 1605 versos.",
        ],
    )
    assert set(found) == {("year", "1605"), ("year", "1615"), ("year", "711"), ("year", "-500")}
    assert found[("year", "1605")].count == 2
    assert found[("year", "1605")].near_term == 1
    assert found[("year", "1605")].text == "1605"


def test_centuries_dates_months_and_relative_expressions(corpus: Corpus) -> None:
    found = _expressions(
        corpus,
        [
            "En el siglo XVI y en el s. XVII, también in the 16th century, and the nineteenth "
            "century.",
            "El 12 de octubre de 1492 llegaron; on October 12, 1492 they arrived; 1492-10-12.",
            "En marzo de 1939 terminó. In May we left. You may go. Llegó en agosto.",
            "Ayer y hoy, pero mañana no; por la mañana; yesterday; three years ago; hace dos "
            "siglos; el año pasado.",
        ],
    )
    assert found[("century", "1501-1600")].count == 2
    assert found[("century", "1601-1700")].text == "s. XVII"
    assert ("century", "1801-1900") in found
    assert found[("date", "1492-10-12")].count == 3
    assert ("year", "1492") not in found  # inside the dates
    assert found[("month", "1939-03")].text == "marzo de 1939"
    assert found[("month", "--05")].count == 1  # "May", not "may"
    assert ("month", "--08") in found
    assert found[("relative", "yesterday")].count == 2
    assert found[("relative", "today")].count == 1
    assert found[("relative", "tomorrow")].count == 1  # "por la mañana" is not tomorrow
    assert ("relative", "3 years ago") in found
    assert ("relative", "2 centuries ago") in found
    assert ("relative", "last year") in found


def test_a_date_without_a_year_and_the_summary(corpus: Corpus) -> None:
    corpus.book("Diario", ["El 2 de mayo llovió.", "Sin fechas aquí."])
    result = temporal_expressions(corpus.context("honra"), corpus.documents())
    assert [(e.kind, e.value) for e in result.expressions] == [("date", "--05-02")]
    assert "1 date mentions" in result.summary
    assert result.citations[0].location == "p. 1"
