"""The rules of an experiment's strategy (which tool runs on which document), in one place:
the tools each experiment type usually needs, and what makes a strategy runnable. The
workflow applies them to the model's recommendation, the services to the reader's changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from zettelgraph.experiments.models import ExperimentType
from zettelgraph.experiments.registry import Tool

Strategy = dict[str, list[str]]  # content id -> tool names, in registry order

# What each type of experiment usually needs first: time and drift for temporal questions,
# groups and their words for cross-domain ones, the documents' own content and the graph for
# close reading.
PREFERRED: dict[ExperimentType, tuple[str, ...]] = {
    ExperimentType.TEMPORAL: (
        "term_frequency",
        "semantic_drift",
        "temporal_expressions",
        "concordance",
        "cooccurrence",
    ),
    ExperimentType.CROSS_DOMAIN: (
        "term_frequency",
        "semantic_drift",
        "cooccurrence",
        "named_entities",
        "concordance",
    ),
    ExperimentType.DOCUMENT_ANALYSIS: (
        "concordance",
        "cooccurrence",
        "named_entities",
        "term_frequency",
        "graph_concepts",
        "graph_measures",
    ),
    ExperimentType.SINGLE_DOCUMENT: (
        "concordance",
        "cooccurrence",
        "named_entities",
        "temporal_expressions",
        "graph_concepts",
        "graph_measures",
    ),
}
# Tools that compare documents: over one document they have nothing to compare.
NEEDS_TWO_DOCUMENTS = frozenset({"semantic_drift"})


class StrategyError(ValueError):
    """A strategy that cannot run, with every reason."""


def default_strategy(
    kind: ExperimentType, content_ids: Sequence[str], tools: Mapping[str, Tool]
) -> Strategy:
    """The type's usual tools on every document (what runs when the model's plan is unusable)."""
    names = [name for name in PREFERRED[kind] if name in tools]
    if len(content_ids) < 2:
        names = [name for name in names if name not in NEEDS_TWO_DOCUMENTS]
    return {content_id: list(names) for content_id in content_ids}


def clean_strategy(
    strategy: Mapping[str, Sequence[str]],
    content_ids: Sequence[str],
    tools: Mapping[str, Tool],
) -> tuple[Strategy, list[str]]:
    """The runnable part of `strategy` and one line per thing left out (an unknown document
    or tool, a tool repeated, a comparing tool given a single document)."""
    problems: list[str] = []
    order = {name: i for i, name in enumerate(tools)}
    clean: Strategy = {}
    for content_id, names in strategy.items():
        if content_id not in content_ids:
            problems.append(f"document {content_id} is not in this experiment")
            continue
        kept: list[str] = []
        for name in names:
            if name not in tools:
                problems.append(f"{name} is not a tool (the tools: {', '.join(tools)})")
            elif name not in kept:
                kept.append(name)
        clean[content_id] = sorted(kept, key=order.__getitem__)
    for name in NEEDS_TWO_DOCUMENTS:
        holders = [cid for cid, names in clean.items() if name in names]
        if len(holders) == 1:
            clean[holders[0]].remove(name)
            problems.append(f"{name} compares documents and was given only one")
    for content_id in content_ids:
        clean.setdefault(content_id, [])
    return {cid: clean[cid] for cid in content_ids}, problems


def check_strategy(
    strategy: Mapping[str, Sequence[str]],
    content_ids: Sequence[str],
    tools: Mapping[str, Tool],
) -> Strategy:
    """`strategy` as it will run, or StrategyError naming everything wrong with it: what a
    reader's modified strategy must pass (a reader's choice is not silently trimmed)."""
    clean, problems = clean_strategy(strategy, content_ids, tools)
    if not any(clean.values()):
        problems.append("no tool is chosen for any document")
    if problems:
        raise StrategyError("; ".join(problems))
    return clean
