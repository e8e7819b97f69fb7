"""Search and ask under /api: passages for a query with citations (no LLM), a cited answer
(stored), a chat's turns and the answers asked so far (`services/ask.py`, as `zettelgraph
search` and `ask --json` print them).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query

from zettelgraph.context import Services
from zettelgraph.models import Answer, PassageFilter
from zettelgraph.retrieval.recipes import SearchRecipe, recipe_named
from zettelgraph.services import ask as asking
from zettelgraph.web import actions
from zettelgraph.web.api.models import AskIn, AskOut, ChatOut, SearchOut
from zettelgraph.web.security import Csrf
from zettelgraph.web.state import Web

router = APIRouter()


def _recipe(recipe: str | None, services: Services) -> SearchRecipe:
    with actions.refusals({ValueError: 422}):
        return recipe_named(recipe or services.settings.search_recipe, services.embedder.name)


FilterValues = Annotated[list[str], Query(max_length=50)]


def _filter(
    services: Services,
    content: list[str] | None,
    kind: list[str] | None,
    author: list[str] | None,
    where: list[str] | None,
) -> PassageFilter | None:
    """The filter of a request (None when it names none); 422 when it cannot be used."""
    with actions.refusals({asking.FilterError: 422}):
        return asking.passage_filter(
            services,
            contents=content or (),
            kinds=kind or (),
            authors=author or (),
            where=where or (),
        )


@router.get("/search", response_model=SearchOut)
def search(
    web: Web,
    q: Annotated[str, Query(min_length=1, max_length=2000)],
    k: Annotated[int | None, Query(ge=1, le=100)] = None,
    recipe: str | None = None,
    content: FilterValues = [],  # noqa: B006 (FastAPI copies the default)
    kind: FilterValues = [],  # noqa: B006
    author: FilterValues = [],  # noqa: B006
    where: FilterValues = [],  # noqa: B006
) -> dict[str, Any]:
    """Passages for a query by full-text, vector and graph search, with citations; no LLM.
    `content`, `kind`, `author` and `where` (each repeatable) narrow it as `zettelgraph
    search` does."""
    services = web.services
    chosen = _recipe(recipe, services)
    passages = _filter(services, content, kind, author, where)
    results = asking.search(services, q, k=k, recipe=chosen, passages=passages)
    return {"query": q, "results": results}


@router.post("/ask", response_model=AskOut, dependencies=Csrf)
def ask(body: AskIn, web: Web) -> dict[str, Any]:
    """A cited answer from the passages (stored), as `zettelgraph ask --json` prints it;
    with `chat_id`, the next turn of that chat."""
    services = web.services
    if not body.question.strip():
        raise HTTPException(status_code=422, detail="ask a question")
    chosen = _recipe(body.recipe, services)
    given = [body.content, body.kind, body.author, body.where]
    passages = _filter(services, *given)
    if passages is None and any(values is not None for values in given):
        passages = PassageFilter()  # named, and empty: search everything
    with actions.model_failures(), actions.refusals({asking.UnknownChatError: 404}):
        outcome = asking.ask(
            services,
            body.question,
            k=body.k,
            recipe=chosen,
            passages=passages,
            chat_id=body.chat_id or None,
        )
    return outcome.as_dict()


@router.get("/chats/{chat_id}", response_model=ChatOut)
def chat(chat_id: str, web: Web) -> dict[str, Any]:
    """A chat's turns, first first, each as `POST /api/ask` returned it (without passages)."""
    with actions.refusals({asking.UnknownChatError: 404}):
        turns = asking.chat_thread(web.services, chat_id)
    return {"chat_id": chat_id, "turns": [asking.answer_dict(a) for a in turns]}


@router.get("/answers", response_model=list[Answer])
def answers(web: Web, limit: Annotated[int, Query(ge=1, le=1000)] = 50) -> list[Answer]:
    """Questions asked and their answers, newest first."""
    return web.services.store.answers(limit=limit)
