"""Step 3 (no LLM): the cards the graph itself gives.

- Multiple choice: "which idea does this quote express?", the concept's title among 2-3
  neighbouring concepts' titles, first those a reviewed relation links to it, then the nearest
  by meaning. Wrong options are plausible (neighbours) and wrong for a reason the card can
  show: how the neighbour relates to the right idea, or what the neighbour says instead.
- Relation: "how does A relate to B?" once per related pair, from the relation as the model
  proposed and the reader approved it (not the reverse the store added).
- Chain: "what chain of ideas leads from A to C?" over A -> B -> C where A and C are not
  related directly; at most one per concept, the most confident path.
"""

from __future__ import annotations

from typing import Any

from zettelgraph.context import Services
from zettelgraph.guards.cards import distractor_problem
from zettelgraph.guards.grounding import cosine
from zettelgraph.models import Concept, LearningItem
from zettelgraph.settings import Settings
from zettelgraph.workflows.learning_items.items import (
    Edge,
    Made,
    card_record,
    chain_card,
    mcq_card,
    relation_card,
    why_wrong,
)
from zettelgraph.workflows.learning_items.reading import GraphReader
from zettelgraph.workflows.learning_items.state import GenerationState, Target

MAX_DISTRACTORS = 3
# Nearest concepts looked at for wrong options once the linked ones are used up.
NEIGHBOURS = 12


def graph_items(state: GenerationState, services: Services) -> GenerationState:
    reader = GraphReader(services.store, services.embedder, services.concept_vocabulary)
    settings = services.settings
    base = {"generator": "graph", "model": None, "calls": 0, "generation": state["generation_id"]}
    covered = {(p[0], p[1]) for p in state.get("covered_pairs", [])}
    skipped = {**state.get("skipped", {}), "relation": 0}
    made_pairs: set[tuple[str, str]] = set()
    chain_ends = {
        (frozenset((c[0], c[-1])), c[1]) for c in state.get("covered_chains", []) if len(c) == 3
    }
    items: list[LearningItem] = []
    for target in state.get("targets", []):
        concept = reader.concept(target["id"])
        if concept is None:
            continue
        if "mcq" in target["make"]:
            mcq = multiple_choice(
                concept, target, reader, settings, base, services.thresholds.merge
            )
            if mcq is not None:
                items.append(mcq)
        for edge in reader.edges(concept.id):
            pair = _pair(edge.source, edge.target)
            if pair in made_pairs:
                continue
            made_pairs.add(pair)
            if pair in covered:
                skipped["relation"] += 1
                continue
            given = pair_relation(reader, *pair)
            items.append(
                relation_card(
                    given,
                    _titles(reader, pair),
                    _made(reader, [given.source, given.target], settings, base),
                )
            )
        if "chain" in target["make"]:
            path = best_chain(concept.id, reader, chain_ends)
            if path is not None:
                first, second = path
                ids = [first.source, first.target, second.target]
                chain_ends.add((frozenset((ids[0], ids[2])), ids[1]))
                items.append(
                    chain_card(
                        first, second, _titles(reader, ids), _made(reader, ids, settings, base)
                    )
                )
    return {"graph_items": [card_record(i) for i in items], "skipped": skipped}


def multiple_choice(
    concept: Concept,
    target: Target,
    reader: GraphReader,
    settings: Settings,
    base: dict[str, Any],
    merge_threshold: float,
) -> LearningItem | None:
    """The concept's multiple-choice card on its closest quote, with as many wrong options
    as its neighbourhood gives (up to three); the checks drop it with fewer than two."""
    if not target["quotes"]:
        return None
    quote = target["quotes"][0]
    sharing = reader.supported_by(quote["id"])
    linked = [reader.concept(e.target) for e in reader.edges(concept.id)]
    candidates = [c for c in linked if c is not None] + reader.nearest(concept, NEIGHBOURS)
    chosen: list[Concept] = []
    reasons: list[str] = []
    for candidate in {c.id: c for c in candidates if c.id != concept.id}.values():
        vector = reader.vector(candidate)
        similarity = max(cosine(vector, reader.vector(c)) for c in [concept, *chosen])
        if distractor_problem(
            candidate.title,
            right_title=concept.title,
            chosen_titles=[c.title for c in chosen],
            shares_the_quote=candidate.id in sharing,
            similarity=similarity,
            merge_threshold=merge_threshold,
        ):
            continue
        # How the wrong option relates to the right one, read from the wrong one.
        edge = next((e for e in reader.edges(candidate.id) if e.target == concept.id), None)
        reasons.append(
            why_wrong(
                candidate.title,
                concept.title,
                edge,
                candidate.summary_short or candidate.concept,
                settings.concept_language,
            )
        )
        chosen.append(candidate)
        if len(chosen) == MAX_DISTRACTORS:
            break
    made = Made(
        concept_ids=[concept.id],
        quote_ids=[quote["id"]],
        content_ids=[*target["content_ids"], quote["content_id"]],
        language=settings.concept_language,
        provenance=dict(base),
    )
    return mcq_card(
        concept.title,
        quote["text"],
        list(zip([c.title for c in chosen], reasons, strict=True)),
        made,
    )


def pair_relation(reader: GraphReader, a: str, b: str) -> Edge:
    """The relation of a pair as it was proposed and approved (not the automatic reverse),
    the most confident when a pair has several."""
    both = [e for e in reader.edges(a) if e.target == b] + [
        e for e in reader.edges(b) if e.target == a
    ]
    given = [e for e in both if e.given] or both
    return max(given, key=lambda e: (e.confidence, e.source == a, e.type))


def best_chain(
    start: str, reader: GraphReader, taken: set[tuple[frozenset[str], str]]
) -> tuple[Edge, Edge] | None:
    """The most confident path start -> B -> C with start and C not related directly, and
    not the same path as one already made from C's end (ties: the smallest ids)."""
    direct = {e.target for e in reader.edges(start)}
    paths = [
        (first, second)
        for first in reader.edges(start)
        for second in reader.edges(first.target)
        if second.target not in (start, first.target)
        and second.target not in direct
        and (frozenset((start, second.target)), first.target) not in taken
    ]
    if not paths:
        return None
    return min(
        paths,
        key=lambda p: (-(p[0].confidence + p[1].confidence), p[0].target, p[1].target, p[1].type),
    )


def _pair(a: str, b: str) -> tuple[str, str]:
    first, second = sorted((a, b))
    return first, second


def _titles(reader: GraphReader, ids: Any) -> dict[str, str]:
    titles = {}
    for concept_id in ids:
        concept = reader.concept(concept_id)
        titles[concept_id] = concept.title if concept else concept_id[:8]
    return titles


def _made(reader: GraphReader, ids: list[str], settings: Settings, base: dict[str, Any]) -> Made:
    """What a card over several concepts cites: the closest quote of each, their books."""
    quotes: list[str] = []
    contents: list[str] = []
    for concept_id in ids:
        concept = reader.concept(concept_id)
        if concept is None:
            continue
        best = reader.quotes(concept)[:1]
        quotes.extend(q.id for q in best)
        contents.extend(reader.content_ids(concept))
    return Made(
        concept_ids=ids,
        quote_ids=quotes,
        content_ids=contents,
        language=settings.concept_language,
        provenance=dict(base),
    )
