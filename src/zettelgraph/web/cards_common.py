"""What the cards pages and the cards API share: a card as the reader sees it (its concepts
and cited quotes resolved), the study clock, and the mapping of `CardError` to HTTP.

The rules (who may be approved, edited or rated) are `services/cards.py`'s and
`services/study.py`'s; this module only reads what a page shows and says which status a
refusal gets: an unknown card id is 404, anything else `CardError` refuses is 400.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import Any

from fastapi import HTTPException

from zettelgraph.models import CardState, ItemStatus, LearningItem
from zettelgraph.services import browse
from zettelgraph.services.cards import CardError, ItemFilter, all_items
from zettelgraph.services.study import RATINGS, StudyQueue, scheduler_for
from zettelgraph.services.study_preview import interval_label, preview
from zettelgraph.services.study_stats import outlook
from zettelgraph.store.base import GraphStore
from zettelgraph.web.actions import refusals
from zettelgraph.web.state import WebState


def clock() -> datetime:
    """Now, in this machine's time zone: "today" in the study counts is the reader's day."""
    return datetime.now().astimezone()


def card_errors() -> AbstractContextManager[None]:
    """A request the card services refuse is the client's to fix: 400 with their message."""
    return refusals({CardError: 400})


def known_items(store: GraphStore, item_ids: Sequence[str]) -> list[LearningItem]:
    """The cards by their full ids, in the order asked; 404 naming those that do not exist."""
    found = {item.id: item for item in store.get_learning_items(list(dict.fromkeys(item_ids)))}
    missing = [item_id for item_id in item_ids if item_id not in found]
    if missing:
        raise HTTPException(
            status_code=404, detail="no card " + ", ".join(repr(i) for i in missing[:5])
        )
    return [found[item_id] for item_id in item_ids]


def card_views(store: GraphStore, items: Iterable[LearningItem]) -> list[dict[str, Any]]:
    """Each item as JSON, with `concepts` ({id, title}), `quotes` (passage views, each with its
    book and place) and `books` ({id, title}) resolved; every lookup done once per id."""
    items = list(items)
    concept_ids = list(dict.fromkeys(c for item in items for c in item.concept_ids))
    titles: dict[str, str | None] = dict.fromkeys(concept_ids)
    titles.update((c.id, c.title) for c in store.get_concepts(concept_ids))
    quote_ids = list(dict.fromkeys(q for item in items for q in item.quote_ids))
    views = browse.passage_views(store, store.get_quotes(quote_ids))
    passages = {view["id"]: view for view in views}
    book_titles = content_titles(store, (c for item in items for c in item.content_ids))
    out = []
    for item in items:
        view = item.model_dump(mode="json")
        view["concepts"] = [
            {"id": c, "title": titles.get(c) or c, "missing": titles.get(c) is None}
            for c in item.concept_ids
        ]
        view["quotes"] = [passages[q] for q in item.quote_ids if q in passages]
        view["books"] = [{"id": c, "title": book_titles.get(c, c)} for c in item.content_ids]
        out.append(view)
    return out


def content_titles(store: GraphStore, content_ids: Iterable[str]) -> dict[str, str]:
    """Title by content id, for the ids that name a stored content."""
    out: dict[str, str] = {}
    for content_id in dict.fromkeys(content_ids):
        content = store.get_content(content_id)
        if content is not None:
            out[content_id] = content.title
    return out


def books_with_cards(
    store: GraphStore,
    status: ItemStatus | None = None,
    items: Iterable[LearningItem | CardState] = (),
) -> list[dict[str, str]]:
    """The books some card of `items` (default: every card; of `status`, if given) cites, by
    title: a page's book filter."""
    ids = (
        c
        for item in (items or all_items(store))
        if status in (None, item.status)
        for c in item.content_ids
    )
    return _by_title(content_titles(store, ids))


def study_books(store: GraphStore) -> list[dict[str, str]]:
    """The books the approved cards cite, by title (the store finds them: no deck read): the
    study page's book filter."""
    return _by_title(content_titles(store, store.card_books(ItemStatus.APPROVED)))


def _by_title(titles: dict[str, str]) -> list[dict[str, str]]:
    rows = [{"id": content_id, "title": title} for content_id, title in titles.items()]
    return sorted(rows, key=lambda row: (row["title"].casefold(), row["id"]))


def next_due(store: GraphStore, which: ItemFilter, now: datetime) -> datetime | None:
    """When the first approved card already studied (of `which`) comes due after `now`."""
    return outlook(store, now=now, which=which).next_due


def intervals(web: WebState, item: LearningItem, now: datetime) -> list[dict[str, Any]]:
    """What each rating button promises: rating, name, seconds until the card is back, label."""
    spans: dict[int, timedelta] = preview(scheduler_for(web.settings), item, now=now)
    return [
        {
            "rating": rating,
            "name": RATINGS[rating],
            "seconds": spans[rating].total_seconds(),
            "label": interval_label(spans[rating]),
        }
        for rating in RATINGS
    ]


def queue_counts(queue: StudyQueue) -> dict[str, int]:
    return {"due": queue.due_count, "new": queue.new_count}
