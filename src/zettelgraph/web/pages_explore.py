"""The graph view and search / ask pages.

The graph page embeds its data (what `/api/graph` returns, from `graph_view.graph_view`) as
JSON in a `<script type="application/json">` tag that `static/graph.js` draws with the
vendored cytoscape: concepts and pack entities, nodes coloured by entity type and relations
by relation type, filtered by type and pack with a plain GET form. Ask renders the answer's
[n] markers as links to the cited passages, keeps the chat's earlier turns above it, and
narrows search and ask with a filter (source, kind, author, where).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, Response

from zettelgraph.models import Answer, Concept, Entity, PassageFilter
from zettelgraph.services import ask as ask_flow
from zettelgraph.services import browse, entities, graph_view
from zettelgraph.services.errors import MODEL_ERRORS, model_error_message
from zettelgraph.web.filters import PacksQuery, TypesQuery, filter_form, node_filter, pack_schema
from zettelgraph.web.pages_common import (
    HTMLRoute,
    Web,
    graph_href,
    linked_answer,
    passage_href,
    render,
    see_other,
)
from zettelgraph.web.security import require_csrf
from zettelgraph.web.state import WebState

router = APIRouter(route_class=HTMLRoute, include_in_schema=False)

# The graph page draws at most this many concepts (cytoscape stays responsive with a fast
# layout; see static/graph.js).
GRAPH_LIMIT = 2000
QUESTION_MAX = 2000
FILTER_MAX = 500


@router.get("/graph", response_class=HTMLResponse)
def graph_page(
    request: Request,
    web: Web,
    concept: Annotated[str | None, Query(max_length=200)] = None,
    content: Annotated[str | None, Query(max_length=200)] = None,
    entity: Annotated[str | None, Query(max_length=200)] = None,
    depth: Annotated[int, Query(ge=1, le=3)] = 2,
    types: TypesQuery = [],  # noqa: B006 (FastAPI copies the default)
    packs: PacksQuery = [],  # noqa: B006
) -> HTMLResponse:
    store = web.services.store
    schema = pack_schema(web)
    keep = node_filter(types, packs)
    center: Concept | Entity | None = None
    source = None
    if content:
        source = store.get_content(content)
        if source is None:
            raise HTTPException(status_code=404, detail=f"no source {content!r}")
    elif entity:
        found = store.get_entities([entity])
        if not found:
            raise HTTPException(status_code=404, detail=f"no entity {entity!r}")
        center = found[0]
    else:
        if not concept and not keep.active:
            concept = _most_related(web)
        if concept:
            # The most related node may be an entity, when there is no concept yet.
            center = graph_view.get_node(store, concept)
            if center is None:
                raise HTTPException(status_code=404, detail=f"no concept {concept!r}")
    graph: dict[str, Any] = {"nodes": [], "edges": [], "colors": {}, "node_colors": {}}
    if center is not None or source is not None or keep.active:
        graph = graph_view.graph_view(
            store,
            schema,
            concept_id=center.id if isinstance(center, Concept) else None,
            entity_id=center.id if isinstance(center, Entity) else None,
            content_id=source.id if source else None,
            keep=keep,
            depth=depth,
            limit=GRAPH_LIMIT,
        )
    vocabulary = web.services.store_vocabulary
    legend = [
        {
            "type": t,
            "color": color,
            "symmetric": vocabulary.is_symmetric(t),
            "description": vocabulary.descriptions.get(t, ""),
        }
        for t, color in graph["colors"].items()
    ]
    node_legend = [
        {"type": t, "color": c, "pack": schema.defined_by.get(t, "")}
        for t, c in sorted(graph["node_colors"].items())
    ]
    data = {
        **graph,
        "center": center.id if center else None,
        "overview": center is None and source is None,
        "symmetric": [t for t in graph["colors"] if vocabulary.is_symmetric(t)],
    }
    form = filter_form(schema, entities.entity_types(store, schema, concepts=True), keep)
    hidden = {
        "concept": center.id if isinstance(center, Concept) else None,
        "entity": center.id if isinstance(center, Entity) else None,
        "content": source.id if source else None,
    }
    return render(
        request,
        "graph.html",
        "graph",
        data=data,
        center=center,
        center_title=center.title if isinstance(center, Concept) else center.name if center else "",
        center_href=graph_view.node_href(center) if center else "",
        source=source,
        depth=depth,
        legend=legend,
        node_legend=node_legend,
        form=form,
        hidden=hidden,
        clear=graph_href(**{k: v for k, v in hidden.items() if v}),
        overview=center is None and source is None and keep.active,
        truncated=len(graph["nodes"]) >= GRAPH_LIMIT,
    )


def _most_related(web: WebState) -> str | None:
    """The concept with the most relations, or, with no concept yet, the entity."""
    store = web.services.store
    rows = browse.concept_rows(store)
    if not rows:
        rows = entities.entity_rows(store, pack_schema(web))
    return max(rows, key=lambda row: row["relations"])["id"] if rows else None


def _search_rows(results: list[Any]) -> list[dict[str, Any]]:
    return [
        {**r.model_dump(mode="json"), "href": passage_href(r.content_id, r.passage_id)}
        for r in results
    ]


# --- ask ----------------------------------------------------------------------------------
# One form: a question, the chat it continues (hidden), the filter, and two buttons: Ask
# (POST, an LLM call, a turn of the chat) and Search (redirected to GET /ask?q=..., no LLM,
# a page that can be bookmarked). GET /ask?chat=ID shows a conversation to continue.

FilterField = Annotated[str, Form(max_length=FILTER_MAX)]
FilterQuery = Annotated[str, Query(max_length=FILTER_MAX)]


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


def _turns(turns: list[Answer]) -> list[dict[str, Any]]:
    """Earlier turns of a chat, each answer's [n] linked to the passage it cites."""
    rows = []
    for answer in turns:
        targets = {
            int(c["n"]): passage_href(c.get("content_id"), c.get("quote_id"))
            for c in answer.citations
            if c.get("cited")
        }
        rows.append(
            {
                "turn": answer.turn,
                "question": answer.question,
                "standalone": answer.standalone_question,
                "answerable": answer.answerable,
                "answer": answer.answer,
                "html": linked_answer(answer.answer, targets) if answer.answerable else None,
            }
        )
    return rows


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


