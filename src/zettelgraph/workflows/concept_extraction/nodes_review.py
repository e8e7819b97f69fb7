"""Self-critique and refinement before the review, then the reader's review and feedback."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from langchain_core.messages import BaseMessage

from zettelgraph.context import Services
from zettelgraph.prompts import incorporate_feedback, refine_extraction, self_critique
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.prompts.proposal_patch import ProposalPatch, typed_patch
from zettelgraph.workflows.calls import ask
from zettelgraph.workflows.concept_extraction.feedback import (
    confine,
    describe_decided,
    focus_groups,
    focused,
    protect_decided,
)
from zettelgraph.workflows.concept_extraction.nodes_checks import guard_relations
from zettelgraph.workflows.concept_extraction.proposal import (
    apply_patch,
    existing_map,
    quote_map,
    render_proposal,
    render_quotes,
)
from zettelgraph.workflows.concept_extraction.report import build_report, existing_titles
from zettelgraph.workflows.concept_extraction.state import (
    CritiqueEntry,
    ExtractionState,
    FeedbackEntry,
    Proposal,
)
from zettelgraph.workflows.review import ReaderAnswer, ask_reader


@dataclass(frozen=True)
class Views:
    """The quotes and the proposal as a prompt shows them, and the local ids they use."""

    qmap: LocalIds  # q1, q2 ... -> Quote ids
    emap: LocalIds  # e1, e2 ... -> existing Concept ids
    titles: dict[str, str]  # existing Concept id -> its title
    quotes: str
    proposal: str


def _views(state: ExtractionState, services: Services, shown: Proposal | None = None) -> Views:
    """What every proposal-level prompt shows: quotes and proposal with local ids; with
    `shown` (a part of the proposal), only that part and the quotes it cites, numbered as
    in the whole."""
    quotes = state.get("quotes", [])
    qmap = quote_map(quotes)
    proposal = shown if shown is not None else state["proposal"]
    emap = existing_map(proposal)
    titles = existing_titles(services.store, proposal)
    if shown is not None:
        cited = {q for c in shown["concepts"] for q in c["quote_ids"]}
        quotes = [q for q in quotes if q["id"] in cited]
    return Views(
        qmap=qmap,
        emap=emap,
        titles=titles,
        quotes=render_quotes(quotes, qmap),
        proposal=render_proposal(proposal, qmap, emap, titles),
    )


def self_critique_node(state: ExtractionState, services: Services) -> ExtractionState:
    iteration = state.get("phase_1_iteration", 0)
    views = _views(state, services)
    data = self_critique.SelfCritiqueInput(
        proposal=views.proposal,
        quotes=views.quotes,
        language=services.settings.concept_language,
        suggestions=state.get("suggestions"),
    )
    asked = ask(
        services,
        name=self_critique.NAME,
        messages=self_critique.messages(data),
        response_model=self_critique.Critique,
        subject=f"iteration {iteration}",
    )
    if asked.answer is None:
        # Without a critique there is nothing to refine: the reader reviews what there is.
        as_is: ExtractionState = {
            "quality_passes": True,
            "critique_log": [{"iteration": iteration, "error": str(asked.error)}],
        }
        return asked.failed(as_is, "self-critique failed, proposal sent to review as is")
    critique = asked.answer
    passes = critique.overall_passes and not critique.failed_criteria
    return {
        "quality_passes": passes,
        "critique_log": [_critique_entry(iteration, passes, critique)],
        "llm_calls": [asked.record],
    }


def _critique_entry(
    iteration: int, passes: bool, critique: self_critique.Critique
) -> CritiqueEntry:
    return {
        "iteration": iteration,
        "passes": passes,
        "failed_criteria": list(critique.failed_criteria),
        "issues": [
            {
                "criterion": i.criterion,
                "subject_id": i.subject_id,
                "issue": i.issue,
                "severity": i.severity,
            }
            for i in critique.issues
        ],
        "overall_passes": critique.overall_passes,
        "critique_summary": critique.critique_summary,
        "improvement_suggestions": critique.improvement_suggestions,
    }


def refine_node(state: ExtractionState, services: Services) -> ExtractionState:
    iteration = state.get("phase_1_iteration", 0)
    views = _views(state, services)
    log = state.get("critique_log", [])
    last = log[-1] if log else CritiqueEntry(iteration=iteration)
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
            proposal=views.proposal,
            quotes=views.quotes,
            critique=critique_text,
            language=services.settings.concept_language,
            # So the refinement cannot undo what the reader asked the extraction for.
            suggestions=state.get("suggestions"),
        )
    )
    patch, update, error = _patch_proposal(
        state["proposal"],
        services,
        views,
        refine_extraction.NAME,
        iteration + 1,
        messages,
        refine_extraction.Refinement,
    )
    if patch is None:
        update["warnings"] = [f"refinement {iteration + 1} failed, proposal kept: {error}"]
    return {**update, "phase_1_iteration": iteration + 1}


PatchT = TypeVar("PatchT", bound=ProposalPatch)


def _patch_proposal(
    proposal: Proposal,
    services: Services,
    views: Views,
    call_name: str,
    round_number: int,
    messages: list[BaseMessage],
    response_model: type[PatchT],
    confine_to: Sequence[str] | None = None,
) -> tuple[PatchT | None, ExtractionState, str]:
    """Ask for a patch of `proposal` and apply it; on an LLM failure the proposal stays as it
    was. `confine_to`: the concept keys the call was shown, the only ones it may change.

    Returns the patch (None on failure), the state update and why it failed ("" if not).
    """
    typed = typed_patch(response_model, services.concept_vocabulary)
    asked = ask(
        services,
        name=call_name,
        messages=messages,
        response_model=typed,
        subject=f"round {round_number}",
    )
    if asked.answer is None:
        return None, {"llm_calls": [asked.record]}, str(asked.error)
    patch = asked.answer
    confined: list[str] = []
    if confine_to is not None:
        patch, confined = confine(patch, confine_to, proposal, f"{call_name}#{round_number}")
    proposal, warnings = apply_patch(
        proposal,
        patch,
        qmap=views.qmap,
        emap=views.emap,
        titles=views.titles,
        call=f"{call_name}#{round_number}",
        vocabulary=services.concept_vocabulary,
    )
    # A patch is model output like any other: its relations pass the same checks.
    proposal, findings = guard_relations(proposal, services)
    return (
        patch,
        {
            "proposal": proposal,
            "warnings": [*confined, *warnings, *(f.message() for f in findings)],
            "check_log": [f.as_dict() for f in findings],
            "llm_calls": [asked.record],
        },
        "",
    )


def present_for_review(state: ExtractionState, services: Services) -> ReaderAnswer:
    """Pause for the reader (`interrupt`); resume with approve, feedback or abort."""
    report = build_report(state, services.store, services.concept_vocabulary)
    rounds = state.get("phase_2_iteration", 0)
    return ask_reader(report, rounds, services.settings.review_max_rounds)


def incorporate_feedback_node(state: ExtractionState, services: Services) -> ExtractionState:
    """The reader's feedback as patches: one call over the whole proposal, or on a small
    model one per group of concepts (feedback.focus_groups). A failed call ends the round
    with what was applied before it; the run goes back to the reader either way."""
    rounds = state.get("phase_2_iteration", 0) + 1
    feedback = state.get("human_feedback") or ""
    review = state.get("review")
    small = services.llms.main_profile.small
    groups = focus_groups(state["proposal"], feedback, review, small=small)
    log_entry: FeedbackEntry = {"round": rounds, "feedback": feedback}
    proposal = state["proposal"]
    update: ExtractionState = {"llm_calls": [], "warnings": [], "check_log": []}
    interpretations: list[str] = []
    unresolved: list[str] = []
    for number, keys in enumerate(groups, 1):
        shown = focused(proposal, keys) if keys else None
        views = _views({**state, "proposal": proposal}, services, shown)
        messages = incorporate_feedback.messages(
            incorporate_feedback.FeedbackInput(
                proposal=views.proposal,
                quotes=views.quotes,
                feedback=feedback,
                language=services.settings.concept_language,
                decided="" if keys else describe_decided(review),
            )
        )
        patch, step, error = _patch_proposal(
            proposal,
            services,
            views,
            incorporate_feedback.NAME,
            rounds,
            messages,
            incorporate_feedback.FeedbackPatch,
            confine_to=keys or None,
        )
        update["llm_calls"] += step["llm_calls"]
        if patch is None:
            done = f" (after {number - 1} of {len(groups)} calls)" if len(groups) > 1 else ""
            log_entry["error"] = error
            update["warnings"].append(
                f"feedback round {rounds} stopped{done}: {error}; the concepts it had "
                "not reached are as they were"
            )
            break
        proposal = step["proposal"]
        update["warnings"] += step["warnings"]
        update["check_log"] += step["check_log"]
        interpretations.append(patch.feedback_interpretation)
        unresolved.append(patch.unresolved_feedback)
    log_entry["interpretation"] = " ".join(t for t in interpretations if t)
    log_entry["unresolved"] = " ".join(t for t in unresolved if t)
    # Feedback applies to what the reader has not decided: decided items stay as they were.
    protected, put_back = protect_decided(
        state["proposal"], proposal, review, f"feedback round {rounds}"
    )
    # What the round changed, as it was before: check_revisions puts back a revision that
    # fails the concept checks.
    old = {c["key"]: c for c in state["proposal"]["concepts"]}
    log_entry["before"] = {
        c["key"]: old[c["key"]]
        for c in protected["concepts"]
        if c["key"] in old and c != old[c["key"]]
    }
    return {
        **update,
        "proposal": protected,
        "warnings": [*update["warnings"], *put_back],
        "phase_2_iteration": rounds,
        "decision": None,
        "feedback_log": [log_entry],
    }
