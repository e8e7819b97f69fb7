"""The JSON API for cards and study, under /api: list, decide, edit and generate cards; the
next card to study, a rating, and the study stats.

Every route calls the services `zettelgraph cards` and `zettelgraph study` call
(`services/cards.py`, `services/study.py`). Errors: an unknown card or book is 404; what the
card services refuse (rating a card not approved, an empty front, a bad rating, an MCQ's
answer) is 400 with their message; a model that fails during generation is 502.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query
from pydantic import BaseModel, Field

from zettelgraph.models import ItemStatus, ReviewLog
from zettelgraph.services import cards as card_service
from zettelgraph.services import study, study_stats
from zettelgraph.services.card_generation import generate_cards
from zettelgraph.services.cards import ItemFilter
from zettelgraph.web import actions
from zettelgraph.web.api.models import Open, Passage
from zettelgraph.web.cards_common import (
    card_errors,
    card_views,
    clock,
    intervals,
    known_items,
    next_due,
    queue_counts,
)
from zettelgraph.web.security import Csrf
from zettelgraph.web.state import Web

router = APIRouter(tags=["cards"])
IdQuery = Annotated[str | None, Query(max_length=200)]


# --- models -------------------------------------------------------------------------------


class Ref(Open):
    id: str
    title: str


class ConceptRef(Ref):
    missing: bool = Field(description="The card cites a concept no longer in the graph.")


class CardOut(Open):
    """A LearningItem as stored, with its concepts, quotes and books resolved."""

    id: str
    item_type: str = Field(
        description="flashcard, cloze, mcq, relation, code_completion or diagram"
    )
    front: str
    back: str
    cloze: str
    options: list[str]
    correct: int | None
    explanation: str
    difficulty: str
    status: str = Field(description="proposed, approved or dropped")
    concept_ids: list[str]
    quote_ids: list[str]
    content_ids: list[str]
    warnings: list[str]
    due: str | None = Field(description="When FSRS shows it again; null until first studied.")
    concepts: list[ConceptRef]
    quotes: list[Passage]
    books: list[Ref]


class DecideIn(BaseModel):
    ids: list[str] = Field(min_length=1, max_length=10_000)
    status: Literal["approved", "dropped"]


class EditIn(BaseModel):
    front: str | None = Field(default=None, max_length=2000)
    back: str | None = Field(
        default=None,
        max_length=2000,
        description="The answer; for a cloze, the words of its quote to hide. Not for an MCQ.",
    )
    explanation: str | None = Field(default=None, max_length=2000)


class Interval(Open):
    rating: int
    name: str = Field(description="again, hard, good or easy")
    seconds: float = Field(description="Until the card comes back after this rating.")
    label: str = Field(description="The same, as the Study page's button shows it: 10m, 3d.")


class NextOut(Open):
    card: CardOut | None = Field(description="The next card due (or new); null when none is.")
    due: int = Field(description="Cards due now.")
    new: int = Field(description="New cards left for today.")
    intervals: list[Interval]
    next_due: str | None = Field(description="When a card is next due, if none is now.")


class RateIn(BaseModel):
    rating: int | str = Field(description="1-4, or again, hard, good, easy")
    duration_ms: int | None = Field(default=None, ge=0, le=86_400_000)


class RatedOut(Open):
    card: CardOut
    log: ReviewLog


class DeckOut(Open):
    title: str
    approved: int
    new: int = Field(description="Approved, never studied.")
    learning: int
    review: int
    due_now: int
    due_today: int
    reviews_today: int
    retention: float | None = Field(
        description="Share of learned cards recalled when due, over `retention_days`."
    )
    retention_reviews: int


class StatsOut(DeckOut):
    proposed: int = Field(description="Cards waiting for the reader's review.")
    retention_days: int
    books: list[DeckOut]


class GenerateIn(BaseModel):
    content_id: str | None = Field(default=None, description="Only this book's concepts.")
    concept_ids: list[str] | None = Field(default=None, max_length=10_000)
    from_passages: str | None = Field(
        default=None,
        description="A content whose passages get cards straight away (no concepts needed).",
    )


class GenerationOut(Open):
    generation_id: str
    proposed: list[dict[str, Any]] = Field(description="The cards written, as stored.")
    per_type: dict[str, int]
    dropped: list[dict[str, Any]] = Field(
        description="One {front, item_type, guard, reason, concept_ids} per card set aside."
    )
    duplicates: int
    skipped_concepts: int = Field(description="Concepts that had their cards already.")
    calls: int = Field(description="LLM calls made.")
    seconds: float


# --- cards --------------------------------------------------------------------------------


@router.get("/cards", response_model=list[CardOut])
def list_cards(
    web: Web,
    status: Literal["proposed", "approved", "dropped"] | None = None,
    content: IdQuery = None,
    concept: IdQuery = None,
) -> list[dict[str, Any]]:
    """Cards by book, concept and difficulty; `status`, `content`, `concept` narrow them."""
    which = ItemFilter(
        status=ItemStatus(status) if status else None, content_id=content, concept_id=concept
    )
    store = web.services.store
    return card_views(store, card_service.list_items(store, which))


@router.post("/cards/decide", response_model=list[CardOut], dependencies=Csrf)
def decide(body: DecideIn, web: Web) -> list[dict[str, Any]]:
    """Approve or drop cards (their vault card files follow); returns them as stored."""
    store = web.services.store
    known_items(store, body.ids)
    with card_errors():
        decided = card_service.decide(web.services, body.ids, ItemStatus(body.status))
    return card_views(store, decided)


@router.post("/cards/{item_id}/edit", response_model=CardOut, dependencies=Csrf)
def edit(item_id: str, body: EditIn, web: Web) -> dict[str, Any]:
    """Reword a card; an edited card counts as approved."""
    store = web.services.store
    known_items(store, [item_id])
    with card_errors():
        edited = card_service.edit(
            web.services, item_id, front=body.front, back=body.back, explanation=body.explanation
        )
    return card_views(store, [edited])[0]


@router.post("/cards/generate", response_model=GenerationOut, dependencies=Csrf)
def generate(body: GenerateIn, web: Web) -> dict[str, Any]:
    """Propose cards for every reviewed concept, one book's, or the ones named (both given:
    the named ones of that book), or straight from one content's passages
    (`from_passages`), as `zettelgraph cards generate --json`. The cards are written as
    proposed; the report says what the checks set aside and why."""
    store = web.services.store
    for given in (body.content_id, body.from_passages):
        if given is not None and store.get_content(given) is None:
            raise HTTPException(status_code=404, detail=f"no content with id {given!r}")
    unknown = [c for c in body.concept_ids or [] if store.get_concept(c) is None]
    if unknown:
        raise HTTPException(status_code=404, detail=f"no concept with id {unknown[0]!r}")
    with actions.model_failures("no card was written"), card_errors():
        report = generate_cards(
            web.services,
            concept_ids=body.concept_ids,
            content_id=body.content_id,
            from_passages=body.from_passages,
        )
    return report.as_dict()


# --- study --------------------------------------------------------------------------------


@router.get("/study/next", response_model=NextOut)
def next_card(web: Web, content: IdQuery = None) -> dict[str, Any]:
    """The card a study session shows next, with what each rating would schedule."""
    store = web.services.store
    if content is not None and store.get_content(content) is None:
        raise HTTPException(status_code=404, detail=f"no content with id {content!r}")
    now = clock()
    which = ItemFilter(content_id=content)
    queue = study.study_queue(store, web.settings, now=now, which=which, limit=1)
    item = queue.first()
    later = next_due(store, which, now) if item is None else None
    return {
        "card": card_views(store, [item])[0] if item is not None else None,
        **queue_counts(queue),
        "intervals": intervals(web, item, now) if item is not None else [],
        "next_due": later.isoformat() if later is not None else None,
    }


@router.post("/study/{item_id}", response_model=RatedOut, dependencies=Csrf)
def rate(item_id: str, body: RateIn, web: Web) -> dict[str, Any]:
    """Rate an approved card now: its new FSRS state and the review log, in one write."""
    store = web.services.store
    known_items(store, [item_id])
    with card_errors():
        rating = study.parse_rating(body.rating)
        studied = study.rate(
            store,
            study.scheduler_for(web.settings),
            item_id,
            rating,
            now=clock(),
            duration_ms=body.duration_ms,
        )
    return {"card": card_views(store, [studied.item])[0], "log": studied.log}


@router.get("/study/stats", response_model=StatsOut)
def stats(web: Web) -> dict[str, Any]:
    """Due now and today, reviews today, retention, by state; in total and per book (as
    `zettelgraph cards stats --json`)."""
    return study_stats.stats(web.services.store, now=clock()).as_dict()
