"""The proposal checks inside the workflow, on the fake LLM with scripted answers: an English
concept is rewritten (or dropped), a copied quote is sent back, an ungrounded quote is taken
off, contradictory and pasted relations are dropped, and each action is counted in the report
and shown as a warning. Real stores and checkpoints."""

from __future__ import annotations

import re
from typing import Any

from harness import PASSING_CRITIQUE, MakeHarness

from zettelgraph.prompts.repair_concept import TRIES as REPAIR_TRIES

# A rewrite that keeps a flaw is tried again from its quotes, up to this many calls in all.
TRIES = len(REPAIR_TRIES)

WORKS = "Cada uno es hijo de sus obras, y no de su linaje ni de la fortuna de sus padres."
SLEEP = "Nada hay tan bueno como dormir, que repara el cuerpo cansado y sosiega la mente inquieta."
READING = "Del poco dormir y del mucho leer se le secó el celebro, y vino a perder el juicio."

SPANISH_REWRITE = {
    "title": "Las obras definen a la persona",
    "concept": "Lo que alguien es no lo decide su origen sino lo que hace con su vida.",
    "analysis": "Cervantes pone el mérito por encima del linaje de los hidalgos de su tiempo.",
    "summary_short": "Somos lo que hacemos, no de dónde venimos.",
}
ENGLISH = {
    "title": "Deeds make the man",
    "concept": "What a person is depends on what they do, not on where they come from.",
    "analysis": "The quote puts merit above lineage in a society that valued birth.",
    "summary": "",
    "summary_short": "People are what they do, not where they come from.",
    "source_quote_ids": ["q1"],
}


def concept(title: str, text: str, quote_ids: list[str], analysis: str = "") -> dict[str, Any]:
    return {
        "title": title,
        "concept": text,
        "analysis": analysis or f"{title}: una lectura atenta de la idea y de su alcance.",
        "summary_short": text,
        "source_quote_ids": quote_ids,
    }


def test_an_english_concept_is_rewritten_in_spanish(make_harness: MakeHarness) -> None:
    h = make_harness(
        {
            "extract_concepts": [{"candidate_concepts": [ENGLISH]}],
            "repair_concept": [SPANISH_REWRITE],
            "self_critique": [PASSING_CRITIQUE],
        }
    )
    view = h.runs.start(h.add_content("Quijote", [WORKS]))
    assert view.report is not None
    assert h.calls("repair_concept") == 1
    assert [c["title"] for c in view.report["concepts"]] == [SPANISH_REWRITE["title"]]
    assert view.report["checks"] == {"language": {"sent_for_rewrite": 1, "repaired": 1}}
    assert any(w.startswith("check language: sent for rewrite") for w in view.warnings)
    # The rewrite is in the concept's history, the quotes it cited are kept.
    assert view.report["concepts"][0]["quotes"][0]["text"] == WORKS


def test_a_concept_still_in_english_after_the_rewrite_is_dropped(make_harness: MakeHarness) -> None:
    english_again = {k: ENGLISH[k] for k in ("title", "concept", "analysis", "summary_short")}
    h = make_harness(
        {
            "extract_concepts": [{"candidate_concepts": [ENGLISH]}],
            "repair_concept": [english_again],
            "self_critique": [PASSING_CRITIQUE],
        }
    )
    view = h.runs.start(h.add_content("Quijote", [WORKS]))
    assert view.report is not None
    assert h.calls("repair_concept") == TRIES  # the rewrite, and more from the quotes alone
    assert view.report["concepts"] == []
    assert view.report["checks"]["language"] == {"sent_for_rewrite": 1, "dropped": 1}
    assert [q["text"] for q in view.report["unattributed_quotes"]] == [WORKS]
    assert any("still not in the graph's language" in w for w in view.warnings)


def test_a_concept_that_copies_its_quote_is_sent_back(make_harness: MakeHarness) -> None:
    copy = concept("Cada uno es hijo de sus obras", WORKS, ["q1"])
    h = make_harness(
        {
            "extract_concepts": [{"candidate_concepts": [copy]}],
            "repair_concept": [SPANISH_REWRITE],
            "self_critique": [PASSING_CRITIQUE],
        }
    )
    view = h.runs.start(h.add_content("Quijote", [WORKS]))
    assert view.report is not None
    assert view.report["checks"] == {"distillation": {"sent_for_rewrite": 1, "repaired": 1}}
    assert view.report["concepts"][0]["concept"] == SPANISH_REWRITE["concept"]


