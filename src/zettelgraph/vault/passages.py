"""The passages a note cites, read from the store: a concept's supporting quotes, the
passages an entity was found in."""

from __future__ import annotations

from zettelgraph.models import Person, Quote
from zettelgraph.models.locations import location_label
from zettelgraph.store.base import GraphStore
from zettelgraph.text.normalize import normalize_name
from zettelgraph.vault.notes import SourceQuote
from zettelgraph.vault.writer import UNTITLED


def source_quotes(store: GraphStore, quotes: list[Quote]) -> list[SourceQuote]:
    """`quotes` as a note cites them (text, book, author, place), by book then reading
    order."""
    titles: dict[str, str] = {}
    authors: dict[str, Person | None] = {}
    for content_id in {quote.content_id for quote in quotes}:
        content = store.get_content(content_id)
        titles[content_id] = content.title if content is not None else UNTITLED
        authors[content_id] = store.author_of(content_id)
    ordered = sorted(
        quotes,
        key=lambda q: (normalize_name(titles[q.content_id]), q.content_id, q.position, q.id),
    )
    return [
        SourceQuote(
            quote_id=quote.id,
            text=quote.text,
            content_title=titles[quote.content_id],
            author=author.name if (author := authors[quote.content_id]) is not None else None,
            page=quote.page,
            place=location_label(quote.location, page=quote.page) if quote.parent_id else None,
            content_id=quote.content_id,
            author_id=author.id if author is not None else None,
        )
        for quote in ordered
    ]
