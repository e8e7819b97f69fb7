"""The `synthesize` node: insights across the documents and how the term is used in each group.

The evidence is the tools' own: their one-line findings and the passages they cite (spread
over the documents, the term's concordance first). The model names passages by local id
and the code turns them into [n] markers; an insight with no passage shown is dropped, and
the drop is in the report. A failed call leaves the report with the tools' tables only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from zettelgraph.context import Services
from zettelgraph.experiments.models import ExperimentType, FocusTerm
from zettelgraph.guards import synthesis as guards
from zettelgraph.prompts import experiment_synthesis as prompt
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.text.normalize import normalize_name, word_set
from zettelgraph.workflows.experiment.calls import ask, prompt_documents
from zettelgraph.workflows.experiment.state import (
    Citation,
    Document,
    ExperimentState,
    GroupUsage,
    ShownPassage,
    Synthesis,
    ToolRunRecord,
)

# Passages shown to the model: enough for every document to have its evidence, few enough
# for a small model's context.
MAX_PASSAGES = 12
SMALL_MODEL_PASSAGES = 6
# Tools whose citations contain the term itself come first.
EVIDENCE_ORDER = ("concordance", "cooccurrence", "semantic_drift", "graph_concepts")


def groups_of(
    kind: ExperimentType, documents: Sequence[Document]
) -> tuple[str, dict[str, list[str]]]:
    """(what a group is, each group's content ids, in the groups' order) for the
    term-evolution table."""

    def by(
        key: Literal["year", "domain", "author", "title"], missing: str | None = None
    ) -> dict[str, list[str]]:
        groups: dict[str, list[str]] = {}
        for d in documents:
            value = d.get(key)
            label = str(value) if value is not None else missing
            if label is not None:
                groups.setdefault(label, []).append(d["id"])
        return groups

    if kind is ExperimentType.TEMPORAL:
        years = by("year", "unknown")
        if set(years) - {"unknown"}:
            ordered = sorted((g for g in years if g != "unknown"), key=int)
            return "year", {g: years[g] for g in [*ordered, "unknown"] if g in years}
    if kind is ExperimentType.CROSS_DOMAIN:
        keys: tuple[Literal["domain", "author"], ...] = ("domain", "author")
        for key in keys:
            groups = by(key)
            if len(groups) >= 2:
                return key, groups
    return "document", by("title")


def evidence(runs: Sequence[ToolRunRecord], limit: int) -> list[Citation]:
    """Up to `limit` cited passages, taken in turn from each document so that every one has
    its say, the concordance's first."""
    rank = {name: i for i, name in enumerate(EVIDENCE_ORDER)}
    ordered = sorted(
        (r for r in runs if not r.get("error")), key=lambda r: rank.get(r["tool"], len(rank))
    )
    per_document: dict[str, list[Citation]] = {}
    seen: set[str] = set()
    for run in ordered:
        for citation in run.get("output", {}).get("citations", []):
            if citation["passage_id"] in seen:
                continue
            seen.add(citation["passage_id"])
            per_document.setdefault(citation["content_id"], []).append(citation)
    chosen: list[Citation] = []
    while len(chosen) < limit and any(per_document.values()):
        for queue in per_document.values():
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
    return chosen


def findings(runs: Sequence[ToolRunRecord], ids: LocalIds) -> list[str]:
    """One line per tool result, naming the documents it covers."""
    lines = []
    for run in runs:
        where = ", ".join(ids.local(c) for c in run["document_ids"])
        if run.get("error"):
            lines.append(f"[{run['tool']}] {where}: failed")
        else:
            lines.append(f"[{run['tool']}] {where}: {run['output'].get('summary', '')}")
    return lines