def test_the_rewrite_with_fewest_flaws_is_kept(make_harness: MakeHarness) -> None:
    # Three tries: English and a copy, then a Spanish copy, then English and a copy again. The
    # second (one flaw) is the one judged, so the concept is dropped as a copy, not for English.
    english_copy = {**{k: ENGLISH[k] for k in SPANISH_REWRITE}, "concept": WORKS}
    spanish_copy = {**SPANISH_REWRITE, "concept": WORKS}
    h = make_harness(
        {
            "extract_concepts": [{"candidate_concepts": [ENGLISH]}],
            "repair_concept": [english_copy, spanish_copy, english_copy],
            "self_critique": [PASSING_CRITIQUE],
        }
    )
    view = h.runs.start(h.add_content("Quijote", [WORKS]))
    assert view.report is not None
    assert h.calls("repair_concept") == TRIES
    assert view.report["checks"] == {
        "language": {"sent_for_rewrite": 1},
        "distillation": {"dropped": 1},
    }
    assert any(f"dropped {SPANISH_REWRITE['title']!r}" in w for w in view.warnings)


COVERING = {
    "title": "Leer sin dormir enloquece",
    "concept": "Quien sacrifica el descanso por la lectura acaba confundiendo ficción y vida.",
    "analysis": "La locura de don Quijote nace de un exceso, no de la lectura misma.",
    "summary_short": "El exceso de lectura sin descanso trastorna el juicio.",
}


def coverage_run(make_harness: MakeHarness, rewrite: Any) -> Any:
    """A run with coverage on whose model writes a concept for the first quote only."""
    h = make_harness(
        {
            "extract_concepts": [
                {"candidate_concepts": [{**SPANISH_REWRITE, "source_quote_ids": ["q1"]}]}
            ],
            "repair_concept": [rewrite],
            "self_critique": [PASSING_CRITIQUE],
        },
        cover_quotes=True,
    )
    view = h.runs.start(h.add_content("Quijote", [WORKS, READING]))
    assert view.report is not None
    return h, view


def test_a_quote_no_concept_cites_gets_a_concept_of_its_own(make_harness: MakeHarness) -> None:
    prompts: list[str] = []

    def covering(prompt: str) -> dict[str, Any]:
        prompts.append(prompt)
        return COVERING

    h, view = coverage_run(make_harness, covering)
    assert h.calls("repair_concept") == 1
    concepts = view.report["concepts"]
    assert [c["title"] for c in concepts] == [SPANISH_REWRITE["title"], COVERING["title"]]
    assert [q["text"] for q in concepts[1]["quotes"]] == [READING]
    assert view.report["checks"] == {"coverage": {"sent_for_rewrite": 1, "added": 1}}
    assert view.report["unattributed_quotes"] == []
    # The call saw that quote alone, not the concept of the other one.
    assert len(prompts) == 1
    assert READING in prompts[0] and WORKS not in prompts[0]


def test_a_quote_the_model_can_only_copy_stays_unattributed(make_harness: MakeHarness) -> None:
    copy = {k: concept("Del poco dormir", READING, ["q2"])[k] for k in COVERING}
    h, view = coverage_run(make_harness, copy)
    assert h.calls("repair_concept") == TRIES
    assert [c["title"] for c in view.report["concepts"]] == [SPANISH_REWRITE["title"]]
    assert view.report["checks"] == {
        "coverage": {"sent_for_rewrite": 1},
        "distillation": {"dropped": 1},
    }
    assert [q["text"] for q in view.report["unattributed_quotes"]] == [READING]


def test_a_failed_call_for_an_uncovered_quote_leaves_no_empty_concept(
    make_harness: MakeHarness,
) -> None:
    _, view = coverage_run(make_harness, "not json at all")
    assert [c["title"] for c in view.report["concepts"]] == [SPANISH_REWRITE["title"]]
    assert view.report["checks"]["coverage"] == {"sent_for_rewrite": 1, "dropped": 1}
    assert [q["text"] for q in view.report["unattributed_quotes"]] == [READING]


