"""The Cards pages: review generated cards in bulk (approve, drop, edit) and generate them;
the links between them and the Study pages (`study.py`).

Every change goes through the same services as `zettelgraph cards` (`services/cards.py`,
`services/card_generation.py`); a refusal from them (`CardError`) is shown as a message on
the page, with status 400. Forms carry the CSRF token like the review page's, and decisions
and edits answer with a redirect (POST-redirect-GET), so reloading never decides twice;
generation shows its report in the answer to its POST, as Ask shows its answer.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Depends, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, Response

from zettelgraph.models import ItemStatus, LearningItem
from zettelgraph.services import browse
from zettelgraph.services import cards as card_service
from zettelgraph.services.card_generation import generate_cards
from zettelgraph.services.cards import CardError, ItemFilter
from zettelgraph.services.errors import MODEL_ERRORS, model_error_message
from zettelgraph.web.cards_common import (
    books_with_cards,
    card_views,
    known_items,
)
from zettelgraph.web.pages.common import HTMLRoute, render, see_other, template_globals
from zettelgraph.web.security import Csrf
from zettelgraph.web.state import Web, WebState

router = APIRouter(route_class=HTMLRoute, include_in_schema=False)

PAGE_SIZE = 50
STATUSES = ("proposed", "approved", "dropped")
StatusField = Annotated[Literal["proposed", "approved", "dropped"], Form()]
ContentField = Annotated[str, Form(max_length=200)]
PageField = Annotated[int, Form(ge=1, le=100_000)]
EDITABLE = ("front", "back", "explanation")
TEXT_MAX = 2000


def cards_href(
    status: str = "proposed",
    content: str = "",
    page: int = 1,
    **notice: str | int,
) -> str:
    """/cards with its tab, book and page (and what was just done), from validated values."""
    query: dict[str, str | int] = {"status": status}
    if content:
        query["content"] = content
    if page > 1:
        query["page"] = page
    return "/cards?" + urlencode({**query, **notice})


def card_href(item_id: str) -> str:
    return f"/cards/{quote(item_id, safe='')}"


def study_card_href(item_id: str) -> str:
    return f"/study/{quote(item_id, safe='')}"


def study_href(content: str = "", **extra: str | int) -> str:
    query = {k: v for k, v in (("content", content), *extra.items()) if v}
    return "/study" + (f"?{urlencode(query)}" if query else "")


template_globals(
    cards_href=cards_href,
    card_href=card_href,
    study_href=study_href,
    study_card_href=study_card_href,
)


def _cards_page(
    request: Request,
    web: WebState,
    *,
    status: str,
    content: str,
    page: int,
    error: str | None = None,
    notice: dict[str, Any] | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    store = web.services.store
    mine = card_service.list_states(store, ItemFilter(content_id=content or None))
    counts = {s: sum(1 for item in mine if item.status == s) for s in STATUSES}
    shown = [item for item in mine if item.status == status]
    pages = max(1, -(-len(shown) // PAGE_SIZE))
    page = min(page, pages)
    window = shown[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    return render(
        request,
        "cards.html",
        "cards",
        status_code=status_code,
        status=status,
        content=content,
        page=page,
        pages=pages,
        counts=counts,
        cards=card_views(store, store.get_learning_items([state.id for state in window])),
        books=books_with_cards(store, items=mine if not content else ()),
        error=error,
        notice=notice or {},
    )


@router.get("/cards", response_class=HTMLResponse)
def cards_page(
    request: Request,
    web: Web,
    status: Literal["proposed", "approved", "dropped"] = "proposed",
    content: Annotated[str, Query(max_length=200)] = "",
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
    done: Literal["approved", "dropped", "edited"] | None = None,
    n: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    card: Annotated[str, Query(max_length=200)] = "",
) -> HTMLResponse:
    notice = {"done": done, "n": n, "card": card} if done else None
    return _cards_page(request, web, status=status, content=content, page=page, notice=notice)


@router.post("/cards", dependencies=Csrf)
def decide_cards(
    request: Request,
    web: Web,
    decision: Annotated[Literal["approved", "dropped", "approve_all"], Form()],
    ids: Annotated[list[str] | None, Form(max_length=10_000)] = None,
    status: StatusField = "proposed",
    content: ContentField = "",
    page: PageField = 1,
) -> Response:
    """Approve or drop the cards ticked, or approve every proposed card (of the book shown)."""
    store = web.services.store
    if decision == "approve_all":
        which = ItemFilter(status=ItemStatus.PROPOSED, content_id=content or None)
        chosen = [item.id for item in card_service.list_items(store, which)]
    else:
        chosen = list(dict.fromkeys(ids or []))
    verdict = ItemStatus.DROPPED if decision == "dropped" else ItemStatus.APPROVED
    try:
        if not chosen:
            raise CardError(
                "no proposed cards to approve"
                if decision == "approve_all"
                else "tick the cards to approve or drop first"
            )
        known_items(store, chosen)
        card_service.decide(web.services, chosen, verdict)
    except CardError as exc:
        return _cards_page(
            request,
            web,
            status=status,
            content=content,
            page=page,
            error=str(exc),
            status_code=400,
        )
    return see_other(cards_href(status, content, page, done=str(verdict), n=len(chosen)))


def _generate_page(
    request: Request,
    web: WebState,
    *,
    content: str,
    report: dict[str, Any] | None = None,
    proposed: list[dict[str, Any]] | None = None,
    error: str | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    rows = browse.content_rows(web.services.store)
    every = sorted(rows, key=lambda row: (row["title"].casefold(), row["id"]))
    books = [row for row in every if row["processed_date"]]
    return render(
        request,
        "cards_generate.html",
        "cards",
        status_code=status_code,
        content=content,
        books=books,
        contents=every,
        report=report,
        proposed=proposed or [],
        error=error,
    )


@router.get("/cards/generate", response_class=HTMLResponse)
def generate_page(
    request: Request, web: Web, content: Annotated[str, Query(max_length=200)] = ""
) -> HTMLResponse:
    """Choose what to generate cards for."""
    return _generate_page(request, web, content=content)


@router.post("/cards/generate", response_class=HTMLResponse, dependencies=Csrf)
def generate(
    request: Request, web: Web, content: ContentField = "", from_passages: ContentField = ""
) -> HTMLResponse:
    """Propose cards for every reviewed concept, or one book's, or straight from one
    content's passages; show what was proposed and what the checks set aside, and why."""
    try:
        if from_passages:
            report = generate_cards(web.services, from_passages=from_passages)
        else:
            report = generate_cards(web.services, content_id=content or None)
    except CardError as exc:
        return _generate_page(request, web, content=content, error=str(exc), status_code=400)
    except MODEL_ERRORS as exc:
        why = model_error_message(exc) + "; no card was written"
        return _generate_page(request, web, content=content, error=why, status_code=502)
    return _generate_page(
        request,
        web,
        content=content,
        report=report.as_dict(),
        proposed=card_views(web.services.store, report.proposed),
    )


