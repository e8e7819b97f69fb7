"""Search and ask: one form, every answer at its own address, and the list of past chats.

The form holds a question, the chat it continues (hidden), the filter and two buttons: Search
(redirected to GET /ask?q=..., no LLM, a page that can be bookmarked) and Ask (POST, an LLM
call, a turn of the chat), which then redirects to the answer's own page,
`/ask/CHAT_ID/TURN`: its question, the answer with [n] linked to the cited passages, the
chat's earlier turns above it and the form for a follow-up. `/ask/CHAT_ID` is the chat's
latest turn and `/ask/history` lists past chats. Reloading an answer's page asks nothing
again.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, Response

from zettelgraph.models import Answer, PassageFilter, SearchResult
from zettelgraph.services import ask as ask_flow
from zettelgraph.services.errors import MODEL_ERRORS, model_error_message
from zettelgraph.web import actions
from zettelgraph.web.pages.common import (
    HTMLRoute,
    linked_answer,
    passage_href,
    render,
    see_other,
)
from zettelgraph.web.security import Csrf
from zettelgraph.web.state import Web, WebState

router = APIRouter(route_class=HTMLRoute, include_in_schema=False)

QUESTION_MAX = 2000
FILTER_MAX = 500
CHAT_MAX = 100

FilterField = Annotated[str, Form(max_length=FILTER_MAX)]
FilterQuery = Annotated[str, Query(max_length=FILTER_MAX)]


def answer_href(answer: Answer) -> str:
    """The answer's own page (an answer stored before chats has none)."""
    if not answer.chat_id:
        return ""
    return f"/ask/{quote(answer.chat_id, safe='')}/{answer.turn}"


def _search_rows(results: list[SearchResult]) -> list[dict[str, Any]]:
    return [
        {**r.model_dump(mode="json"), "href": passage_href(r.content_id, r.passage_id)}
        for r in results
    ]


def _form_filter(web: WebState, fields: dict[str, str]) -> PassageFilter:
    """The form's filter, explicit: empty fields search everything (a follow-up's form is
    filled with the chat's last filter, so nothing is inherited behind the reader's back)."""
    found = ask_flow.passage_filter(
        web.services,
        contents=[fields["content"]],
        kinds=[fields["kind"]],
        authors=[fields["author"]],
        where=[fields["where"]],
    )
    return found or PassageFilter()


def _linked(answer: Answer) -> Any:
    """The answer's text with each cited [n] a link to its passage."""
    targets = {
        int(c["n"]): passage_href(c.get("content_id"), c.get("quote_id"))
        for c in answer.citations
        if c.get("cited")
    }
    return linked_answer(answer.answer, targets) if answer.answerable else None


def _turns(turns: list[Answer]) -> list[dict[str, Any]]:
    """Earlier turns of a chat, each answer's [n] linked to the passage it cites."""
    return [
        {
            "turn": answer.turn,
            "href": answer_href(answer),
            "question": answer.question,
            "standalone": answer.standalone_question,
            "answerable": answer.answerable,
            "answer": answer.answer,
            "html": _linked(answer),
        }
        for answer in turns
    ]


def _ask_page(
    request: Request, web: WebState, *, status_code: int = 200, **context: Any
) -> HTMLResponse:
    defaults: dict[str, Any] = {
        "q": "",
        "chat_id": "",
        "thread": [],
        "fields": ask_flow.filter_fields(None),
        "results": [],
        "searched": False,
    }
    return render(
        request,
        "ask.html",
        "ask",
        status_code=status_code,
        choices=ask_flow.filter_choices(web.services),
        **{**defaults, **context},
    )


def _last_filter(thread: list[Answer]) -> dict[str, str]:
    """The form's fields for the filter the chat's last turn searched with."""
    last = thread[-1].passage_filter if thread else None
    return ask_flow.filter_fields(PassageFilter.model_validate(last) if last else None)


def _thread(web: WebState, chat_id: str) -> list[Answer]:
    with actions.refusals({ask_flow.UnknownChatError: 404}):
        return ask_flow.chat_thread(web.services, chat_id)