def test_a_concept_titled_as_the_book_is_written_again_from_its_quote(
    make_harness: MakeHarness,
) -> None:
    # The title names no idea; the rewrite is asked from the quote alone, and one that names the
    # book again counts as a miss and gets the next try.
    book = {**SPANISH_REWRITE, "title": "Quijote", "source_quote_ids": ["q1"]}
    again = {k: book[k] for k in COVERING}
    h = make_harness(
        {
            "extract_concepts": [{"candidate_concepts": [book]}],
            "repair_concept": [again, SPANISH_REWRITE],
            "self_critique": [PASSING_CRITIQUE],
        }
    )
    view = h.runs.start(h.add_content("Quijote", [WORKS]))
    assert view.report is not None
    assert h.calls("repair_concept") == 2
    assert [c["title"] for c in view.report["concepts"]] == [SPANISH_REWRITE["title"]]
    assert view.report["checks"] == {"grounding": {"sent_for_rewrite": 1, "repaired": 1}}
    assert any("its title names the book, not an idea" in w for w in view.warnings)


def test_an_orphan_citing_two_quotes_is_asked_again_one_quote_at_a_time(
    make_harness: MakeHarness,
) -> None:
    # Two extraction calls both fell back on the book's title and were merged into one concept
    # citing two unrelated quotes: it is dropped and each quote gets a call of its own.
    prompts: list[str] = []

    def answer(reply: dict[str, Any]) -> Any:
        def call(prompt: str) -> dict[str, Any]:
            prompts.append(prompt)
            return reply

        return call

    h = make_harness(
        {
            "extract_concepts": [
                {
                    "candidate_concepts": [
                        {**SPANISH_REWRITE, "title": "Quijote", "source_quote_ids": ["q1", "q2"]}
                    ]
                }
            ],
            "repair_concept": [answer(SPANISH_REWRITE), answer(COVERING)],
            "self_critique": [PASSING_CRITIQUE],
        },
        cover_quotes=True,
    )
    view = h.runs.start(h.add_content("Quijote", [WORKS, READING]))
    assert view.report is not None
    assert h.calls("repair_concept") == 2
    assert sorted(c["title"] for c in view.report["concepts"]) == sorted(
        [SPANISH_REWRITE["title"], COVERING["title"]]
    )
    assert view.report["unattributed_quotes"] == []
    assert view.report["checks"] == {
        "grounding": {"dropped": 1},
        "coverage": {"sent_for_rewrite": 2, "added": 2},
    }
    assert any("each of its quotes is asked again alone" in w for w in view.warnings)
    # Each call saw one quote.
    assert sorted((WORKS in p, READING in p) for p in prompts) == [(False, True), (True, False)]


LONG_TITLE = "Cada uno es hijo de sus obras y no de su linaje ni de la fortuna de sus padres"


def long_title_run(make_harness: MakeHarness, rewrite: Any, **settings: Any) -> Any:
    """A run whose one concept is sound but titled with a whole sentence."""
    h = make_harness(
        {
            "extract_concepts": [
                {
                    "candidate_concepts": [
                        {**SPANISH_REWRITE, "title": LONG_TITLE, "source_quote_ids": ["q1"]}
                    ]
                }
            ],
            "repair_concept": [rewrite],
            "self_critique": [PASSING_CRITIQUE],
        },
        **settings,
    )
    view = h.runs.start(h.add_content("Quijote", [WORKS]))
    assert view.report is not None
    return h, view


def test_a_title_that_is_a_sentence_is_sent_back_and_flagged_if_it_stays_one(
    make_harness: MakeHarness,
) -> None:
    prompts: list[str] = []

    def still_long(prompt: str) -> dict[str, Any]:
        prompts.append(prompt)
        return {**SPANISH_REWRITE, "title": LONG_TITLE}

    h, view = long_title_run(make_harness, still_long)
    assert h.calls("repair_concept") == TRIES
    assert "title es una frase larga" in prompts[0]
    # The idea itself is sound: it reaches the reader, flagged for a shorter title.
    assert [c["title"] for c in view.report["concepts"]] == [LONG_TITLE]
    assert view.report["checks"] == {"distillation": {"sent_for_rewrite": 1, "flagged": 1}}
    assert any("its title is a sentence of 19 words" in w for w in view.warnings)


def test_a_title_still_a_sentence_is_cut_to_its_first_clause_when_that_names_it(
    make_harness: MakeHarness,
) -> None:
    clauses = "Cada uno es hijo de sus obras, y no de su linaje ni de la fortuna de sus padres"
    h, view = long_title_run(make_harness, {**SPANISH_REWRITE, "title": clauses})
    assert h.calls("repair_concept") == TRIES
    assert [c["title"] for c in view.report["concepts"]] == ["Cada uno es hijo de sus obras"]
    assert view.report["checks"] == {"distillation": {"sent_for_rewrite": 1, "repaired": 1}}
    assert any("cut to 'Cada uno es hijo de sus obras'" in w for w in view.warnings)


