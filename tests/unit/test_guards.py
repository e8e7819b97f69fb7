"""The proposal checks as pure functions: language, grounding, distillation, relations, and the
quality measures built on them."""

from __future__ import annotations

from typing import Any

import numpy as np

from zettelgraph.guards import Finding, count_findings
from zettelgraph.guards.distillation import (
    copied_quote,
    copied_whole_quote,
    in_order_share,
    long_title,
)
from zettelgraph.guards.grounding import below, names_the_source, quote_floors, ungrounded
from zettelgraph.guards.language import off_language_fields
from zettelgraph.guards.measures import measures, meets_goals, run_counts
from zettelgraph.guards.relations import End, RelationLimits, check_relations
from zettelgraph.llm.embeddings import HashEmbedder
from zettelgraph.packs.relations import DEFAULT_VOCABULARY
from zettelgraph.text.language import LinguaDetector
from zettelgraph.text.normalize import copied_share

DETECT = LinguaDetector()

SPANISH = {
    "title": "Las obras definen a la persona",
    "concept": "Lo que alguien es no lo decide su origen sino lo que hace con su vida.",
    "analysis": "Cervantes pone el mérito por encima del linaje de los hidalgos.",
    "summary": "Somos lo que hacemos y no de dónde venimos.",
    "summary_short": "Somos lo que hacemos, no de dónde venimos.",
}


def test_spanish_concept_has_no_field_in_another_language() -> None:
    assert off_language_fields(SPANISH, "es", DETECT) == []


def test_english_fields_are_found_and_the_title_goes_with_the_body() -> None:
    english = {
        **SPANISH,
        "title": "Deeds make the man",
        "concept": "What a person is depends on what they do, not on where they come from.",
        "analysis": "The quote puts merit above lineage in a society of noblemen.",
    }
    assert off_language_fields(english, "es", DETECT) == ["title", "concept", "analysis"]


def test_short_text_is_not_judged() -> None:
    # "Dormir" alone reads as Portuguese as much as Spanish: no verdict, no flag.
    assert DETECT("Dormir") is None
    assert off_language_fields({"concept": "Dormir bien"}, "es", DETECT) == []


def test_short_fields_that_read_together_as_another_language_are_found() -> None:
    """Each field is too short to judge and a long Spanish summary makes the whole body
    Spanish, but what the reader reads (concept, analysis, short summary) is English."""
    mixed = {
        "title": "La vida y el pensamiento",
        "concept": "Life is what our thoughts make it",
        "analysis": "Marcus sees change everywhere in nature",
        "summary": "Según Marco Aurelio, la calidad de nuestra vida depende de la calidad de "
        "nuestros pensamientos, porque el universo entero es cambio y nuestra vida es lo que "
        "nuestros pensamientos hacen de ella.",
        "summary_short": "Our thoughts shape our life",
    }
    # The Spanish title stays: it reads as Spanish on its own.
    assert off_language_fields(mixed, "es", DETECT) == ["concept", "analysis", "summary_short"]


def test_quote_far_from_its_concept_is_ungrounded() -> None:
    concept = np.array([1.0, 0.0, 0.0])
    quotes = {"near": np.array([0.9, 0.1, 0.0]), "far": np.array([0.0, 1.0, 0.2])}
    floors = {"near": 0.31, "far": 0.31}
    far = ungrounded(concept, quotes, ["near", "far", "unknown"], floors)
    assert [q for q, _, _ in far] == ["far"]
    assert far[0][1] < 0.31 and far[0][2] == 0.31


def test_a_quote_in_another_language_than_the_concepts_has_the_floor_across_languages() -> None:
    quotes = {
        "es": "La libertad es uno de los más preciosos dones que a los hombres dieron los cielos.",
        "en": "Time is but the stream I go a-fishing in; I drink at it.",
        "short": "Ok.",
    }
    floors = quote_floors(quotes, "es", DETECT, same=0.881, across=0.85)
    assert floors == {"es": 0.881, "en": 0.85, "short": 0.881}
    # One number for both (USE): no language is asked for.
    assert quote_floors(quotes, "es", lambda text: 1 / 0, 0.31, 0.31) == dict.fromkeys(quotes, 0.31)


