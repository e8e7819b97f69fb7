"""Learning items (cards): listing, the reader's review (approve / drop / edit).

Generated items wait as `proposed` until the reader approves them; only approved items are
studied, exported to Anki and written to the vault. A dropped item stays in the store as
`dropped`, so generating again never proposes it a second time (its id is a function of its
type, concepts and front). Every decision is recorded in the item's provenance.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from zettelgraph.context import Services
from zettelgraph.models import (
    DIFFICULTY_RANK,
    CardState,
    ChangeSet,
    ItemStatus,
    ItemType,
    LearningItem,
    NodeLabel,
    utcnow,
)
from zettelgraph.services.ids import IdError, resolve_node_id
from zettelgraph.store.base import GraphStore, every_node
from zettelgraph.vault.cards import write_card_files

log = logging.getLogger(__name__)


class CardError(ValueError):
    """A request about cards that cannot be done; the message says what to do instead."""


def all_items(store: GraphStore) -> Iterator[LearningItem]:
    """Every learning item, by id, page by page.

    Args:
        store: the graph store to read.

    Returns:
        An iterator over every learning item, read a page at a time.
    """
    return every_node(store, NodeLabel.LEARNING_ITEM, LearningItem)


@dataclass(frozen=True)
class ItemFilter:
    """Which items a list, a study session or an export takes; None means any."""

    status: ItemStatus | None = None
    content_id: str | None = None
    concept_id: str | None = None
    item_type: ItemType | None = None

    def matches(self, item: LearningItem | CardState) -> bool:
        """Whether `item` passes every condition set (an unset one passes any item).

        Args:
            item: a card, whole or as its study state.

        Returns:
            True when the card has the status, content, concept and type asked for.
        """
        return (
            (self.status is None or item.status == self.status)
            and (self.content_id is None or self.content_id in item.content_ids)
            and (self.concept_id is None or self.concept_id in item.concept_ids)
            and (self.item_type is None or item.item_type == self.item_type)
        )


def list_items(store: GraphStore, which: ItemFilter | None = None) -> list[LearningItem]:
    """Items in a stable order for people: by book, then concept, then difficulty and type.

    Args:
        store: the graph store to read.
        which: which items to take; None (the default) takes every item.

    Returns:
        The items that `which` matches, in `list_order`.
    """
    which = which or ItemFilter()
    return sorted((item for item in all_items(store) if which.matches(item)), key=list_order)


def list_states(store: GraphStore, which: ItemFilter | None = None) -> list[CardState]:
    """`list_items`' cards and order, as study states: a page that shows some of them reads
    only those whole (the Cards page parsed all 600 cards to show 50).

    Args:
        store: the graph store to read.
        which: which cards to take; None (the default) takes every card.

    Returns:
        The study states of the cards that `which` matches, in `list_order`.
    """
    which = which or ItemFilter()
    return sorted((s for s in store.card_states() if which.matches(s)), key=list_order)


def list_order(item: LearningItem | CardState) -> tuple[Any, ...]:
    """The sort key of a card in lists: by book, then concept, then difficulty, type and id.

    Args:
        item: a card, whole or as its study state.

    Returns:
        A tuple to sort by (first content id, first concept id, difficulty rank, type, id).
    """
    return (
        item.content_ids[:1],
        item.concept_ids[:1],
        DIFFICULTY_RANK[item.difficulty],
        str(item.item_type),
        item.id,
    )


def cards_testing(
    store: GraphStore, concept_ids: Collection[str], quote_ids: Collection[str] = ()
) -> list[LearningItem]:
    """The cards that test any of `concept_ids` (a card about one of them, or about one of
    its relations) or cite any of `quote_ids`: what goes when those go.

    Args:
        store: the graph store to read.
        concept_ids: full ids of the concepts.
        quote_ids: full ids of the passages; none by default.

    Returns:
        The matching cards, by id.
    """
    concepts, quotes = set(concept_ids), set(quote_ids)
    return [
        item
        for item in all_items(store)
        if concepts.intersection(item.concept_ids) or quotes.intersection(item.quote_ids)
    ]


def relation_cards(store: GraphStore, a: str, b: str) -> list[LearningItem]:
    """The cards that ask how `a` and `b` relate: relation cards whose concepts hold the two
    side by side (the pair's own card, or one step of a chain A -> B -> C).

    Args:
        store: the graph store to read.
        a: one concept's full id.
        b: the other concept's full id (the order does not matter).

    Returns:
        The relation cards that hold `a` and `b` next to each other, by id.
    """
    pair = {a, b}
    return [
        item
        for item in all_items(store)
        if item.item_type == ItemType.RELATION
        and any({x, y} == pair for x, y in itertools.pairwise(item.concept_ids))
    ]


def get_items(store: GraphStore, item_ids: Sequence[str]) -> list[LearningItem]:
    """The items asked for, by id or by a unique id prefix (as the CLI shows them).

    Args:
        store: the graph store to read.
        item_ids: the cards, each by id or unique id prefix.

    Returns:
        The items, in the order asked (one per id given, repeats included).

    Raises:
        CardError: an id names no card or several.
    """
    try:
        whole = [resolve_node_id(store, NodeLabel.LEARNING_ITEM, given) for given in item_ids]
    except IdError as exc:
        raise CardError(str(exc)) from exc
    by_id = {item.id: item for item in store.get_learning_items(whole)}
    return [by_id[i] for i in whole]


def _decided(item: LearningItem, status: ItemStatus, **update: Any) -> LearningItem:
    decisions = [*item.provenance.get("decisions", [])]
    decisions.append({"status": str(status), "at": utcnow().isoformat(), **update.pop("note", {})})
    provenance = {**item.provenance, "decisions": decisions}
    return item.model_copy(update={"status": status, "provenance": provenance, **update})


def decide(services: Services, item_ids: Iterable[str], status: ItemStatus) -> list[LearningItem]:
    """Approve or drop items in one write, then bring the vault's card files up to date.

    The files are brought up to date even when nothing changed: a process killed between the
    store's write and the files' leaves approved cards without a file, and approving again
    (which then finds nothing to approve) is what a reader tries first.

    Args:
        services: the open services.
        item_ids: the cards, by id or unique id prefix (repeats ignored).
        status: approved or dropped.

    Returns:
        The items as stored.

    Raises:
        CardError: an id names no card or several, or `status` is `proposed`.
    """
    if status == ItemStatus.PROPOSED:
        raise CardError("a card can be approved or dropped, not proposed again")
    store = services.store
    items = get_items(store, list(dict.fromkeys(item_ids)))
    changed = [_decided(item, status) for item in items if item.status != status]
    if changed:
        store.apply(ChangeSet(learning_items=changed))
    refresh_vault(services)
    by_id = {item.id: item for item in changed}
    return [by_id.get(item.id, item) for item in items]


def refresh_vault(services: Services) -> list[str]:
    """Rewrite the vault's card files from the approved items; returns the paths written.

    The store is already committed when this runs, so a file that cannot be written is logged,
    not raised: the next approval, edit or refresh writes it again.

    Args:
        services: the open services (store, settings and vault).

    Returns:
        The paths of the card files written.
    """
    report = write_card_files(services.store, services.vault)
    for error in report.errors:
        log.warning("card file %s not written: %s", error["path"], error["error"])
    return [str(path) for path in report.written]


def edit(
    services: Services,
    item_id: str,
    *,
    front: str | None = None,
    back: str | None = None,
    explanation: str | None = None,
) -> LearningItem:
    """The reader's own wording of a card; an edited card counts as approved.

    A multiple-choice card's options are the graph's concepts: its answer cannot be edited
    into another option, only its question and explanation. A cloze card's text is the
    reader's quote: edit `back` to choose which words are deleted.

    Args:
        services: the open services.
        item_id: the card, by id or unique id prefix.
        front: the new question.
        back: the new answer (a cloze: the words of the quote to hide).
        explanation: the new explanation.

    Returns:
        The card as stored, approved.

    Raises:
        CardError: an empty side, nothing to change, an answer a card of its kind cannot take, or an
            id that names no card or several.
    """
    (item,) = get_items(services.store, [item_id])
    update: dict[str, Any] = {}
    if front is not None:
        if not front.strip():
            raise CardError("the front of a card cannot be empty")
        update["front"] = front.strip()
    if explanation is not None:
        update["explanation"] = explanation.strip()
    if back is not None:
        if not back.strip():
            raise CardError("the back of a card cannot be empty")
        update.update(_new_back(item, back.strip()))
    if not update:
        raise CardError("nothing to change: give --front, --back or --explanation")
    edited = LearningItem.model_validate(
        {
            **_decided(item, ItemStatus.APPROVED, note={"edited": sorted(update)}).model_dump(),
            **update,
        }
    )
    services.store.apply(ChangeSet(learning_items=[edited]))
    refresh_vault(services)
    return edited


def _new_back(item: LearningItem, back: str) -> dict[str, Any]:
    if item.item_type == ItemType.MCQ:
        raise CardError(
            "the answer of a multiple-choice card is one of its options (concepts of your "
            "graph); edit its front or explanation, or drop it"
        )
    if item.item_type != ItemType.CLOZE:
        return {"back": back}
    text = item.cloze.replace("{{c1::", "").replace("}}", "")
    start = text.casefold().find(back.casefold())
    if start < 0:
        raise CardError(f"{back!r} is not in the card's quote: a cloze hides words of the quote")
    words = text[start : start + len(back)]
    return {
        "back": words,
        "front": text[:start] + "[...]" + text[start + len(back) :],
        "cloze": text[:start] + "{{c1::" + words + "}}" + text[start + len(back) :],
    }
