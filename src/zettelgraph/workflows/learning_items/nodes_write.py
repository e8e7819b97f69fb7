"""Steps 5 and 6: near-duplicate cards clustered and the best kept, then one write.

Duplicates (similar cards clustered, the best of each kept, merged with the existing cards):
each card's text (`items.dedup_text`) is embedded and compared with the new cards and the
cards already in the store (proposed or approved) of the same type. Clusters
form around leaders: every stored card is one, and the new cards join in order of quality
(fewer warnings, an answer checked against its quote, a shorter front), each becoming the
duplicate of its closest leader at `card_duplicate_threshold` or above, else a leader itself.
So a stored card always wins: the reader may have approved or studied it. Relation cards
repeat one another only when they share a concept, chains only between the same ends
(`apart`). A duplicate is written as dropped with `duplicate_of`, so the reader sees what was
set aside.

A card whose id is in the store already (the same type, concepts and front) is never written
again: its status, the reader's edits and its study schedule live there.
"""

from __future__ import annotations

import itertools
from collections import defaultdict

import numpy as np
from numpy.typing import NDArray

from zettelgraph.context import Services
from zettelgraph.models import (
    ChangeSet,
    Difficulty,
    ItemStatus,
    ItemType,
    LearningItem,
    Relation,
    utcnow,
)
from zettelgraph.packs.relations import CITES, TESTS
from zettelgraph.store.vector_index import normalize_rows
from zettelgraph.workflows.learning_items.items import card_record, dedup_text
from zettelgraph.workflows.learning_items.reading import live, stored_items
from zettelgraph.workflows.learning_items.report import build_report
from zettelgraph.workflows.learning_items.state import DroppedItem, GenerationState


def quality(item: LearningItem) -> tuple[int, bool, int, str]:
    """Sort key of new cards, best first: fewer warnings, an answer checked against its
    quote, a shorter front; the id breaks ties so the choice is repeatable."""
    checked = "grounding" in item.provenance.get("checks", {})
    return (len(item.warnings), not checked, len(item.front), item.id)


def apart(scores: NDArray[np.float32], cards: list[LearningItem]) -> None:
    """Relation cards that ask about different things are never repeats, however alike they
    read: a relation card repeats one only when they share a concept (two near-twin concepts
    related alike), a chain only one between the same two ends (the same question). Their
    texts are mostly titles, and the titles of neighbouring ideas share words."""
    for i, j in itertools.combinations(range(len(cards)), 2):
        a, b = cards[i].concept_ids, cards[j].concept_ids
        if cards[i].difficulty == Difficulty.HARD:
            same = {a[0], a[-1]} == {b[0], b[-1]}
        else:
            same = bool(set(a) & set(b))
        if not same:
            scores[i, j] = scores[j, i] = -1.0


def dedup(state: GenerationState, services: Services) -> GenerationState:
    store = services.store
    unique: dict[str, LearningItem] = {}
    for dump in state.get("items", []):
        item = LearningItem.model_validate(dump)
        unique.setdefault(item.id, item)
    in_store = {i.id for i in store.get_learning_items(list(unique))}
    fresh = [i for i in unique.values() if i.id not in in_store]
    existing = [i for i in stored_items(store) if live(i)] if fresh else []
    threshold = services.thresholds.card_duplicate
    groups: dict[tuple[str, str], tuple[list[LearningItem], list[LearningItem]]] = defaultdict(
        lambda: ([], [])
    )
    for item in existing:
        groups[item.item_type, item.difficulty][0].append(item)
    for item in sorted(fresh, key=quality):
        groups[item.item_type, item.difficulty][1].append(item)
    kept: list[LearningItem] = []
    duplicates: list[LearningItem] = []
    dropped: list[DroppedItem] = []
    near_before = near_after = 0
    for old, new in groups.values():
        if not new:
            continue
        cards = [*old, *new]
        vectors = normalize_rows(services.embedder.embed([dedup_text(c) for c in cards]))
        scores = vectors @ vectors.T
        np.fill_diagonal(scores, -1.0)
        if cards[0].item_type == ItemType.RELATION:
            apart(scores, cards)
        first_new = len(old)
        near_before += int((scores[first_new:].max(axis=1) >= threshold).sum())
        leaders = list(range(first_new))
        for index in range(first_new, len(cards)):
            best = max(leaders, key=lambda j: scores[index, j], default=None)
            if best is None or scores[index, best] < threshold:
                leaders.append(index)
                continue
            leader, score = cards[best], float(scores[index, best])
            reason = f"repeats «{_short(leader.front)}» (similarity {score:.2f} >= {threshold:.2f})"
            duplicates.append(
                cards[index].model_copy(
                    update={
                        "status": ItemStatus.DROPPED,
                        "duplicate_of": leader.id,
                        "warnings": [*cards[index].warnings, f"duplicate: {reason}"],
                    }
                )
            )
            dropped.append(
                DroppedItem(
                    front=cards[index].front,
                    item_type=str(cards[index].item_type),
                    guard="duplicate",
                    reason=reason,
                    concept_ids=cards[index].concept_ids,
                )
            )
        new_leaders = [j for j in leaders if j >= first_new]
        kept.extend(cards[j] for j in new_leaders)
        # Measured, not assumed: no kept card should have a near twin among the leaders.
        among = scores[np.ix_(new_leaders, leaders)] if new_leaders else np.zeros((0, 0))
        near_after += int((among.max(axis=1, initial=-1.0) >= threshold).sum())
    return {
        "items": [card_record(i) for i in sorted(kept, key=_reading_order)],
        "duplicates": [card_record(i) for i in duplicates],
        "dropped": dropped,
        "already_stored": len(unique) - len(fresh),
        "duplicate_share_before": near_before / len(fresh) if fresh else 0.0,
        "duplicate_share_after": near_after / len(kept) if kept else 0.0,
    }


def write(state: GenerationState, services: Services) -> GenerationState:
    """Every card in one change set: the new ones proposed, the duplicates and the flashcards
    a check set aside dropped, each TESTS its concepts and CITES its quotes."""
    stamp = {"generated_at": utcnow().isoformat()}
    rejected = state.get("rejected", [])
    # A flashcard a check drops again in a later run is in the store already: left as it is.
    stored = {i.id for i in services.store.get_learning_items([r["id"] for r in rejected])}
    cards = [
        LearningItem.model_validate(dump).model_copy(
            update={"provenance": {**dump["provenance"], **stamp}}
        )
        for dump in [
            *state.get("items", []),
            *state.get("duplicates", []),
            *(r for r in rejected if r["id"] not in stored),
        ]
    ]
    generation = {"generation": state["generation_id"]}
    relations = [
        Relation(source_id=c.id, target_id=concept_id, type=TESTS, properties=generation)
        for c in cards
        for concept_id in c.concept_ids
    ] + [
        Relation(source_id=c.id, target_id=quote_id, type=CITES, properties=generation)
        for c in cards
        for quote_id in c.quote_ids
    ]
    if cards:
        services.store.apply(ChangeSet(learning_items=cards, relations=relations))
    written = [card_record(c) for c in cards]
    return {"written": written, "report": build_report(state, written)}


def _short(text: str, limit: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _reading_order(item: LearningItem) -> tuple[str, str, str]:
    return (item.subject_ids[0], str(item.item_type), item.id)
