"""Stages 1-3: analyse the experiment, recommend a strategy, and wait for the reader's review.

Each LLM stage has a fallback the reader can see: without a usable analysis the goal is the
reader's own (or one built from the type and term); without a usable recommendation the
type's usual tools run on every document. A recommendation is cleaned by the strategy rules
(`experiments.strategy`) before the reader sees it, and every cut is a warning.
"""

from __future__ import annotations

from typing import Any

from langgraph.types import interrupt

from zettelgraph.context import Services
from zettelgraph.experiments.models import ExperimentType, FocusTerm
from zettelgraph.experiments.registry import load_documents
from zettelgraph.experiments.strategy import (
    PREFERRED,
    StrategyError,
    check_strategy,
    clean_strategy,
    default_strategy,
)
from zettelgraph.experiments.text import passages_with_term
from zettelgraph.experiments.tools import TOOLS
from zettelgraph.models import utcnow
from zettelgraph.prompts import experiment_analysis, experiment_strategy
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.workflows.experiment.calls import ask, prompt_documents
from zettelgraph.workflows.experiment.state import Document, ExperimentState
from zettelgraph.workflows.records import as_record

DECISIONS = ("approve", "modify", "reject")


def _term(state: ExperimentState) -> FocusTerm:
    return FocusTerm.model_validate(state["term"])


def report_language(goal: str | None, services: Services) -> str:
    """The experiment speaks the language of the reader's goal (as `ask` answers in the
    question's); without a goal, or one too short to tell, the concept language."""
    detected = services.detect_language(goal) if goal and len(goal.split()) >= 3 else None
    return detected or services.settings.concept_language


def analyze(state: ExperimentState, services: Services) -> ExperimentState:
    """The `analyze` node: the documents' metadata, the passages with the term, and the goal."""
    kind = ExperimentType(state["type"])
    term = _term(state)
    language = report_language(state.get("goal"), services)
    documents = load_documents(services.store, state["content_ids"])
    counts = {
        d.info.id: len(passages_with_term(d.passages, term.term, term.match)) for d in documents
    }
    infos = [as_record(Document, d.info.model_dump(mode="json")) for d in documents]
    update: ExperimentState = {
        "documents": infos,
        "term_passages": counts,
        "language": language,
        "stage": "analyze",
    }
    if not any(d.passages for d in documents):
        return {
            **update,
            "status": "failed",
            "warnings": ["none of the documents has passages to read: ingest them first"],
        }
    if not any(counts.values()):
        update["warnings"] = [
            f"no passage contains {term.term!r}: the tools will find little (check the "
            "spelling, or choose other documents)"
        ]
    ids = LocalIds("d", state["content_ids"])
    answer, record, warning = ask(
        services,
        name=experiment_analysis.NAME,
        messages=experiment_analysis.messages(
            experiment_analysis.AnalysisInput(
                type=kind,
                term=term,
                goal=state.get("goal"),
                documents=prompt_documents(infos, counts, ids),
                language=language,
            )
        ),
        response_model=experiment_analysis.ExperimentAnalysis,
        sampling=experiment_analysis.SAMPLING,
    )
    warnings = list(update.get("warnings", []))
    if answer is None:
        warnings.append(f"{warning}; the goal is the reader's own")
        goal = state.get("goal") or f"{kind.value}: how the documents use {term.term!r}"
        return {
            **update,
            "experiment_goal": goal,
            "term_context": term.definition,
            "questions": [],
            "llm_calls": [record],
            "warnings": warnings,
        }
    return {
        **update,
        "experiment_goal": state.get("goal") or answer.goal,
        "term_context": answer.term_context,
        "questions": answer.questions,
        "llm_calls": [record],
        "warnings": warnings,
    }