@router.get("/ask", response_class=HTMLResponse)
def search_page(
    request: Request,
    web: Web,
    q: Annotated[str, Query(max_length=QUESTION_MAX)] = "",
    chat: Annotated[str, Query(max_length=100)] = "",
    content: FilterQuery = "",
    kind: FilterQuery = "",
    author: FilterQuery = "",
    where: FilterQuery = "",
) -> HTMLResponse:
    fields = {"content": content, "kind": kind, "author": author, "where": where}
    thread: list[Answer] = []
    try:
        if chat:
            thread = ask_flow.chat_thread(web.services, chat)
            last = thread[-1].passage_filter
            if last and not any(fields.values()):
                fields = ask_flow.filter_fields(PassageFilter.model_validate(last))
        passages = _form_filter(web, fields)
    except ask_flow.UnknownChatError as exc:
        raise HTTPException(status_code=404, detail=str(exc)) from exc
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


@router.post("/ask", response_class=HTMLResponse, dependencies=[Depends(require_csrf)])
def ask_page(
    request: Request,
    web: Web,
    question: Annotated[str, Form(max_length=QUESTION_MAX)] = "",
    chat: Annotated[str, Form(max_length=100)] = "",
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
    answer = result.answer
    earlier = ask_flow.chat_thread(web.services, answer.chat_id or "")
    rows = _search_rows(result.results)
    cited = {c["n"] for c in answer.citations if c.get("cited")}
    targets = {row["n"]: row["href"] for row in rows if row["n"] in cited}
    return _ask_page(
        request,
        web,
        q="",  # the box is for the next question
        chat_id=answer.chat_id or "",
        thread=_turns([a for a in earlier if a.turn < answer.turn]),
        fields=fields,
        asked=question,
        answer=answer,
        answer_html=linked_answer(answer.answer, targets) if answer.answerable else None,
        cited=[row for row in rows if row["n"] in cited],
        results=[row for row in rows if row["n"] not in cited],
        warnings=result.warnings,
        searched=True,
    )
