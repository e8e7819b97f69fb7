"""The passages a note cites, read from the store: a concept's supporting quotes, the
passages an entity was found in."""

from __future__ import annotations

from zettelgraph.locations import location_label
from zettelgraph.models import Quote, normalize_name
from zettelgraph.store.base import GraphStore
from zettelgraph.vault.notes import SourceQuote
from zettelgraph.vault.writer import UNTITLED


def source_quotes(store: GraphStore, quotes: list[Quote]) -> list[SourceQuote]:
    """`quotes` as a note cites them (text, book, author, place), by book then reading
    order."""
    titles: dict[str, str] = {}
    authors: dict[str, str | None] = {}
    for content_id in {quote.content_id for quote in quotes}:
        content = store.get_content(content_id)
        author = store.author_of(content_id)
        titles[content_id] = content.title if content is not None else UNTITLED
        authors[content_id] = author.name if author is not None else None
    ordered = sorted(
        quotes,
        key=lambda q: (normalize_name(titles[q.content_id]), q.content_id, q.position, q.id),
    )
    return [
        SourceQuote(
            quote_id=quote.id,
            text=quote.text,
            content_title=titles[quote.content_id],
            author=authors[quote.content_id],
            page=quote.page,
            place=location_label(quote.location, page=quote.page) if quote.parent_id else None,
        )
        for quote in ordered
    ]