def test_a_score_under_its_floor_is_shown_with_the_floors_decimals() -> None:
    assert below([0.2], [0.31]) == "0.20 < 0.31"
    assert below([0.8809], [0.881]) == "0.8809 < 0.881"
    assert below([0.309], [0.31]) == "0.309 < 0.31"
    assert below([0.87, 0.5], [0.881, 0.85]) == "0.870 < 0.881, 0.50 < 0.85"


def test_a_title_that_is_only_the_book_or_its_author_names_no_idea() -> None:
    book = {"title": "Napoleón en Chamartín", "author": "Benito Pérez Galdós"}
    assert names_the_source("Napoleon en  chamartín.", book)
    assert names_the_source("BENITO PÉREZ GALDÓS", book)
    # An idea that mentions the book's subject is an idea; a book with no author is fine.
    assert not names_the_source("Napoleón desprecia a los españoles", book)
    assert not names_the_source("Napoleón", book)
    assert not names_the_source("", book)
    assert not names_the_source("Walden", {"title": "Walden; or, Life in the Woods"})
    assert names_the_source("Walden", {"title": "Walden", "author": None})


def test_a_title_that_is_a_sentence_is_found() -> None:
    clipped = (
        "¿tienen razón los franceses en llamar insurgentes, bandidos y ladrones de caminos a "
        "los héroes que en los campos de batl"
    )
    assert long_title(clipped)
    assert not long_title("Las obras definen a la persona")
    assert not long_title("uno dos tres cuatro cinco seis siete ocho nueve diez once doce")
    assert long_title("uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece")


def test_a_body_that_copies_its_quote_is_found_and_a_paraphrase_is_not() -> None:
    quote = "Cada uno es hijo de sus obras."
    assert copied_quote("Cada uno es hijo de sus propias obras.", {"q1": quote}) is not None
    assert copied_quote(SPANISH["concept"], {"q1": quote}) is None
    assert copied_share("", quote) == 0.0
    # Case and accents do not hide a copy.
    assert copied_share("CADA UNO ES HIJO DE SUS OBRAS", quote) == 1.0


def test_a_statement_that_keeps_its_quotes_words_copies_it_only_when_it_pastes_it_whole() -> None:
    quote = "No ha de fiarse el discreto de la fortuna, que es mudable como la luna."
    extractive = "El discreto no ha de fiarse de la fortuna, que es mudable."
    # Nearly all its words are the quote's (a copy for a paraphrase), but not the whole quote.
    assert copied_quote(extractive, {"q1": quote}) is not None
    assert copied_whole_quote(extractive, {"q1": quote}) is None
    pasted = "Como dice: no ha de fiarse el discreto de la Fortuna, que es mudable como la luna."
    assert copied_whole_quote(pasted, {"q1": quote}) == ("q1", 1.0)
    # In order: the same words shuffled are not the quote.
    assert in_order_share("luna la como mudable es", "es mudable como la luna") == 0.2
    assert in_order_share("algo", "") == 0.0


ENDS = {
    "c1": End("La lectura excesiva nubla el juicio", "Leer sin medida hace perder el juicio."),
    "c2": End("La imaginación sustituye a la realidad", "El que imagina deja de ver lo real."),
    "c3": End("Las obras definen a la persona", "Somos lo que hacemos, no el linaje."),
    "c4": End("La libertad es un don", "La libertad es el mayor bien del hombre."),
}
LIMITS = RelationLimits(cap=3, unrelated_below=0.31, copy_limit=0.9)


def relation(
    source: str, type_: str, target: str, explanation: str, confidence: float = 0.8
) -> dict[str, Any]:
    return {
        "source": source,
        "type": type_,
        "target": target,
        "explanation": explanation,
        "confidence": confidence,
    }


def run_checks(
    relations: list[dict[str, Any]],
    similarity: dict[frozenset[str], float] | None = None,
    limits: RelationLimits = LIMITS,
) -> tuple[list[dict[str, Any]], list[Finding]]:
    return check_relations(
        relations,
        ends=ENDS,
        similarity=similarity or {},
        vocabulary=DEFAULT_VOCABULARY,
        limits=limits,
    )