@router.get("/ask", response_class=HTMLResponse)
def search_page(
    request: Request,
    web: Web,
    q: Annotated[str, Query(max_length=QUESTION_MAX)] = "",
    chat: Annotated[str, Query(max_length=CHAT_MAX)] = "",
    content: FilterQuery = "",
    kind: FilterQuery = "",
    author: FilterQuery = "",
    where: FilterQuery = "",
) -> HTMLResponse:
    fields = {"content": content, "kind": kind, "author": author, "where": where}
    thread = _thread(web, chat) if chat else []
    if not any(fields.values()):
        fields = _last_filter(thread)
    try:
        passages = _form_filter(web, fields)
    except ask_flow.FilterError as exc:
        return _ask_page(
            request, web, status_code=422, q=q, chat_id=chat, fields=fields, filter_error=str(exc)
        )
    results = ask_flow.search(web.services, q, passages=passages) if q.strip() else []
    return _ask_page(
        request,
        web,
        q=q,
        chat_id=chat,
        thread=_turns(thread),
        fields=fields,
        results=_search_rows(results),
        searched=bool(q.strip()),
    )


@router.post("/ask", response_class=HTMLResponse, dependencies=Csrf)
def ask_page(
    request: Request,
    web: Web,
    question: Annotated[str, Form(max_length=QUESTION_MAX)] = "",
    chat: Annotated[str, Form(max_length=CHAT_MAX)] = "",
    content: FilterField = "",
    kind: FilterField = "",
    author: FilterField = "",
    where: FilterField = "",
    mode: Annotated[Literal["ask", "search"], Form()] = "ask",
) -> Response:
    fields = {"content": content, "kind": kind, "author": author, "where": where}
    if not question.strip():
        raise HTTPException(status_code=422, detail="write a question first")
    if mode == "search":
        pairs = {"q": question.strip(), "chat": chat, **fields}
        return see_other("/ask?" + urlencode({k: v for k, v in pairs.items() if v}))
    page: dict[str, Any] = {"q": question, "chat_id": chat, "fields": fields}
    try:
        passages = _form_filter(web, fields)
        result = ask_flow.ask(
            web.services, question.strip(), passages=passages, chat_id=chat or None
        )
    except ask_flow.UnknownChatError as exc:
        raise HTTPException(status_code=404, detail=str(exc)) from exc
    except ask_flow.FilterError as exc:
        return _ask_page(request, web, status_code=422, filter_error=str(exc), **page)
    except MODEL_ERRORS as exc:
        return _ask_page(request, web, status_code=502, error=model_error_message(exc), **page)
    # The answer is stored: its own page shows it, and a reload there asks nothing again.
    return see_other(answer_href(result.answer))


@router.get("/ask/history", response_class=HTMLResponse)
def history_page(request: Request, web: Web) -> HTMLResponse:
    chats = [
        {
            "href": answer_href(turns[-1]),
            "first": turns[0],
            "last": turns[-1],
            "turns": _turns(turns),
        }
        for turns in ask_flow.chats(web.services)
    ]
    return render(request, "ask_history.html", "ask", chats=chats)


@router.get("/ask/{chat_id}", response_class=HTMLResponse)
def chat_page(chat_id: str, request: Request, web: Web) -> HTMLResponse:
    """The chat's latest answer, its earlier turns above."""
    return _answer_page(request, web, _thread(web, chat_id), None)


@router.get("/ask/{chat_id}/{turn}", response_class=HTMLResponse)
def answer_page(chat_id: str, turn: int, request: Request, web: Web) -> HTMLResponse:
    return _answer_page(request, web, _thread(web, chat_id), turn)


def _answer_page(
    request: Request, web: WebState, thread: list[Answer], turn: int | None
) -> HTMLResponse:
    answer = thread[-1] if turn is None else next((a for a in thread if a.turn == turn), None)
    if answer is None:
        raise HTTPException(
            status_code=404,
            detail=f"chat {thread[0].chat_id!r} has turns 1 to {thread[-1].turn}, not {turn}",
        )
    rows = _search_rows(ask_flow.answer_results(web.services, answer))
    cited = {int(c["n"]) for c in answer.citations if c.get("cited")}
    return _ask_page(
        request,
        web,
        chat_id=answer.chat_id or "",
        thread=_turns([a for a in thread if a.turn < answer.turn]),
        later=_turns([a for a in thread if a.turn > answer.turn]),
        fields=_last_filter(thread),
        asked=answer.question,
        answer=answer,
        answer_html=_linked(answer),
        cited=[row for row in rows if row["n"] in cited],
        results=[row for row in rows if row["n"] not in cited],
        searched=True,
    )
