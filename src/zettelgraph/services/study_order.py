"""The order in which new cards are met: what must be understood first, then easy before hard,
siblings apart.

A concept that is `PREREQUISITE_FOR` another (the concept workflow proposes it where one idea
cannot be understood without the other, and the reader approved it) has its new cards shown
before the other's. Within what the prerequisites allow, the order is `plain_order`'s.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from typing import TypeVar

from zettelgraph.models import DIFFICULTY_RANK, CardState, LearningItem
from zettelgraph.packs.relations import PREREQUISITE_FOR
from zettelgraph.store.base import GraphStore

CardT = TypeVar("CardT", LearningItem, CardState)


def needs_first(store: GraphStore) -> dict[str, frozenset[str]]:
    """Each concept's direct prerequisites, in one read of the `PREREQUISITE_FOR` relations
    (the store writes their `REQUIRES` reverses too; one side is enough).

    Args:
        store: the graph store.

    Returns:
        concept id -> the ids of the concepts to understand before it.
    """
    needs: dict[str, set[str]] = {}
    for relation in store.relations(relation_type=PREREQUISITE_FOR):
        needs.setdefault(relation.target_id, set()).add(relation.source_id)
    return {concept: frozenset(before) for concept, before in needs.items()}


def new_order(
    items: list[CardT], prerequisites: Mapping[str, frozenset[str]] | None = None
) -> list[CardT]:
    """New cards in the order to meet them: a concept's cards after the cards of the concepts
    it needs first (`prerequisites`, from `needs_first`), and otherwise in `plain_order`.

    Args:
        items: new cards, whole or as study states.
        prerequisites: concept id -> the concepts to understand before it; none by default.

    Returns:
        The same cards, re-ordered.
    """
    ranked = plain_order(items)
    if not prerequisites:
        return ranked
    return _prerequisites_first(ranked, prerequisites)


def plain_order(items: list[CardT]) -> list[CardT]:
    """Easy before hard, so a linked idea comes after the ideas it links; and siblings apart:
    every concept's first card before any concept's second, so a cloze does not follow the
    flashcard that just showed its quote.

    Args:
        items: new cards, whole or as study states.

    Returns:
        The same cards, re-ordered.
    """
    # Each card's key computed once (600 cards: the study page's and next card's largest
    # cost after the store reads).
    keyed = sorted(
        (
            ((DIFFICULTY_RANK[i.difficulty], i.content_ids[:1], i.created_at, i.id), i)
            for i in items
        ),
        key=lambda pair: pair[0],
    )
    seen: dict[str, int] = {}
    ranked = []
    for plain, item in keyed:
        # A passage card's siblings are the other cards of its passage.
        subject = item.subject_ids[0] if item.subject_ids else item.id
        sibling = seen.get(subject, 0)
        seen[subject] = sibling + 1
        ranked.append((plain[0], sibling, plain, item))
    return [item for *_, item in sorted(ranked, key=lambda row: row[:3])]


def _prerequisites_first(
    ranked: list[CardT], prerequisites: Mapping[str, frozenset[str]]
) -> list[CardT]:
    """`ranked` re-ordered so that no card comes before a card of a concept its own concepts
    need first; each time several cards may come next, the one `ranked` puts first does.
    Concepts in a circle of prerequisites (a wrong pair the reader approved) do not wait for
    each other: their cards keep `ranked`'s order rather than being held back for ever."""
    left: dict[str, int] = {}  # cards not yet placed, per concept
    for item in ranked:
        for concept in item.concept_ids:
            left[concept] = left.get(concept, 0) + 1
    closures: dict[str, set[str]] = {}

    def before_of(concept: str) -> set[str]:
        if concept not in closures:
            closures[concept] = _carded_before(concept, prerequisites, left)
        return closures[concept]

    waiting: list[set[str]] = []  # per card (by rank): concepts whose cards it waits for
    blocks: dict[str, list[int]] = {}  # concept -> the cards (ranks) waiting for it
    for rank, item in enumerate(ranked):
        before = {
            other
            for concept in item.concept_ids
            for other in before_of(concept)
            if concept not in before_of(other)  # not in a circle with it
        } - set(item.concept_ids)
        waiting.append(before)
        for concept in before:
            blocks.setdefault(concept, []).append(rank)
    ready = [rank for rank, before in enumerate(waiting) if not before]
    heapq.heapify(ready)
    placed: list[CardT] = []
    done = [False] * len(ranked)
    while len(placed) < len(ranked):
        if not ready:  # a card of two concepts closed a circle: the first card left goes
            rank = next(r for r, finished in enumerate(done) if not finished)
            waiting[rank].clear()
            heapq.heappush(ready, rank)
        rank = heapq.heappop(ready)
        if done[rank]:
            continue
        done[rank] = True
        placed.append(ranked[rank])
        for concept in ranked[rank].concept_ids:
            left[concept] -= 1
            if left[concept]:
                continue
            for blocked in blocks.pop(concept, []):
                waiting[blocked].discard(concept)
                if not waiting[blocked] and not done[blocked]:
                    heapq.heappush(ready, blocked)
    return placed


def _carded_before(
    concept: str, prerequisites: Mapping[str, frozenset[str]], carded: Mapping[str, int]
) -> set[str]:
    """The concepts with new cards that `concept` needs first, directly or through others
    (A needs B needs C: A's cards wait for C's too, whether B has cards or not); `concept`
    itself when it is in a circle."""
    found: set[str] = set()
    seen: set[str] = set()
    stack = list(prerequisites.get(concept, ()))
    while stack:
        other = stack.pop()
        if other in seen:
            continue
        seen.add(other)
        if other in carded:
            found.add(other)
        stack.extend(prerequisites.get(other, ()))
    return found
