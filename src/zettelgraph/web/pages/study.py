"""The Study page: the next card due (or new), its answer on demand, and four ratings that
FSRS turns into the card's next due date; a summary of the day from the study stats.

It works without JavaScript: the answer is in a `<details>` (`?reveal=1` opens it), and
each rating is a POST to `/study/ID` answered with a redirect to the next card. The form
carries when the card was shown (for the review log's duration) and the card's state as
shown, so a second submit of the same page (a double click, another tab) rates it once.
Ratings go through `services/study.py` with the real clock, as `zettelgraph study` does.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, Response

from zettelgraph.models import ItemStatus, LearningItem
from zettelgraph.services import study, study_preview, study_stats
from zettelgraph.services.cards import CardError, ItemFilter
from zettelgraph.web.cards_common import (
    card_views,
    clock,
    intervals,
    known_items,
    next_due,
    queue_counts,
    study_books,
)
from zettelgraph.web.pages.cards import ContentField, card_href, study_href
from zettelgraph.web.pages.common import HTMLRoute, error_page, render, see_other
from zettelgraph.web.security import Csrf
from zettelgraph.web.state import Web, WebState

router = APIRouter(route_class=HTMLRoute, include_in_schema=False)

# A card left on screen longer than this was not being studied: no duration is recorded.
LONGEST_LOOK_MS = 3_600_000


def _study_page(
    request: Request,
    web: WebState,
    *,
    content: str,
    item: LearningItem | None = None,
    reveal: bool = False,
    error: str | None = None,
    notice: str | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    store = web.services.store
    now = clock()
    which = ItemFilter(content_id=content or None)
    # The store counts the cards and reads only the one shown (100,000 cards: no deck read).
    queue = study.study_queue(store, web.settings, now=now, which=which, limit=1)
    if item is None:
        item = queue.first()
    summary = study_stats.book_stats(store, now=now, content_id=content or None)
    deck = summary.books[0] if content else summary.total
    views = card_views(store, [item]) if item is not None else []
    later = next_due(store, which, now) if item is None else None
    return render(
        request,
        "study.html",
        "study",
        status_code=status_code,
        content=content,
        books=study_books(store),
        **queue_counts(queue),
        stats=deck.as_dict(),
        proposed=summary.proposed,
        retention_days=study_stats.RETENTION_DAYS,
        card=views[0] if views else None,
        buttons=intervals(web, item, now) if item is not None else [],
        shown_ms=int(now.timestamp() * 1000),
        seen=study.seen_mark(item) if item is not None else "",
        next_due=later,
        next_due_in=study_preview.interval_label(later - now) if later is not None else "",
        reveal=reveal,
        error=error,
        notice=notice,
    )


@router.get("/study", response_class=HTMLResponse)
def study_page(
    request: Request,
    web: Web,
    content: Annotated[str, Query(max_length=200)] = "",
    reveal: bool = False,
    again: bool = False,
) -> HTMLResponse:
    """The next card due (or new) and how studying goes today."""
    notice = "That card was already rated (a double click or another tab): it counted once."
    return _study_page(
        request, web, content=content, reveal=reveal, notice=notice if again else None
    )


@router.get("/study/{item_id}", response_class=HTMLResponse)
def study_card_page(
    item_id: str,
    request: Request,
    web: Web,
    content: Annotated[str, Query(max_length=200)] = "",
    reveal: bool = False,
) -> HTMLResponse:
    """Study this card now, due or not (an approved card)."""
    (item,) = known_items(web.services.store, [item_id])
    if item.status != ItemStatus.APPROVED:
        return error_page(
            request,
            400,
            f"card {item.id[:8]} is {item.status}: approve it on the Cards page first",
            back=card_href(item.id),
        )
    return _study_page(request, web, content=content, item=item, reveal=reveal)


@router.post("/study/{item_id}", dependencies=Csrf)
def rate_card(
    item_id: str,
    request: Request,
    web: Web,
    rating: Annotated[str, Form(max_length=10)],
    shown: Annotated[int | None, Form(ge=0)] = None,
    seen: Annotated[str, Form(max_length=100)] = "",
    content: ContentField = "",
) -> Response:
    """Record Again / Hard / Good / Easy with the real clock, then show the next card."""
    store = web.services.store
    items = store.get_learning_items([item_id])
    if not items:
        return error_page(request, 404, f"no card {item_id!r}", back=study_href(content))
    (item,) = items
    now = clock()
    elapsed = int(now.timestamp() * 1000) - shown if shown is not None else None
    duration = elapsed if elapsed is not None and 0 <= elapsed <= LONGEST_LOOK_MS else None
    try:
        value = study.parse_rating(rating)
        study.rate(
            store,
            study.scheduler_for(web.settings),
            item.id,
            value,
            now=now,
            duration_ms=duration,
            seen=seen or None,
        )
    except study.AlreadyRatedError:
        return see_other(study_href(content, again=1))
    except CardError as exc:
        return _study_page(request, web, content=content, error=str(exc), status_code=400)
    return see_other(study_href(content))