def test_a_sentence_title_whose_first_clause_names_the_idea_is_cut_without_a_call(
    make_harness: MakeHarness,
) -> None:
    clauses = "Cada uno es hijo de sus obras, y no de su linaje ni de la fortuna de sus padres"
    h = make_harness(
        {
            "extract_concepts": [
                {
                    "candidate_concepts": [
                        {**SPANISH_REWRITE, "title": clauses, "source_quote_ids": ["q1"]}
                    ]
                }
            ],
            "self_critique": [PASSING_CRITIQUE],
        }
    )
    view = h.runs.start(h.add_content("Quijote", [WORKS]))
    assert view.report is not None
    assert h.calls("repair_concept") == 0
    assert [c["title"] for c in view.report["concepts"]] == ["Cada uno es hijo de sus obras"]
    assert view.report["checks"] == {"distillation": {"repaired": 1}}
    assert any("a sentence of 19 words: cut to" in w for w in view.warnings)


def test_a_title_is_not_cut_to_a_clause_that_leaves_the_concept_off_its_quote(
    make_harness: MakeHarness,
) -> None:
    # The quote's words are all in the sentence title; its first clause and the statement are
    # about something else: cut, the concept would no longer be grounded, so it is rewritten.
    title = "Dormir la siesta, porque cada uno es hijo de sus obras y no de su linaje ni fortuna"
    h = make_harness(
        {
            "extract_concepts": [
                {"candidate_concepts": [{**SIESTA, "title": title, "source_quote_ids": ["q1"]}]}
            ],
            "repair_concept": [SPANISH_REWRITE],
            "self_critique": [PASSING_CRITIQUE],
        },
        embeddings="use-multilingual",
    )
    view = h.runs.start(h.add_content("Quijote", [WORKS]))
    assert view.report is not None
    assert h.calls("repair_concept") >= 1
    assert "Dormir la siesta" not in [c["title"] for c in view.report["concepts"]]


def test_a_rewrite_for_a_long_title_that_goes_off_its_quote_loses_to_the_concept(
    make_harness: MakeHarness,
) -> None:
    # Only the title was wrong: a rewrite about something else would be dropped and the quote
    # with it, so the concept stays as it was, flagged for a shorter title.
    h, view = long_title_run(make_harness, SIESTA, embeddings="use-multilingual")
    assert h.calls("repair_concept") == TRIES
    [kept] = view.report["concepts"]
    assert (kept["title"], kept["concept"]) == (LONG_TITLE, SPANISH_REWRITE["concept"])
    assert view.report["checks"] == {"distillation": {"sent_for_rewrite": 1, "flagged": 1}}
    assert view.report["unattributed_quotes"] == []


def test_a_long_title_rewritten_short_is_repaired(make_harness: MakeHarness) -> None:
    h, view = long_title_run(make_harness, SPANISH_REWRITE)
    assert h.calls("repair_concept") == 1
    assert [c["title"] for c in view.report["concepts"]] == [SPANISH_REWRITE["title"]]
    assert view.report["checks"] == {"distillation": {"sent_for_rewrite": 1, "repaired": 1}}


def test_a_rewrite_that_fails_to_parse_gets_the_next_try(make_harness: MakeHarness) -> None:
    h = make_harness(
        {
            "extract_concepts": [{"candidate_concepts": [ENGLISH]}],
            "repair_concept": ["not json at all", SPANISH_REWRITE],
            "self_critique": [PASSING_CRITIQUE],
        }
    )
    view = h.runs.start(h.add_content("Quijote", [WORKS]))
    assert view.report is not None
    assert [c["title"] for c in view.report["concepts"]] == [SPANISH_REWRITE["title"]]
    assert view.report["checks"] == {"language": {"sent_for_rewrite": 1, "repaired": 1}}


def test_large_models_leave_skipped_quotes_to_the_reader(make_harness: MakeHarness) -> None:
    # The default on a large model: the quote the model left out is shown, no extra call.
    h = make_harness(
        {
            "extract_concepts": [
                {"candidate_concepts": [{**SPANISH_REWRITE, "source_quote_ids": ["q1"]}]}
            ],
            "self_critique": [PASSING_CRITIQUE],
        }
    )
    view = h.runs.start(h.add_content("Quijote", [WORKS, READING]))
    assert view.report is not None
    assert h.calls("repair_concept") == 0
    assert [q["text"] for q in view.report["unattributed_quotes"]] == [READING]


