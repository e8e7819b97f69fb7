"""Feedback that finishes: a timed-out feedback call leaves the run waiting for review with
its proposal intact (tried as the retry settings say, once, not three times more by the
step's retry policy), revisions face the concept checks, and on a small model the feedback
goes only to the concepts it names, or to one undecided concept at a time."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from harness import MakeHarness
from test_item_review import OPEN, QUOTES, REPLIES, concept, start
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.prompts.proposal_patch import ConceptChange, ProposalPatch, RelationChange
from zettelgraph.services.review import decide, decisions_from
from zettelgraph.workflows.concept_extraction.feedback import confine, focus_groups, focused
from zettelgraph.workflows.concept_extraction.state import DraftConcept, Proposal

REPO = Path(__file__).resolve().parents[2]


class APITimeoutError(Exception):
    """Named as the OpenAI client's: not a TimeoutError."""


def test_a_feedback_call_that_times_out_leaves_the_run_waiting(make_harness: MakeHarness) -> None:
    tries: list[str] = []

    def too_slow(prompt: str) -> Any:
        tries.append(prompt)
        raise APITimeoutError("Request timed out.")

    h = make_harness({**REPLIES, "incorporate_feedback": [too_slow]}, llm_retries=2, **OPEN)
    run_id, before = start(h)
    view = h.runs.answer(run_id, "feedback", "títulos más cortos")
    assert view.status == "awaiting_review"
    assert view.feedback_error is not None and "no answer in time" in view.feedback_error
    assert len(tries) == 3  # one try and two retries; the step itself is not run again
    assert view.report is not None
    assert [c["title"] for c in view.report["concepts"]] == [c["title"] for c in before["concepts"]]
    # The run goes on: the reader can still approve what there is.
    assert h.runs.answer(run_id, "approve").status == "committed"


def test_a_revision_that_fails_the_checks_is_put_back(make_harness: MakeHarness) -> None:
    bad = {
        # A title that is a fragment of the prompt, in English, copying its quote: what a
        # small model wrote after one feedback round.
        "upsert_concepts": [
            {
                "id": "c1",
                **concept(
                    "), the full new list of quotes supporting it;",
                    QUOTES[0],
                    ["q1"],
                ),
                "analysis": "This concept copies the quote and is written in English.",
                "summary": QUOTES[0],
            },
            {"id": "c9", **concept("Leer enseña", QUOTES[2], ["q3"]), "summary": QUOTES[2]},
            {
                "id": "c2",
                **concept("Las obras hacen al hombre", "Cada uno se define por sus actos.", ["q2"]),
                "summary": "Cada uno se define por sus actos.",
            },
        ],
        "feedback_interpretation": "títulos nuevos",
    }
    h = make_harness({**REPLIES, "incorporate_feedback": [bad]}, **OPEN)
    run_id, before = start(h)
    view = h.runs.answer(run_id, "feedback", "otros títulos")
    assert view.report is not None
    concepts = {c["key"]: c for c in view.report["concepts"]}
    old = {c["key"]: c for c in before["concepts"]}
    assert concepts["c1"]["title"] == old["c1"]["title"]  # put back as it was
    assert "c9" not in concepts  # a new concept that copies its quote: left out
    assert concepts["c2"]["title"] == "Las obras hacen al hombre"  # passes: kept
    said = " ".join(view.warnings)
    assert "written by feedback round 1" in said and "put back as it was" in said
    assert "left out" in said


def test_cli_feedback_timeout_is_one_error_and_the_run_waits(tmp_path: Path) -> None:
    def cli(*args: str, llm: str = "fake") -> Any:
        return CliRunner().invoke(
            app,
            ["--home", str(tmp_path), "--llm", llm, "--embeddings", "hash", *args],
            catch_exceptions=False,
        )

    made = cli("run", str(REPO / "examples" / "meditations.md"))
    assert made.exit_code == 0, made.output
    run_id = re.findall(r"run-[0-9a-f]{12}", made.output)[0]
    slow = "fake:timeout_on=incorporate_feedback"
    done = cli("review", run_id, "--feedback", "más corto", llm=slow)
    assert done.exit_code == 1
    assert "Traceback" not in done.output
    flat = " ".join(done.output.split())
    assert "the feedback was not applied in full" in flat and f"zettelgraph review {run_id}" in flat
    listed = cli("runs")
    assert "awaiting_review" in listed.output


def draft(key: str, quote: str) -> DraftConcept:
    return DraftConcept(
        key=key,
        title=f"Idea {key}",
        concept=f"La idea {key}.",
        analysis="",
        summary="",
        summary_short="",
        quote_ids=[quote],
        rationale="",
        history=[],
    )


PROPOSAL: Proposal = {
    "concepts": [draft("c1", "Q1"), draft("c2", "Q2"), draft("c3", "Q3")],
    "attributions": [],
    "relations": [
        {
            "key": "r1",
            "source": "c2",
            "type": "SUPPORTS",
            "target": "c3",
            "explanation": "",
            "confidence": 0.7,
            "history": [],
        }
    ],
    "unattributed_quote_ids": [],
    "notes": [],
}


def test_a_small_model_is_shown_only_what_the_feedback_names() -> None:
    named = focus_groups(PROPOSAL, "c1 no dice eso; r1 sobra", None, small=True)
    assert named == [["c1", "c2", "c3"]]
    assert focus_groups(PROPOSAL, "c3 es otra idea", None, small=True) == [["c3"]]
    # Nothing named: one undecided concept at a time.
    assert focus_groups(PROPOSAL, "más claro", None, small=True) == [["c1"], ["c2"], ["c3"]]
    # A large model sees the whole proposal in one call.
    assert focus_groups(PROPOSAL, "c1 no", None, small=False) == [[]]
    part = focused(PROPOSAL, ["c2", "c3"])
    assert [c["key"] for c in part["concepts"]] == ["c2", "c3"]
    assert [r["key"] for r in part["relations"]] == ["r1"]


def test_a_focused_patch_touches_only_what_it_was_shown() -> None:
    change = {
        "title": "Nueva",
        "concept": "Texto nuevo.",
        "analysis": "",
        "summary": "",
        "summary_short": "x",
        "source_quote_ids": ["q1"],
    }
    patch = ProposalPatch(
        upsert_concepts=[ConceptChange(id="c1", **change), ConceptChange(id="c3", **change)],
        remove_concept_ids=["c2", "c1"],
        add_relations=[
            RelationChange(source_id="c1", relation_type="SUPPORTS", target_id="c2"),
            RelationChange(source_id="c1", relation_type="SUPPORTS", target_id="c3"),
        ],
    )
    confined, warnings = confine(patch, ["c1"], PROPOSAL, "incorporate_feedback#1")
    assert [c.id for c in confined.upsert_concepts] == ["c1", "c4"]  # c3 unseen: a new one
    assert confined.remove_concept_ids == ["c1"]
    assert [(r.source_id, r.target_id) for r in confined.add_relations] == [("c1", "c4")]
    assert any("c3, which it was not shown" in w for w in warnings)
    assert any("2 changes to concepts it was not shown were ignored" in w for w in warnings)


def test_decided_concepts_are_not_asked_one_by_one(make_harness: MakeHarness) -> None:
    h = make_harness(REPLIES, **OPEN)
    run_id, _ = start(h)
    decide(h.runs, run_id, decisions_from({"keep": ["c2"]}, "flags"))
    state = h.runs.graph.get_state({"configurable": {"thread_id": run_id}}).values
    groups = focus_groups(state["proposal"], "más claro", state.get("review"), small=True)
    assert ["c2"] not in groups and groups
