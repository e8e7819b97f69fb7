"""A card with what it cites, as the Anki deck and the vault's card files show it: its book and
author, the concepts it tests and the quotes it cites with where they are.

Both read the store the same way, so a card shows the same source wherever it is studied.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from zettelgraph.models import (
    DIFFICULTY_RANK,
    Concept,
    Content,
    ItemStatus,
    LearningItem,
    NodeLabel,
    Quote,
)
from zettelgraph.models.locations import quote_place
from zettelgraph.store.base import GraphStore, every_node
from zettelgraph.text.normalize import normalize_name

_NOT_A_TAG_CHARACTER = re.compile(r"[^\w]+")


@dataclass(frozen=True)
class CardSources:
    """One learning item and the graph nodes it cites (missing ones are left out)."""

    item: LearningItem
    book: Content | None
    author: str | None
    concepts: tuple[Concept, ...]
    quotes: tuple[Quote, ...]

    @property
    def book_title(self) -> str:
        return self.book.title if self.book is not None else ""

    def places(self) -> list[str]:
        """Where each cited quote is ("Economía, p. 12"), "" for a quote with no location."""
        return [quote_place(quote) for quote in self.quotes]


def approved_items(store: GraphStore) -> Iterator[LearningItem]:
    """Every approved item, page by page (the store pages by id)."""
    items = every_node(store, NodeLabel.LEARNING_ITEM, LearningItem)
    return (item for item in items if item.status == ItemStatus.APPROVED)


def sources_of(store: GraphStore, items: Iterable[LearningItem]) -> list[CardSources]:
    """Each item with its book, author, concepts and quotes, in the order given.

    The book is the item's first content, or else the book of its first quote; concepts and
    quotes the store no longer has are left out rather than failing the whole export.
    """
    items = list(items)
    quotes = {q.id: q for q in store.get_quotes(sorted({i for x in items for i in x.quote_ids}))}
    books: dict[str, tuple[Content | None, str | None]] = {}
    concepts: dict[str, Concept | None] = {}

    def book_of(content_id: str) -> tuple[Content | None, str | None]:
        if content_id not in books:
            author = store.author_of(content_id)
            books[content_id] = (store.get_content(content_id), author.name if author else None)
        return books[content_id]

    def concept_of(concept_id: str) -> Concept | None:
        if concept_id not in concepts:
            concepts[concept_id] = store.get_concept(concept_id)
        return concepts[concept_id]

    found = []
    for item in items:
        cited = tuple(quotes[i] for i in item.quote_ids if i in quotes)
        content_ids = [*item.content_ids, *(quote.content_id for quote in cited)]
        book, author = book_of(content_ids[0]) if content_ids else (None, None)
        tested = tuple(c for c in map(concept_of, item.concept_ids) if c is not None)
        found.append(CardSources(item, book, author, tested, cited))
    return found


def card_order(card: CardSources) -> tuple[str, str, int, str, str]:
    """A stable order for people: by book, first concept, difficulty, type, then id."""
    concept = card.concepts[0].title if card.concepts else ""
    return (
        normalize_name(card.book_title),
        normalize_name(concept),
        DIFFICULTY_RANK.get(card.item.difficulty, 3),
        str(card.item.item_type),
        card.item.id,
    )


def tag_slug(text: str, fallback: str) -> str:
    """`text` as one tag word, the same for Anki and Obsidian: accents and case dropped, any run
    of characters that is not a letter, digit or `_` becomes `-` ("La Ética" -> "la-etica").
    `fallback` when nothing is left."""
    slug = _NOT_A_TAG_CHARACTER.sub("-", normalize_name(text)).strip("-_")
    return slug or fallback