SIESTA = {
    "title": "La siesta andaluza",
    "concept": "Dormir después de comer es una costumbre que mejora el humor.",
    "analysis": "Una costumbre del sur que cuida el descanso diario.",
    "summary_short": "La siesta mejora el humor de la tarde.",
}


def grounding_run(make_harness: MakeHarness, rewrite: dict[str, Any], calls: int = 1) -> Any:
    # A semantic embedder: the hash one cannot tell what a quote is about.
    h = make_harness(
        {
            "extract_concepts": [
                {
                    "candidate_concepts": [
                        concept(
                            "El sueño reparador",
                            "Dormir bien repara el cuerpo y devuelve la calma a la mente.",
                            ["q1", "q2"],
                            "El descanso es una necesidad del cuerpo y del ánimo.",
                        ),
                        {**SIESTA, "source_quote_ids": ["q2"]},
                    ]
                }
            ],
            "repair_concept": [rewrite],
            "self_critique": [PASSING_CRITIQUE],
        },
        embeddings="use-multilingual",
    )
    view = h.runs.start(h.add_content("Quijote", [SLEEP, WORKS]))
    # Only the concept with no quote about it; a rewrite still off its quote gets two more.
    assert h.calls("repair_concept") == calls
    return view


def test_a_concept_still_copying_its_quote_after_the_rewrite_is_dropped(
    make_harness: MakeHarness,
) -> None:
    copy = concept("Cada uno es hijo de sus obras", WORKS, ["q1"])
    again = {k: copy[k] for k in ("title", "concept", "analysis", "summary_short")}
    h = make_harness(
        {
            "extract_concepts": [{"candidate_concepts": [copy]}],
            "repair_concept": [again],
            "self_critique": [PASSING_CRITIQUE],
        }
    )
    view = h.runs.start(h.add_content("Quijote", [WORKS]))
    assert view.report is not None
    assert h.calls("repair_concept") == TRIES
    assert view.report["concepts"] == []
    assert view.report["checks"] == {"distillation": {"sent_for_rewrite": 1, "dropped": 1}}
    assert any("still copies its quote" in w for w in view.warnings)


def test_a_rewrite_that_still_copies_gets_one_more_try_from_the_quotes_alone(
    make_harness: MakeHarness,
) -> None:
    copy = concept("Cada uno es hijo de sus obras", WORKS, ["q1"])
    again = {k: copy[k] for k in ("title", "concept", "analysis", "summary_short")}
    h = make_harness(
        {
            "extract_concepts": [{"candidate_concepts": [copy]}],
            "repair_concept": [again, SPANISH_REWRITE],
            "self_critique": [PASSING_CRITIQUE],
        }
    )
    view = h.runs.start(h.add_content("Quijote", [WORKS]))
    assert view.report is not None
    assert h.calls("repair_concept") == 2
    assert view.report["checks"] == {"distillation": {"sent_for_rewrite": 1, "repaired": 1}}
    assert [c["title"] for c in view.report["concepts"]] == [SPANISH_REWRITE["title"]]
    assert view.report["unattributed_quotes"] == []


def test_ungrounded_quotes_are_taken_off_and_a_concept_still_off_topic_is_dropped(
    make_harness: MakeHarness,
) -> None:
    view = grounding_run(make_harness, SIESTA, calls=TRIES)  # the rewrites say the same again
    assert view.report is not None
    kept = view.report["concepts"]
    assert [c["title"] for c in kept] == ["El sueño reparador"]
    assert [q["text"] for q in kept[0]["quotes"]] == [SLEEP]
    assert view.report["checks"]["grounding"] == {"dropped": 2, "sent_for_rewrite": 1}
    grounding = [w for w in view.warnings if w.startswith("check grounding")]
    assert any("dropped 1 quote(s) of 'El sueño reparador'" in w for w in grounding)
    assert any("dropped 'La siesta andaluza': none of its quotes" in w for w in grounding)
    assert [q["text"] for q in view.report["unattributed_quotes"]] == [WORKS]


def test_an_off_topic_concept_rewritten_from_its_quote_is_kept(make_harness: MakeHarness) -> None:
    view = grounding_run(make_harness, SPANISH_REWRITE)  # now about the quote it cites
    assert view.report is not None
    titles = [c["title"] for c in view.report["concepts"]]
    assert titles == ["El sueño reparador", SPANISH_REWRITE["title"]]
    assert view.report["checks"]["grounding"] == {
        "dropped": 1,
        "sent_for_rewrite": 1,
        "repaired": 1,
    }
    assert view.report["unattributed_quotes"] == []