def synthesize(state: ExperimentState, services: Services) -> ExperimentState:
    kind = ExperimentType(state["type"])
    documents = state.get("documents", [])
    runs = state.get("tool_runs", [])
    doc_ids = LocalIds("d", state["content_ids"])
    small = services.llms.main_profile.small
    shown = evidence(runs, SMALL_MODEL_PASSAGES if small else MAX_PASSAGES)
    quote_ids = LocalIds("q", [c["passage_id"] for c in shown])
    grouping, members = groups_of(kind, documents)
    groups = list(members)
    passages: list[ShownPassage] = [{**c, "n": i + 1} for i, c in enumerate(shown)]
    base: Synthesis = {
        "grouping": grouping,
        "groups": groups,
        "passages": passages,
        "findings": findings(runs, doc_ids),
        "insights": [],
        "evolution": [],
        "dropped": [],
    }
    if not shown:
        return {
            "synthesis": base,
            "stage": "synthesize",
            "warnings": ["no tool found a passage with the term: no insights were written"],
        }
    answer, record, warning = ask(
        services,
        name=prompt.NAME,
        messages=prompt.messages(
            prompt.SynthesisInput(
                type=kind,
                term=FocusTerm.model_validate(state["term"]),
                goal=state.get("experiment_goal", ""),
                questions=state.get("questions", []),
                documents=prompt_documents(documents, state.get("term_passages", {}), doc_ids),
                findings=base["findings"],
                groups=groups,
                passages=[
                    prompt.PromptPassage(
                        id=quote_ids.local(c["passage_id"]),
                        document=doc_ids.local(c["content_id"]),
                        source=", ".join(p for p in (c["title"], c.get("location")) if p),
                        text=c["text"],
                    )
                    for c in shown
                ],
                language=state.get("language") or services.settings.concept_language,
            )
        ),
        response_model=prompt.Synthesis,
        sampling=prompt.SAMPLING,
    )
    if answer is None:
        return {
            "synthesis": base,
            "stage": "synthesize",
            "llm_calls": [record],
            "warnings": [f"{warning}; the report has the tools' results only"],
        }
    place = {c["passage_id"]: i + 1 for i, c in enumerate(shown)}

    def markers(sources: Sequence[str]) -> list[int]:
        real = [quote_ids.real(s) for s in sources]
        return sorted({place[r] for r in real if r is not None})

    language = state.get("language") or services.settings.concept_language
    detect = services.detect_language

    def drop(text: str, reason: str) -> None:
        base["dropped"].append({"text": text, "reason": reason})

    said: list[str] = []
    for insight in answer.insights:
        fresh = guards.new_sentences(insight.text, said)
        text = " ".join(fresh)
        cited = markers(insight.sources)
        if not fresh:
            drop(insight.text, "repeats an earlier finding")
        elif not cited:
            drop(text, "cites no passage shown")
        elif guards.off_language(text, language, detect):
            drop(text, f"not written in {language}")
        else:
            said.extend(fresh)
            base["insights"].append({"text": text, "citations": cited})
    known = {normalize_name(g): g for g in groups}
    content_of = {i + 1: c["content_id"] for i, c in enumerate(shown)}
    # Group -> the sentences of its usage and the passages it cites, before the checks.
    rows: dict[str, tuple[list[str], list[int]]] = {}
    for row in answer.evolution:
        group = known.get(normalize_name(row.group))
        text = " ".join(row.usage.split())
        # Only the passages of the group itself speak for how the group uses the term.
        cited = [n for n in markers(row.sources) if content_of[n] in members.get(group or "", [])]
        if group is None:
            drop(text, f"unknown group {row.group!r}")
        elif group in rows:
            drop(text, f"a second usage for {group}")
        elif not cited:
            drop(text, f"cites no passage of {group}")
        elif guards.off_language(text, language, detect):
            drop(text, f"not written in {language}")
        else:
            rows[group] = (guards.new_sentences(text, []), cited)
    term_words = word_set(state["term"]["term"])

    def passages_of(group: str, own: bool) -> str:
        return " ".join(c["text"] for c in shown if (c["content_id"] in members[group]) == own)

    repeated = guards.shared({g: sentences for g, (sentences, _) in rows.items()})
    usages: dict[str, GroupUsage] = {}
    for group, (sentences, cited) in rows.items():
        kept = []
        for i, sentence in enumerate(sentences):
            if i in repeated[group]:
                drop(sentence, "said of another group too")
            elif guards.borrowed(
                sentence, passages_of(group, True), passages_of(group, False), term_words
            ):
                drop(sentence, f"from another group's passages, not {group}'s")
            else:
                kept.append(sentence)
        if kept:
            usages[group] = {"group": group, "usage": " ".join(kept), "citations": cited}
    base["evolution"] = [usages[g] for g in groups if g in usages]
    warnings = []
    if base["dropped"]:
        warnings.append(
            f"{len(base['dropped'])} statement(s) of the synthesis dropped: repeated, not in "
            "the report's language, or not supported by the passages of what they describe "
            "(listed in the report, with the reason for each)"
        )
    return {"synthesis": base, "stage": "synthesize", "llm_calls": [record], "warnings": warnings}