def test_a_contradictory_pair_loses_both_relations() -> None:
    kept, findings = run_checks(
        [
            relation("c1", "OPPOSES", "c2", "La lectura y la imaginación se oponen."),
            relation("c2", "SIMILAR_TO", "c1", "La imaginación se parece a la lectura."),
            relation("c1", "SUPPORTS", "c3", "Leer forma a la persona por sus obras."),
        ]
    )
    assert [(r["source"], r["target"]) for r in kept] == [("c1", "c3")]
    assert len(findings) == 2
    assert all("agree and to oppose" in f.detail for f in findings)
    assert count_findings([f.as_dict() for f in findings]) == {"relations": {"dropped": 2}}


def test_pasted_and_repeated_explanations_are_rejected() -> None:
    pasted = ENDS["c1"].body  # the concept's own text, pasted as the explanation
    kept, findings = run_checks(
        [
            relation("c1", "SUPPORTS", "c2", pasted),
            relation("c1", "RELATES_TO", "c3", "Ambas ideas hablan del ser humano."),
            relation("c2", "RELATES_TO", "c4", "Ambas ideas hablan del ser humano."),
            relation("c3", "SUPPORTS", "c4", "Quien obra con libertad se define por sus obras."),
            relation("c1", "SUPPORTS", "c4", ""),
        ]
    )
    assert [(r["source"], r["target"]) for r in kept] == [("c3", "c4")]
    details = [f.detail for f in findings]
    assert "repeats the text of" in details[0]
    assert sum("word for word" in d for d in details) == 2
    assert any("no explanation" in d for d in details)


def test_one_type_per_pair_keeps_the_most_confident() -> None:
    kept, findings = run_checks(
        [
            relation("c1", "SUPPORTS", "c2", "Leer sin medida alimenta la imaginación.", 0.6),
            relation("c2", "GENERALIZES", "c1", "La imaginación abarca el exceso de lectura.", 0.9),
        ]
    )
    assert [r["type"] for r in kept] == ["GENERALIZES"]
    assert "one type a pair" in findings[0].detail


def test_far_apart_ideas_need_an_explanation_naming_both() -> None:
    far = {frozenset(("c1", "c4")): 0.05, frozenset(("c2", "c4")): 0.05}
    kept, findings = run_checks(
        [
            relation("c1", "RELATES_TO", "c4", "Una idea influye en la otra de algún modo."),
            relation("c2", "RELATES_TO", "c4", "La imaginación hace soñar con la libertad."),
        ],
        far,
    )
    assert [(r["source"], r["target"]) for r in kept] == [("c2", "c4")]
    assert "far apart" in findings[0].detail


def test_relations_per_concept_are_capped_most_confident_first() -> None:
    cap = RelationLimits(cap=1, unrelated_below=0.31, copy_limit=0.9)
    kept, findings = run_checks(
        [
            relation("c1", "SUPPORTS", "c2", "Leer sin medida alimenta la imaginación.", 0.5),
            relation("c1", "RELATES_TO", "c3", "La lectura forma las obras de cada persona.", 0.9),
        ],
        limits=cap,
    )
    assert [r["target"] for r in kept] == ["c3"]
    assert "limit of 1" in findings[0].detail


def test_vocabulary_stance() -> None:
    assert DEFAULT_VOCABULARY.stance("OPPOSES") == "opposes"
    assert DEFAULT_VOCABULARY.stance("RELATES_TO") == "neutral"
    assert DEFAULT_VOCABULARY.stance("SPECIFIC_OF") == "agrees"


def report_of(concepts: list[dict[str, Any]], relations: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "quotes": 4,
        "concepts": concepts,
        "relations": relations,
        "unattributed_quotes": [{"id": "q4", "text": "x"}],
    }


