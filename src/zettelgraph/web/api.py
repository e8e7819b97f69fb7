"""The JSON API under /api: the review inbox and decisions, the graph, sources, search and ask;
cards and study are `api_cards`'s, the template packs' entities `api_entities`'s, graph
extraction runs `api_graph_runs`'s, the reader's corrections `api_corrections`'s (experiments
and provenance, `api_experiments` and `api_provenance`, are mounted by `app.py`).

Every route calls the service functions the CLI calls (`services/browse.py`,
`services/ask.py`, `ExtractionRuns` through `web/actions.py`), so `zettelgraph concept ID
--json` and `GET /api/concepts/ID` say the same thing. The response models below only
describe those dicts for `/api/openapi.json`; they accept fields they do not name, so a field
a service adds reaches the client before the schema mentions it.

Errors: an unknown id is 404, a decision on a run that is not waiting is 409, a bad request
value (action, recipe, empty text) is 422, and a model that fails or cannot be used is 502.
Path and query values are only ever looked up as ids in the store or the checkpoints, never
used as filesystem paths.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request

from zettelgraph.models import Answer, PassageFilter
from zettelgraph.retrieval.recipes import SearchRecipe, recipe_named
from zettelgraph.services import ask as asking
from zettelgraph.services import browse, graph_view
from zettelgraph.web import actions, api_cards, api_corrections, api_entities, api_graph_runs
from zettelgraph.web.api_models import (
    AskIn,
    AskOut,
    ChatOut,
    ConceptDetail,
    ConceptRow,
    ContentDetail,
    ContentRow,
    CsrfOut,
    DecisionIn,
    Graph,
    InboxRow,
    ItemsIn,
    PassageInContext,
    Run,
    RunSummary,
    SearchOut,
    StartIn,
)
from zettelgraph.web.filters import PacksQuery, TypesQuery, node_filter, pack_schema
from zettelgraph.web.security import require_csrf
from zettelgraph.web.state import WebState, state
from zettelgraph.workflows.context import Services

router = APIRouter(tags=["api"])
Web = Annotated[WebState, Depends(state)]
# Every state-changing route: the double-submitted CSRF token (or a bearer token) is required.
Csrf = [Depends(require_csrf)]


# --- helpers ------------------------------------------------------------------------------


def _not_found(what: str, given: str) -> HTTPException:
    return HTTPException(status_code=404, detail=f"no {what} with id {given!r}")


def _recipe(recipe: str | None, services: Services) -> SearchRecipe:
    try:
        return recipe_named(recipe or services.settings.search_recipe)
    except ValueError as exc:
        raise HTTPException(status_code=422, detail=str(exc)) from exc


# --- runs ---------------------------------------------------------------------------------


@router.get("/runs", response_model=list[InboxRow] | list[RunSummary])
def list_runs(
    web: Web, status: Literal["awaiting_review", "all"] = "awaiting_review"
) -> list[dict[str, Any]]:
    """Runs waiting for review (the inbox), or every run without its report."""
    if status == "awaiting_review":
        return browse.inbox(web.runs)
    rows = [view.as_dict() for view in web.runs.list()]
    return [{k: v for k, v in row.items() if k != "report"} for row in rows]


@router.get("/runs/{run_id}", response_model=Run)
def get_run(run_id: str, web: Web) -> dict[str, Any]:
    """One run, with its report when it waits for review."""
    return actions.get_run(web, run_id).as_dict()


@router.post("/runs/{run_id}/decision", response_model=Run, dependencies=Csrf)
def decide(run_id: str, body: DecisionIn, web: Web) -> dict[str, Any]:
    """Approve (write the concepts and notes), send feedback (get a revised report), or abort.

    409 when the run is not waiting for review: already decided, or decided by a request
    running at the same time. Nothing is changed then.
    """
    return actions.decide(web, run_id, body.action, body.feedback).as_dict()


@router.post("/runs/{run_id}/items", response_model=Run, dependencies=Csrf)
def decide_items(run_id: str, body: ItemsIn, web: Web) -> dict[str, Any]:
    """Decide on single items of a concept run waiting for review: keep, drop, edit, merge,
    move_quote, remove_quote, retype, relate, undecide (see `review RUN --help`). The run
    stays waiting for review; approving then writes exactly what is kept.

    422 when a decision does not fit the proposal (none is saved then); 409 when the run is
    not waiting for review or another decision on it is in progress.
    """
    return actions.decide_items(web, run_id, body.decisions).as_dict()


@router.post("/contents/{content_id}/runs", response_model=Run, dependencies=Csrf)
def start_run(content_id: str, body: StartIn, web: Web) -> dict[str, Any]:
    """Extract concepts from a content, up to the review (or the end, for a skipped one).

    409 when a run of this content is already waiting for review, so a double-submitted form
    does not start two.
    """
    if web.services.store.get_content(content_id) is None:
        raise _not_found("content", content_id)
    view, started = actions.start(web, content_id, suggestions=body.suggestions, force=body.force)
    if not started:
        raise HTTPException(
            status_code=409,
            detail=f"run {view.run_id} of this content is waiting for review: decide it first",
        )
    return view.as_dict()


# --- the graph and its sources ------------------------------------------------------------


@router.get("/concepts", response_model=list[ConceptRow])
def list_concepts(web: Web, q: str = "") -> list[dict[str, Any]]:
    """Every concept by title, or those whose title or summary contains `q`."""
    return browse.concept_rows(web.services.store, q)


@router.get("/concepts/{concept_id}", response_model=ConceptDetail)
def get_concept(concept_id: str, web: Web) -> dict[str, Any]:
    """A concept with its relations both ways, its supporting passages and its provenance."""
    store = web.services.store
    concept = store.get_concept(concept_id)
    if concept is None:
        raise _not_found("concept", concept_id)
    return browse.concept_detail(store, concept)


@router.get("/graph", response_model=Graph)
def graph(
    web: Web,
    concept: str | None = None,
    content: str | None = None,
    entity: str | None = None,
    depth: int = 2,
    limit: int = 300,
    types: TypesQuery = [],  # noqa: B006 (FastAPI copies the default)
    packs: PacksQuery = [],  # noqa: B006
) -> dict[str, Any]:
    """Concepts, entities and their relations around a concept or an entity, or around the
    concepts and entities of a content's passages; with none of them and a filter, every node
    the filter keeps.

    `?type=Person&type=Concept` and `?pack=narrative` keep only nodes of those entity types
    (a concept is of type Concept) and packs; the starting node is always shown. Nodes carry
    their `type`, `pack` and `color`; `colors` and `node_colors` give the colour of each
    relation and entity type shown. `depth` is clamped to 1..4 hops and `limit` to 1..5000
    nodes.
    """
    store = web.services.store
    keep = node_filter(types, packs)
    if concept is None and content is None and entity is None and not keep.active:
        raise HTTPException(
            status_code=422, detail="give ?concept=ID, ?entity=ID, ?content=ID or ?type=TYPE"
        )
    if concept is not None and store.get_concept(concept) is None:
        raise _not_found("concept", concept)
    if entity is not None and not store.get_entities([entity]):
        raise _not_found("entity", entity)
    if content is not None and store.get_content(content) is None:
        raise _not_found("content", content)
    return graph_view.graph_view(
        store,
        pack_schema(web),
        concept_id=concept,
        entity_id=None if concept else entity,
        content_id=content,
        keep=keep,
        depth=min(max(depth, 1), 4),
        limit=min(max(limit, 1), 5000),
    )


@router.get("/contents", response_model=list[ContentRow])
def list_contents(web: Web) -> list[dict[str, Any]]:
    """Every content with its author and number of passages."""
    return browse.content_rows(web.services.store)


@router.get("/contents/{content_id}", response_model=ContentDetail)
def get_content(content_id: str, web: Web) -> dict[str, Any]:
    """A content with its author, sections and passages in reading order."""
    detail = browse.content_detail(web.services.store, content_id)
    if detail is None:
        raise _not_found("content", content_id)
    return detail


@router.get("/passages/{passage_id}", response_model=PassageInContext)
def get_passage(passage_id: str, web: Web) -> dict[str, Any]:
    """A passage (what an answer's [n] cites) in its section, with its neighbours."""
    store = web.services.store
    found = store.get_quotes([passage_id])
    if not found:
        raise _not_found("passage", passage_id)
    quote = found[0]
    sections = store.get_sections([quote.parent_id]) if quote.parent_id is not None else []
    order = [q.id for q in store.quotes_of(quote.content_id)]
    place = order.index(quote.id) if quote.id in order else -1
    return {
        "passage": browse.passage_view(store, quote),
        "section": sections[0] if sections else None,
        "previous_id": order[place - 1] if place > 0 else None,
        "next_id": order[place + 1] if 0 <= place < len(order) - 1 else None,
    }


# --- search and ask -----------------------------------------------------------------------


FilterValues = Annotated[list[str], Query(max_length=50)]


def _filter(
    services: Services,
    content: list[str] | None,
    kind: list[str] | None,
    author: list[str] | None,
    where: list[str] | None,
) -> PassageFilter | None:
    """The filter of a request (None when it names none); 422 when it cannot be used."""
    try:
        return asking.passage_filter(
            services,
            contents=content or (),
            kinds=kind or (),
            authors=author or (),
            where=where or (),
        )
    except asking.FilterError as exc:
        raise HTTPException(status_code=422, detail=str(exc)) from exc


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
    with actions.model_failures():
        try:
            outcome = asking.ask(
                services,
                body.question,
                k=body.k,
                recipe=chosen,
                passages=passages,
                chat_id=body.chat_id or None,
            )
        except asking.UnknownChatError as exc:
            raise HTTPException(status_code=404, detail=str(exc)) from exc
    return outcome.as_dict()


@router.get("/chats/{chat_id}", response_model=ChatOut)
def chat(chat_id: str, web: Web) -> dict[str, Any]:
    """A chat's turns, first first, each as `POST /api/ask` returned it (without passages)."""
    try:
        turns = asking.chat_thread(web.services, chat_id)
    except asking.UnknownChatError as exc:
        raise HTTPException(status_code=404, detail=str(exc)) from exc
    return {"chat_id": chat_id, "turns": [asking.answer_dict(a) for a in turns]}


@router.get("/answers", response_model=list[Answer])
def answers(web: Web, limit: Annotated[int, Query(ge=1, le=1000)] = 50) -> list[Answer]:
    """Questions asked and their answers, newest first."""
    return web.services.store.answers(limit=limit)


@router.get("/csrf", response_model=CsrfOut)
def csrf(request: Request) -> dict[str, str]:
    """The CSRF token of this browser session (its `zg_session_PORT` cookie, set by this
    answer when it has none), for scripts that post with cookies; a request with
    `Authorization: Bearer TOKEN` needs none."""
    token: str = request.state.csrf_token
    return {"csrf_token": token}


router.include_router(api_cards.router)
router.include_router(api_entities.router)
router.include_router(api_graph_runs.router)
router.include_router(api_corrections.router)