def recommend(state: ExperimentState, services: Services) -> ExperimentState:
    """The `recommend` node: which tools on which documents, why, and how sure the model is."""
    kind = ExperimentType(state["type"])
    content_ids = state["content_ids"]
    ids = LocalIds("d", content_ids)
    data = experiment_strategy.StrategyInput(
        type=kind,
        term=_term(state),
        goal=state.get("experiment_goal", ""),
        term_context=state.get("term_context", ""),
        documents=prompt_documents(state["documents"], state.get("term_passages", {}), ids),
        tools=[
            experiment_strategy.PromptTool(
                name=tool.name, scope=tool.scope, description=tool.description
            )
            for tool in TOOLS.values()
        ],
        preferred=[name for name in PREFERRED[kind] if name in TOOLS],
        language=state.get("language") or services.settings.concept_language,
    )
    answer, record, warning = ask(
        services,
        name=experiment_strategy.NAME,
        messages=experiment_strategy.messages(data),
        response_model=experiment_strategy.StrategyRecommendation,
        sampling=experiment_strategy.SAMPLING,
        schema=experiment_strategy.request_schema(data),
    )
    warnings: list[str] = []
    strategy: dict[str, list[str]] = {}
    if answer is not None:
        proposed: dict[str, list[str]] = {}
        for assignment in answer.assignments:
            real = ids.real(assignment.document)
            if real is None:
                warnings.append(f"the model named document {assignment.document}, not shown")
                continue
            proposed.setdefault(real, []).extend(assignment.tools)
        strategy, problems = clean_strategy(proposed, content_ids, TOOLS)
        warnings += [f"strategy: {problem}: left out" for problem in problems]
    if answer is None or not any(strategy.values()):
        warnings.append(
            (warning or "the model chose no usable tool")
            + f"; the {kind.value} defaults are proposed instead"
        )
        return {
            "recommended_strategy": default_strategy(kind, content_ids, TOOLS),
            "strategy_reasoning": "",
            "confidence": None,
            "strategy_source": "defaults",
            "stage": "recommend",
            "llm_calls": [record],
            "warnings": warnings,
        }
    return {
        "recommended_strategy": strategy,
        "strategy_reasoning": answer.reasoning,
        "confidence": answer.confidence,
        "strategy_source": "model",
        "stage": "recommend",
        "llm_calls": [record],
        "warnings": warnings,
    }


def review_report(state: ExperimentState) -> dict[str, Any]:
    """What the reader decides on: the plan, why, and what each tool does."""
    return {
        "run_id": state.get("run_id"),
        "kind": "experiment",
        "type": state["type"],
        "term": state["term"],
        "goal": state.get("experiment_goal", ""),
        "term_context": state.get("term_context", ""),
        "questions": state.get("questions", []),
        "documents": state.get("documents", []),
        "term_passages": state.get("term_passages", {}),
        "strategy": state.get("recommended_strategy", {}),
        "reasoning": state.get("strategy_reasoning", ""),
        "confidence": state.get("confidence"),
        "strategy_source": state.get("strategy_source", "model"),
        "tools": [
            {"name": t.name, "title": t.title, "scope": t.scope, "description": t.description}
            for t in TOOLS.values()
        ],
        "warnings": list(dict.fromkeys(state.get("warnings", []))),
    }


def review(state: ExperimentState, services: Services) -> ExperimentState:
    """The `review` node: pause for the reader (`interrupt`): approve the plan, run a modified
    one, or reject the experiment. A modified plan that cannot run is refused before the resume by
    the services; checked again here, it ends the experiment rather than run half of it."""
    answer = interrupt({"action": "experiment_review", "report": review_report(state)})
    action = answer.get("action") if isinstance(answer, dict) else None
    if action not in DECISIONS:
        raise ValueError(f"an experiment review is one of {', '.join(DECISIONS)}, not {answer!r}")
    notes = str(answer.get("notes") or "").strip()
    decided: ExperimentState = {
        "decision": action,
        "review_notes": notes,
        "reviewed_at": utcnow().isoformat(),
        "stage": "review",
    }
    if action == "reject":
        return {**decided, "status": "rejected"}
    strategy = state.get("recommended_strategy", {})
    if action == "modify":
        try:
            strategy = check_strategy(answer.get("strategy") or {}, state["content_ids"], TOOLS)
        except StrategyError as exc:
            return {**decided, "status": "rejected", "warnings": [f"modified strategy: {exc}"]}
        decided["modified_strategy"] = strategy
    return {**decided, "approved_strategy": strategy, "status": "executing"}
