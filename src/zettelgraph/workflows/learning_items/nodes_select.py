"""Step 1: the concepts to make cards for, with their quotes, and what each still lacks (or
the passages to make cards from straight away: `passages.py`).

A concept (or a passage) that already has a card of some kind (proposed or approved) does
not get another of that kind, and no LLM call is spent on it: cards are reviewed in bulk
over days, and the same question asked twice in other words is noise in a deck. A card the
reader dropped does not count as had; the card made again in its place is new only if its
text differs (ids are a function of type, concepts and front, and an id in the store is never
rewritten). A card a check dropped does count: asking the same model again would mostly pay
for the same miss.
"""

from __future__ import annotations

from zettelgraph.context import Services
from zettelgraph.workflows.learning_items.passages import PASSAGE_KINDS, passage_targets
from zettelgraph.workflows.learning_items.reading import (
    GraphReader,
    kind_of,
    live,
    quote_view,
    stored_items,
)
from zettelgraph.workflows.learning_items.state import GenerationState, Kind, Target

# Kinds made per concept (relation cards are per pair, decided in nodes_items).
CONCEPT_KINDS: tuple[Kind, ...] = ("flashcard", "cloze", "mcq", "chain")
# Quotes kept per target: two for the prompt, the best for the multiple choice and relation
# cards; a concept with forty quotes needs no more to make its cards.
MAX_QUOTES = 6


def select_targets(state: GenerationState, services: Services) -> GenerationState:
    reader = GraphReader(services.store, services.embedder, services.concept_vocabulary)
    had: set[tuple[Kind, str]] = set()
    pairs: set[tuple[str, str]] = set()
    chains: list[list[str]] = []
    for item in stored_items(services.store):
        if not live(item) and not item.provenance.get("dropped_by"):
            continue
        kind = kind_of(item)
        if kind == "relation":
            pairs.add(_pair(item.concept_ids[0], item.concept_ids[-1]))
        elif kind == "chain":
            had.add((kind, item.concept_ids[0]))  # a chain belongs to where it starts
            chains.append(list(item.concept_ids))
        else:
            # A passage card is had by its passage, a concept's card by its concept.
            had.update((kind, subject) for subject in item.subject_ids)
    targets: list[Target] = []
    skipped: dict[str, int] = {kind: 0 for kind in CONCEPT_KINDS}
    covered = 0
    for concept_id in dict.fromkeys(state.get("concept_ids", [])):
        concept = reader.concept(concept_id)
        if concept is None:
            continue
        make = [kind for kind in CONCEPT_KINDS if (kind, concept.id) not in had]
        for kind in CONCEPT_KINDS:
            skipped[kind] += kind not in make
        if "flashcard" not in make and "cloze" not in make:
            covered += 1
        quotes = reader.quotes(concept)
        targets.append(
            Target(
                id=concept.id,
                title=concept.title,
                concept=concept.concept,
                summary_short=concept.summary_short,
                content_ids=reader.content_ids(concept),
                quotes=[quote_view(q) for q in quotes[:MAX_QUOTES]],
                make=make,
                passage_kind="",
                place="",
            )
        )
    passages = passage_targets(services.store, state.get("quote_ids", []), had)
    for kind in PASSAGE_KINDS:
        skipped[kind] = skipped.get(kind, 0) + passages.skipped.get(kind, 0)
    return {
        "targets": [*targets, *passages.targets],
        "covered_pairs": [list(p) for p in sorted(pairs)],
        "covered_chains": chains,
        "skipped": skipped,
        "skipped_concepts": covered + passages.covered,
    }


def _pair(a: str, b: str) -> tuple[str, str]:
    first, second = sorted((a, b))
    return first, second