def test_measures_follow_their_definitions() -> None:
    quote = {"id": "q1", "text": "Cada uno es hijo de sus obras."}
    concepts = [
        {**SPANISH, "quotes": [quote]},
        {
            **SPANISH,
            "title": "Cada uno es hijo de sus obras",
            "concept": "Cada uno es hijo de sus obras.",
            "analysis": "The quote says that people are what they do.",
            "summary_short": "People are their deeds.",
            "quotes": [quote],
        },
    ]
    same = "Las dos ideas tratan del mismo tema."
    relations = [
        {"source": "A", "type": "OPPOSES", "target": "B", "explanation": same},
        {"source": "B", "type": "SUPPORTS", "target": "A", "explanation": same + " "},
    ]
    for r in relations:
        r.update(source_is_new=True, target_is_new=True)

    def counted() -> dict[str, int]:
        return run_counts(
            report_of(concepts, relations),
            language="es",
            detect=DETECT,
            embedder=HashEmbedder(),
            vocabulary=DEFAULT_VOCABULARY,
        )

    counts = counted()
    assert counts["concepts_in_language"] == 1
    assert counts["relations_repeating_an_explanation"] == 2
    assert counts["contradictory_pairs"] == 1
    assert counts["relations_among_new"] == 2 and counts["possible_new_pairs"] == 1
    assert counts["concepts_copying_a_quote"] == 1
    assert counts["quotes_attributed"] == 3
    # The same statement, shown as a draft that is its quote (`titles`), is no hidden copy.
    concepts[1]["is_quote"] = True
    drafts = counted()
    assert drafts["concepts_copying_a_quote"] == 0
    values = measures([counts, counts])
    assert values["concepts_in_language"] == 0.5
    assert values["relations_per_possible_new_pair"] == 2.0
    assert values["contradictory_pairs"] == 2
    met = meets_goals(values)
    assert met["quotes_attributed"] is False  # 3 of 4 < 0.90
    assert met["contradictory_pairs"] is False


def test_measures_without_data_are_none_and_meet_their_goals() -> None:
    values = measures([])
    assert values["concepts_in_language"] is None
    assert all(meets_goals(values).values())


def test_a_short_field_is_judged_with_its_body() -> None:
    # Alone, a short Spanish line may read as a neighbour language; within a Spanish body it
    # is not flagged. A long English field in a Spanish body still is.
    short = {**SPANISH, "summary_short": "La vida es lo que pensamos"}
    assert off_language_fields(short, "es", DETECT) == []
    english_analysis = {
        **SPANISH,
        "analysis": "The author puts merit above lineage in a society that valued noble birth.",
    }
    assert off_language_fields(english_analysis, "es", DETECT) == ["analysis"]


def test_an_off_topic_rewrite_shows_the_quotes_not_the_concept_that_missed_them() -> None:
    from zettelgraph.prompts import repair_concept

    data = repair_concept.RepairInput(
        title="La herencia es fundamental",
        concept="La herencia define a las personas.",
        analysis="",
        summary_short="La herencia importa.",
        quotes=["Cada uno es hijo de sus obras."],
        off_topic=True,
    )
    text = "\n".join(str(m.content) for m in repair_concept.messages(data))
    assert "Cada uno es hijo de sus obras." in text
    assert "herencia" not in text
    fix = repair_concept.messages(
        data.model_copy(update={"off_topic": False, "copies_quote": True})
    )
    assert "herencia" in str(fix[-1].content) and "copia la cita" in str(fix[-1].content)
    # The last try, after a rewrite that still copied, starts afresh and says not to copy.
    retry = repair_concept.messages(
        data.model_copy(update={"off_topic": False, "copies_quote": True, "retry": True})
    )
    last = str(retry[-1].content)
    assert "herencia" not in last and "No repitas la frase de la cita" in last


def test_a_title_clearly_in_another_language_is_flagged_over_a_spanish_body() -> None:
    english_title = {**SPANISH, "title": "Men lead lives of quiet desperation"}
    assert off_language_fields(english_title, "es", DETECT) == ["title"]
    # A short or mixed title is left alone: "Vida deliberada" could be Portuguese.
    assert off_language_fields({**SPANISH, "title": "Vida deliberada"}, "es", DETECT) == []


def test_a_long_titles_first_clause_stands_in_only_when_it_is_a_name() -> None:
    from zettelgraph.guards.distillation import clause_title

    sentence = (
        "Comenzar el día diciendo a mí mismo, que me encontraré con el entrometido, el "
        "ingrato, el arrogante"
    )
    assert clause_title(sentence) == "Comenzar el día diciendo a mí mismo"
    assert clause_title("Libertad; y lo demás viene después de ella sin más") is None  # one word
    assert clause_title(LONG) is None  # no clause: nothing shorter to stand in


LONG = "Cada uno es hijo de sus obras y no de su linaje ni de la fortuna de sus padres"
