"""Phase 1 steps 1.2-1.3 (self-critique, refinement) and phase 2 (human review, feedback)."""

from __future__ import annotations

from typing import Any, TypeVar

from langchain_core.messages import BaseMessage

from zettelgraph.llm.structured import SOFT_LLM_ERRORS
from zettelgraph.prompts import incorporate_feedback, refine_extraction, self_critique
from zettelgraph.prompts.proposal_patch import ProposalPatch, typed_patch
from zettelgraph.workflows.concept_extraction.decisions import describe_decided, protect_decided
from zettelgraph.workflows.concept_extraction.nodes_checks import guard_relations
from zettelgraph.workflows.concept_extraction.nodes_extract import llm_call
from zettelgraph.workflows.concept_extraction.proposal import (
    apply_patch,
    existing_map,
    quote_map,
    render_proposal,
    render_quotes,
)
from zettelgraph.workflows.concept_extraction.report import build_report, existing_titles
from zettelgraph.workflows.concept_extraction.state import ExtractionState
from zettelgraph.workflows.context import Services
from zettelgraph.workflows.review import ask_reader


def _views(state: ExtractionState, services: Services) -> dict[str, Any]:
    """What every proposal-level prompt shows: quotes and proposal with local ids."""
    quotes = state.get("quotes", [])
    qmap = quote_map(quotes)
    proposal = state["proposal"]
    emap = existing_map(proposal)
    titles = existing_titles(services.store, proposal)
    return {
        "qmap": qmap,
        "emap": emap,
        "titles": titles,
        "quotes": render_quotes(quotes, qmap),
        "proposal": render_proposal(proposal, qmap, emap, titles),
    }


def self_critique_node(state: ExtractionState, services: Services) -> dict[str, Any]:
    iteration = state.get("phase_1_iteration", 0)
    views = _views(state, services)
    call = llm_call(self_critique.NAME, services.llms.main_spec, f"iteration {iteration}")
    try:
        critique = services.structured(
            services.llms.main,
            name=self_critique.NAME,
            messages=self_critique.messages(
                self_critique.SelfCritiqueInput(
                    proposal=views["proposal"],
                    quotes=views["quotes"],
                    language=services.settings.concept_language,
                    suggestions=state.get("suggestions"),
                )
            ),
            response_model=self_critique.Critique,
        )
    except SOFT_LLM_ERRORS as exc:
        # Without a critique there is nothing to refine: the reader reviews what there is.
        return {
            "quality_passes": True,
            "critique_log": [{"iteration": iteration, "error": str(exc)}],
            "warnings": [f"self-critique failed, proposal sent to review as is: {exc}"],
            "llm_calls": [call],
        }
    passes = critique.overall_passes and not critique.failed_criteria
    return {
        "quality_passes": passes,
        "critique_log": [{"iteration": iteration, "passes": passes, **critique.model_dump()}],
        "llm_calls": [call],
    }


def refine_node(state: ExtractionState, services: Services) -> dict[str, Any]:
    iteration = state.get("phase_1_iteration", 0)
    views = _views(state, services)
    last = state.get("critique_log", [{}])[-1]
    critique_text = "\n".join(
        [
            str(last.get("critique_summary", "")),
            *(
                f"- [{i['criterion']}] {i['subject_id']}: {i['issue']}"
                for i in last.get("issues", [])
            ),
            *(f"* {s}" for s in last.get("improvement_suggestions", [])),
        ]
    )
    messages = refine_extraction.messages(
        refine_extraction.RefineInput(
            proposal=views["proposal"],
            quotes=views["quotes"],
            critique=critique_text,
            language=services.settings.concept_language,
            # So the refinement cannot undo what the reader asked the extraction for.
            suggestions=state.get("suggestions"),
        )
    )
    patch, update = _patch_proposal(
        state,
        services,
        views,
        refine_extraction.NAME,
        iteration + 1,
        messages,
        refine_extraction.Refinement,
    )
    if patch is None:
        update["warnings"] = [
            f"refinement {iteration + 1} failed, proposal kept: {update.pop('error')}"
        ]
    return {**update, "phase_1_iteration": iteration + 1}


PatchT = TypeVar("PatchT", bound=ProposalPatch)


def _patch_proposal(
    state: ExtractionState,
    services: Services,
    views: dict[str, Any],
    call_name: str,
    round_number: int,
    messages: list[BaseMessage],
    response_model: type[PatchT],
) -> tuple[PatchT | None, dict[str, Any]]:
    """Ask for a patch and apply it; on an LLM failure the proposal stays as it was.

    Returns the patch (None on failure, with the reason under "error") and the state update.
    """
    call = llm_call(call_name, services.llms.main_spec, f"round {round_number}")
    typed = typed_patch(response_model, services.concept_vocabulary)
    try:
        patch = services.structured(
            services.llms.main, name=call_name, messages=messages, response_model=typed
        )
    except SOFT_LLM_ERRORS as exc:
        return None, {"llm_calls": [call], "error": str(exc)}
    proposal, warnings = apply_patch(
        state["proposal"],
        patch,
        qmap=views["qmap"],
        emap=views["emap"],
        titles=views["titles"],
        call=f"{call_name}#{round_number}",
        vocabulary=services.concept_vocabulary,
    )
    # A patch is model output like any other: its relations pass the same checks.
    proposal, findings = guard_relations(proposal, services)
    return patch, {
        "proposal": proposal,
        "warnings": [*warnings, *(f.message() for f in findings)],
        "check_log": [f.as_dict() for f in findings],
        "llm_calls": [call],
    }


def present_for_review(state: ExtractionState, services: Services) -> dict[str, Any]:
    """Pause for the reader (`interrupt`); resume with approve, feedback or abort."""
    report = build_report(state, services.store, services.concept_vocabulary)
    rounds = state.get("phase_2_iteration", 0)
    return ask_reader(report, rounds, services.settings.review_max_rounds)


def incorporate_feedback_node(state: ExtractionState, services: Services) -> dict[str, Any]:
    rounds = state.get("phase_2_iteration", 0) + 1
    feedback = state.get("human_feedback") or ""
    views = _views(state, services)
    log_entry: dict[str, Any] = {"round": rounds, "feedback": feedback}
    messages = incorporate_feedback.messages(
        incorporate_feedback.FeedbackInput(
            proposal=views["proposal"],
            quotes=views["quotes"],
            feedback=feedback,
            language=services.settings.concept_language,
            decided=describe_decided(state.get("review")),
        )
    )
    patch, update = _patch_proposal(
        state,
        services,
        views,
        incorporate_feedback.NAME,
        rounds,
        messages,
        incorporate_feedback.FeedbackPatch,
    )
    if patch is None:
        error = update.pop("error")
        log_entry["error"] = error
        update["warnings"] = [f"feedback round {rounds} could not be applied: {error}"]
    else:
        log_entry.update(
            interpretation=patch.feedback_interpretation, unresolved=patch.unresolved_feedback
        )
        # Feedback applies to what the reader has not decided: decided items stay as they were.
        protected, put_back = protect_decided(
            state["proposal"], update["proposal"], state.get("review"), f"feedback round {rounds}"
        )
        update["proposal"] = protected
        update["warnings"] = [*update.get("warnings", []), *put_back]
    return {**update, "phase_2_iteration": rounds, "decision": None, "feedback_log": [log_entry]}
