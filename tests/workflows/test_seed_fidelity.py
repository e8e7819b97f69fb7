"""Issue 16, the Concept Extraction Graph does what its design says, on the fake LLM and real
stores: the reader's suggestions reach the self-critique and the refinement; the review shows
the model's extraction notes and why it left quotes out; a run past its recursion limit is
reviewed with what it has."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness import PASSING_CRITIQUE, QUOTES, MakeHarness, concept_reply
from rich.console import Console

from zettelgraph.cli.report_view import print_report
from zettelgraph.workflows.concept_extraction.limits import at_recursion_limit

SUGGESTIONS = "Agrupa en un solo concepto todo lo que digan sobre la duda científica."
FAILING_CRITIQUE = {
    **PASSING_CRITIQUE,
    "failed_criteria": ["atomicity"],
    "overall_passes": False,
    "critique_summary": "c1 mezcla dos ideas.",
    "improvement_suggestions": ["Divide c1."],
}


def recorder(prompts: list[str], answer: dict[str, Any]) -> Callable[[str], dict[str, Any]]:
    """A scripted reply that keeps the prompt it answered (the fake passes it the text)."""

    def reply(prompt: str) -> dict[str, Any]:
        prompts.append(prompt)
        return answer

    return reply


def test_suggestions_reach_the_critique_and_the_refinement(make_harness: MakeHarness) -> None:
    critiques: list[str] = []
    refinements: list[str] = []
    h = make_harness(
        {
            "self_critique": [
                recorder(critiques, FAILING_CRITIQUE),
                recorder(critiques, PASSING_CRITIQUE),
            ],
            "refine_extraction": [recorder(refinements, {"notes": "Sin cambios."})],
        }
    )
    view = h.runs.start(h.add_content("Libro", QUOTES), suggestions=SUGGESTIONS)
    assert view.status == "awaiting_review"
    assert len(critiques) == 2 and len(refinements) == 1
    for prompt in critiques:
        assert SUGGESTIONS in prompt
        assert "7. suggestions:" in prompt  # the criterion the critique judges them by
    assert SUGGESTIONS in refinements[0]
    assert "do not undo what they ask for" in refinements[0]


def test_without_suggestions_the_prompts_do_not_mention_them(make_harness: MakeHarness) -> None:
    critiques: list[str] = []
    refinements: list[str] = []
    h = make_harness(
        {
            "self_critique": [
                recorder(critiques, FAILING_CRITIQUE),
                recorder(critiques, PASSING_CRITIQUE),
            ],
            "refine_extraction": [recorder(refinements, {"notes": "Sin cambios."})],
        }
    )
    h.runs.start(h.add_content("Libro", QUOTES), suggestions="   ")
    assert critiques and refinements
    assert not any("reader's suggestions" in p for p in critiques + refinements)
    assert not any("7. suggestions" in p for p in critiques)


REASON = "Solo describe una fuerza, sin afirmar ninguna idea."
NOTES = "Las citas q1 y q3 tratan de la ciencia; las uní en un concepto."


def test_review_shows_extraction_notes_and_why_quotes_were_left_out(
    make_harness: MakeHarness,
) -> None:
    h = make_harness(
        {
            "extract_concepts": [
                {
                    "candidate_concepts": [concept_reply("La ciencia como instrumento", ["q1"])],
                    "unattributed_quotes": [
                        {"quote_id": "q2", "reason": REASON},
                        {"quote_id": "q9", "reason": "una cita que no existe"},
                    ],
                    "extraction_notes": NOTES,
                }
            ],
            "self_critique": [PASSING_CRITIQUE],
        }
    )
    view = h.runs.start(h.add_content("Libro", QUOTES))
    report = view.report
    assert report is not None
    assert report["extraction_notes"] == [NOTES]
    reasons = {q["text"]: q["reason"] for q in report["unattributed_quotes"]}
    # q3 was left out without a word: it is listed, with no reason to show.
    assert reasons == {QUOTES[1]: REASON, QUOTES[2]: ""}
    # An id the prompt did not show is dropped with a warning, as everywhere else.
    assert any("'q9'" in w for w in report["warnings"])

    console = Console(record=True, width=200)
    print_report(console, report)
    text = console.export_text()
    assert f"why: {REASON}" in text
    assert "Notes from the model" in text and NOTES in text


def test_the_compact_prompt_of_small_models_asks_for_no_notes() -> None:
    from zettelgraph.prompts import extract_concepts as ec

    data = ec.ExtractConceptsInput(
        title="Libro", author=None, quotes=[ec.PromptQuote(id="q1", text=QUOTES[0])]
    )
    full = "\n".join(str(m.content) for m in ec.messages(data))
    compact = "\n".join(
        str(m.content) for m in ec.messages(data.model_copy(update={"compact": True}))
    )
    assert "extraction_notes" in full and "unattributed_quotes" in full
    assert "extraction_notes" not in compact and "unattributed_quotes" not in compact
    assert "extraction_notes" not in ec.CompactExtraction.model_json_schema()["properties"]


def test_a_run_past_its_recursion_limit_is_reviewed_with_what_it_has(
    make_harness: MakeHarness,
) -> None:
    # A critique that never passes and 20 refinement rounds: only the step limit stops it.
    h = make_harness({"self_critique": [FAILING_CRITIQUE]}, critique_max_iterations=20)
    h.runs.recursion_limit = 14
    steps: list[str] = []
    view = h.runs.start(h.add_content("Libro", QUOTES), on_step=steps.append)
    assert view.status == "awaiting_review"
    assert 0 < steps.count("refine") < 20
    assert view.report is not None and view.report["concepts"]
    assert any("recursion limit" in w for w in view.report["warnings"])
    done = h.runs.answer(view.run_id, "approve")
    assert done.status == "committed"
    assert len(h.services.store.list_concepts()) == len(view.report["concepts"])


def test_a_run_stopped_before_any_concept_fails_and_frees_its_content(
    make_harness: MakeHarness,
) -> None:
    h = make_harness({"self_critique": [PASSING_CRITIQUE]})
    cid = h.add_content("Libro", QUOTES)
    h.runs.recursion_limit = 2  # before the extraction's answers are merged
    view = h.runs.start(cid)
    assert view.status == "failed"
    assert any("nothing to review" in w for w in view.warnings)
    content = h.services.store.get_content(cid)
    assert content is not None and content.processed_date is None
    h.runs.recursion_limit = 200
    assert h.runs.start(cid).status == "awaiting_review"  # not held by an open run


def test_a_run_that_ends_on_its_last_allowed_step_is_not_an_error(
    make_harness: MakeHarness,
) -> None:
    h = make_harness({"self_critique": [PASSING_CRITIQUE]})
    view = h.runs.start(h.add_content("Libro", QUOTES))
    # On a resume LangGraph runs the answered step and the limit's steps, then reports the
    # limit even when nothing is left to run: the commit is done, the run is not an error.
    h.runs.recursion_limit = 1
    assert h.runs.answer(view.run_id, "approve").status == "committed"


def test_after_the_readers_decision_the_limit_leaves_the_run_to_resume() -> None:
    assert at_recursion_limit({"status": "approved"}, ["commit"], 200) is None
    update, node = at_recursion_limit(
        {"status": "running", "quotes": [{"id": "x"}]}, ["extract_batch"], 3
    ) or ({}, "")
    assert node == "merge_candidates" and update["status"] == "failed"