@router.get("/cards/{item_id}", response_class=HTMLResponse)
def card_page(item_id: str, request: Request, web: Web, saved: bool = False) -> HTMLResponse:
    """One card, with its edit form open."""
    (item,) = known_items(web.services.store, [item_id])
    return _card_page(request, web, item, saved=saved)


def _card_page(
    request: Request,
    web: WebState,
    item: LearningItem,
    *,
    error: str | None = None,
    saved: bool = False,
    status_code: int = 200,
) -> HTMLResponse:
    (view,) = card_views(web.services.store, [item])
    return render(
        request, "card.html", "cards", status_code=status_code, c=view, error=error, saved=saved
    )


async def _edited_fields(request: Request) -> dict[str, str]:
    """The card fields the edit form sent, as sent: an emptied explanation is "" (FastAPI's
    Form() would read an empty optional field as not sent)."""
    form = await request.form()
    out: dict[str, str] = {}
    for name in EDITABLE:
        value = form.get(name)
        if isinstance(value, str):
            if len(value) > TEXT_MAX:
                raise HTTPException(
                    status_code=422, detail=f"{name}: at most {TEXT_MAX} characters"
                )
            out[name] = value
    return out


@router.post("/cards/{item_id}/edit", dependencies=Csrf)
def edit_card(
    item_id: str,
    request: Request,
    web: Web,
    fields: Annotated[dict[str, str], Depends(_edited_fields)],
    status: Annotated[Literal["proposed", "approved", "dropped"] | None, Form()] = None,
    content: ContentField = "",
    page: PageField = 1,
) -> Response:
    """The reader's own wording; saving approves the card. Back to the list it was edited
    from (`status`, `content`, `page`), or to the card's page."""
    (item,) = known_items(web.services.store, [item_id])
    changed = {
        name: value.strip()
        for name, value in fields.items()
        if value.strip() != getattr(item, name)
    }
    try:
        if not changed:
            raise CardError("nothing changed: edit the front, the answer or the explanation")
        edited = card_service.edit(web.services, item.id, **changed)
    except CardError as exc:
        return _card_page(request, web, item, error=str(exc), status_code=400)
    if status is None:
        return see_other(card_href(edited.id) + "?saved=1")
    return see_other(
        cards_href(status, content, page, done="edited", n=1, card=edited.id)
        + f"#card-{quote(edited.id, safe='')}"
    )