def relation(target: str, type_: str, explanation: str, confidence: float) -> dict[str, Any]:
    return {
        "target_concept_id": target,
        "relation_type": type_,
        "explanation": explanation,
        "confidence": confidence,
    }


PASTED = "La lectura sin medida acaba con el juicio de quien lee de noche y de día."


def relations_for(prompt: str) -> dict[str, Any]:
    """Answers of create_relations by the concept asked about (branches run in any order)."""
    asked = re.search(r"New idea \[(c\d+)\]", prompt)
    source = asked.group(1) if asked else ""
    # Each pair is put to the model once (from its first concept): c1 sees c2 and c3, c2 sees
    # c3, c3 sees none.
    answers = {
        "c1": [
            relation("c2", "OPPOSES", "El juicio perdido y el sueño reparador se oponen.", 0.8),
            relation("c2", "SIMILAR_TO", "El sueño y el juicio van juntos en la cordura.", 0.7),
            relation("c3", "SUPPORTS", PASTED, 0.9),
        ],
        "c2": [relation("c3", "RELATES_TO", "Las obras piden un cuerpo descansado.", 0.6)],
    }
    return {"relations": answers.get(source, [])}


def test_contradictory_and_pasted_relations_are_dropped(make_harness: MakeHarness) -> None:
    h = make_harness(
        {
            "extract_concepts": [
                {
                    "candidate_concepts": [
                        concept("La lectura excesiva nubla el juicio", PASTED, ["q3"], PASTED),
                        concept("El sueño reparador", "Dormir repara cuerpo y mente.", ["q1"]),
                        concept("Las obras definen a la persona", "Somos lo que hacemos.", ["q2"]),
                    ]
                }
            ],
            "create_relations": [relations_for],
            "repair_concept": [SPANISH_REWRITE],
            "self_critique": [PASSING_CRITIQUE],
        },
        relation_min_similarity=-1.0,  # every concept sees every other one
        relation_unrelated_below=-1.0,
    )
    view = h.runs.start(h.add_content("Quijote", [SLEEP, WORKS, READING]))
    assert view.report is not None
    assert h.calls("create_relations") == 2  # c3's pairs were all put to c1 and c2
    relations = view.report["relations"]
    assert [(r["type"], r["explanation"]) for r in relations] == [
        ("RELATES_TO", "Las obras piden un cuerpo descansado.")
    ]
    dropped = [w for w in view.warnings if w.startswith("check relations: dropped")]
    assert len(dropped) == 3
    assert sum("agree and to oppose" in w for w in dropped) == 2
    assert sum("repeats the text of" in w for w in dropped) == 1
    assert view.report["checks"]["relations"] == {"dropped": 3}


def test_without_self_critique_the_checks_go_straight_to_review(
    make_harness: MakeHarness,
) -> None:
    h = make_harness(
        {"extract_concepts": [{"candidate_concepts": [concept("Idea", SLEEP, ["q1"])]}]},
        self_critique=False,
    )
    view = h.runs.start(h.add_content("Libro", [SLEEP]))
    assert view.status == "awaiting_review"
    assert h.calls("self_critique") == 0 and h.calls("refine_extraction") == 0
    assert view.report is not None and view.report["critique_log"] == []


TIME_STREAM = (
    "Time is but the stream I go a-fishing in. I drink at it; but while I drink I see the "
    "sandy bottom and detect how shallow it is."
)


def test_on_e5_a_spanish_idea_citing_an_english_quote_is_grounded_across_languages(
    make_harness: MakeHarness,
) -> None:
    """e5's cosines run lower across languages: a faithful Spanish reading of an English quote
    scores under the one-language floor (0.881) and above the floor across languages."""
    idea = {
        "title": "El tiempo es un arroyo",
        "concept": "El tiempo no es más que el arroyo en el que voy a pescar.",
        "analysis": "El tiempo como un río poco profundo del que se bebe.",
        "summary_short": "El tiempo es un arroyo poco profundo.",
        "source_quote_ids": ["q1"],
    }
    h = make_harness(
        {
            "extract_concepts": [{"candidate_concepts": [idea]}],
            "self_critique": [PASSING_CRITIQUE],
        },
        embeddings="e5-small",
    )
    numbers = h.services.thresholds
    assert numbers.grounding_across < numbers.grounding
    view = h.runs.start(h.add_content("Walden", [TIME_STREAM]))
    assert view.report is not None
    assert [c["title"] for c in view.report["concepts"]] == [idea["title"]]
    assert "grounding" not in view.report["checks"]
