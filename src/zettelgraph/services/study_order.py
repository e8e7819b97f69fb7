"""The order in which new cards are met: what must be understood first, then easy before hard,
siblings apart.

A concept that is `PREREQUISITE_FOR` another (the concept workflow proposes it where one idea
cannot be understood without the other, and the reader approved it) has its new cards shown
before the other's. Within what the prerequisites allow, the order is `plain_order`'s.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Mapping
from typing import TypeVar

from zettelgraph.models import DIFFICULTY_RANK, CardState, LearningItem
from zettelgraph.packs.relations import PREREQUISITE_FOR
from zettelgraph.store.base import GraphStore
from zettelgraph.store.study_keys import new_card_key

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
    carded: dict[str, int] = {}
    for item in items:
        for concept in dict.fromkeys(item.concept_ids):
            carded[concept] = carded.get(concept, 0) + 1
    stream = iter(sorted(items, key=new_card_key))
    return list(ordered_new(stream, prerequisites or {}, carded))


def ordered_new(
    stream: Iterator[CardT], prerequisites: Mapping[str, frozenset[str]], carded: Mapping[str, int]
) -> Iterator[CardT]:
    """`new_order` over a stream, reading no more of it than the cards taken need: the
    store's new cards (`GraphStore.new_cards`) of a deck of 100,000, of which a session shows
    twenty.

    Args:
        stream: every new card, in `new_card_key` order.
        prerequisites: concept id -> the concepts to understand before it.
        carded: how many of the stream's cards test each concept (at least each concept
            some concept needs first; a card counts once per concept).

    Returns:
        The cards in `new_order`, one at a time.
    """
    ranked = _spread_siblings(stream)
    if not prerequisites:
        return ranked
    return _prerequisites_first(ranked, prerequisites, carded)


def plain_order(items: list[CardT]) -> list[CardT]:
    """Easy before hard, so a linked idea comes after the ideas it links; and siblings apart:
    every concept's first card before any concept's second, so a cloze does not follow the
    flashcard that just showed its quote.

    Args:
        items: new cards, whole or as study states.

    Returns:
        The same cards, re-ordered.
    """
    return list(_spread_siblings(iter(sorted(items, key=new_card_key))))


def _spread_siblings(stream: Iterator[CardT]) -> Iterator[CardT]:
    """`plain_order` of a stream in `new_card_key` order: within each difficulty, every
    subject's first card as it comes (nothing later can precede it), then the later
    siblings, second cards before third, each kept until its difficulty is read through."""
    seen: dict[str, int] = {}
    band: int | None = None
    later: list[tuple[int, int, CardT]] = []  # (sibling, arrival, card)
    for arrival, item in enumerate(stream):
        rank = DIFFICULTY_RANK[item.difficulty]
        if rank != band:
            yield from (card for *_, card in sorted(later, key=lambda row: row[:2]))
            band, later = rank, []
        # A passage card's siblings are the other cards of its passage.
        subject = item.subject_ids[0] if item.subject_ids else item.id
        sibling = seen.get(subject, 0)
        seen[subject] = sibling + 1
        if sibling:
            later.append((sibling, arrival, item))
        else:
            yield item
    yield from (card for *_, card in sorted(later, key=lambda row: row[:2]))


def _prerequisites_first(
    ranked: Iterator[CardT], prerequisites: Mapping[str, frozenset[str]], carded: Mapping[str, int]
) -> Iterator[CardT]:
    """`ranked` re-ordered so that no card comes before a card of a concept its own concepts
    need first; each time several cards may come next, the one `ranked` puts first does.
    Concepts in a circle of prerequisites (a wrong pair the reader approved) do not wait for
    each other: their cards keep `ranked`'s order rather than being held back for ever.

    Cards are read from `ranked` only while none read is free to go: one not yet read ranks
    after every card read."""
    left = dict(carded)  # cards not yet placed, per concept
    closures: dict[str, set[str]] = {}

    def before_of(concept: str) -> set[str]:
        if concept not in closures:
            closures[concept] = _carded_before(concept, prerequisites, carded)
        return closures[concept]

    cards: list[CardT] = []  # read so far, by rank
    waiting: list[set[str]] = []  # per card (by rank): concepts whose cards it waits for
    blocks: dict[str, list[int]] = {}  # concept -> the cards (ranks) waiting for it
    ready: list[int] = []
    done: list[bool] = []
    placed = 0
    while True:
        if not ready:
            item = next(ranked, None)
            if item is not None:
                rank = len(cards)
                cards.append(item)
                done.append(False)
                before = {
                    other
                    for concept in item.concept_ids
                    for other in before_of(concept)
                    if concept not in before_of(other)  # not in a circle with it
                    and left.get(other, 0)  # whose cards are not all placed yet
                } - set(item.concept_ids)
                waiting.append(before)
                for concept in before:
                    blocks.setdefault(concept, []).append(rank)
                if not before:
                    heapq.heappush(ready, rank)
                continue
            if placed == len(cards):
                return
            # A card of two concepts closed a circle: the first card left goes.
            rank = next(r for r, finished in enumerate(done) if not finished)
            waiting[rank].clear()
            heapq.heappush(ready, rank)
        rank = heapq.heappop(ready)
        if done[rank]:
            continue
        done[rank] = True
        placed += 1
        yield cards[rank]
        for concept in dict.fromkeys(cards[rank].concept_ids):
            if concept not in left:
                continue
            left[concept] -= 1
            if left[concept]:
                continue
            for blocked in blocks.pop(concept, []):
                waiting[blocked].discard(concept)
                if not waiting[blocked] and not done[blocked]:
                    heapq.heappush(ready, blocked)


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
