"""The reader's corrections in the browser: the concept page's edit form, its delete and
remove-relation buttons, the source page's remove button, and the list of removals; through
the same services as `zettelgraph concept edit|delete`, `unlink` and `contents remove`.

Plain forms, no JavaScript: an edit posts and returns to the concept (a refused one shows the
page again with the reason, the form open with what the reader typed); a deletion first shows
a confirmation page listing what goes (a GET, nothing written), whose form posts the deletion
and leads to the list of removals.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, Response

from zettelgraph.services import concept_edits, content_removal, corrections, deletions
from zettelgraph.services.concept_edits import MAX_TEXT_CHARS, MAX_TITLE_CHARS
from zettelgraph.services.corrections import CorrectionError
from zettelgraph.web import actions
from zettelgraph.web.pages.common import (
    HTMLRoute,
    concept_href,
    render,
    render_concept,
    see_other,
    source_href,
)
from zettelgraph.web.security import Csrf
from zettelgraph.web.state import Web

router = APIRouter(route_class=HTMLRoute, include_in_schema=False)
# A refused edit answers with the status the API gives the same refusal.
_STATUS = {corrections.UnknownError: 404, corrections.RefusedError: 409}


@router.post("/concepts/{concept_id}/edit", response_class=HTMLResponse, dependencies=Csrf)
def edit_concept(
    concept_id: str,
    request: Request,
    web: Web,
    title: Annotated[str, Form(max_length=MAX_TITLE_CHARS * 2)],
    statement: Annotated[str, Form(max_length=MAX_TEXT_CHARS * 2)],
    analysis: Annotated[str, Form(max_length=MAX_TEXT_CHARS * 2)] = "",
) -> Response:
    concept = actions.concept_or_404(web, concept_id)
    try:
        concept_edits.edit_concept(
            web.services, concept.id, title=title, statement=statement, analysis=analysis
        )
    except CorrectionError as exc:
        return render_concept(
            request,
            web,
            concept,
            status_code=_STATUS.get(type(exc), 422),
            edit_error=str(exc),
            edit_form={"title": title, "statement": statement, "analysis": analysis},
        )
    return see_other(concept_href(concept.id))


def _confirm(request: Request, **context: Any) -> HTMLResponse:
    return render(request, "confirm.html", context.pop("nav"), **context)


@router.get("/concepts/{concept_id}/delete", response_class=HTMLResponse)
def confirm_concept_deletion(concept_id: str, request: Request, web: Web) -> HTMLResponse:
    plan = deletions.plan_concept_deletion(
        web.services.store, actions.concept_or_404(web, concept_id)
    )
    data = plan.as_dict()
    relations = [
        f"{r['source']} -[{r['type']}]-> {r['target']}"
        for r in data["relations"]
        if not r["reverse"]
    ]
    return _confirm(
        request,
        nav="concepts",
        heading=f"Delete “{plan.concept.title}”?",
        goes=[
            _group(
                relations, "{n} relation, with its reverse", "{n} relations, with their reverses"
            ),
            _group(_fronts(data), "{n} card that tests it", "{n} cards that test it"),
            {"label": "its vault note (moved to the vault's .trash/)", "items": []},
        ],
        stays=[
            f"The {data['attributions']} quote(s) attributed to it (only the attribution goes)",
            *(f"{n['title']}: loses its relation to this concept" for n in data["neighbours"]),
        ],
        action=concept_href(plan.concept.id) + "/delete",
        button="Delete the concept",
        back=concept_href(plan.concept.id),
    )


def _fronts(data: dict[str, Any]) -> list[str]:
    return [card["front"] for card in data["cards"]]


def _count(n: int, one: str, many: str) -> str:
    return (one if n == 1 else many).format(n=n or "no")


def _group(items: list[str], one: str, many: str) -> dict[str, Any]:
    """A line of the confirmation: how many of a kind go, and which."""
    return {"label": _count(len(items), one, many), "items": items}


@router.post("/concepts/{concept_id}/delete", response_class=HTMLResponse, dependencies=Csrf)
def delete_concept(concept_id: str, web: Web) -> Response:
    concept = actions.concept_or_404(web, concept_id)
    with actions.correction_refusals():
        deletions.delete_concept(web.services, concept.id)
    return see_other("/removals")


@router.get("/concepts/{concept_id}/unlink", response_class=HTMLResponse)
def confirm_unlink(
    concept_id: str,
    request: Request,
    web: Web,
    source: Annotated[str, Query(max_length=200)],
    target: Annotated[str, Query(max_length=200)],
    relation: Annotated[str, Query(alias="type", max_length=64)],
) -> HTMLResponse:
    """Confirm removing `source -[type]-> target`, asked from the concept page of
    `concept_id` (where the reader goes back to)."""
    concept = actions.concept_or_404(web, concept_id)
    with actions.correction_refusals():
        plan = deletions.plan_unlink(web.services, source, target, relation)
    titles = {plan.source.id: plan.source.title, plan.target.id: plan.target.title}
    edges = [f"{titles[r.source_id]} -[{r.type}]-> {titles[r.target_id]}" for r in plan.relations]
    return _confirm(
        request,
        nav="concepts",
        heading=f"Remove {edges[0]}?",
        goes=[
            _group(edges, "the relation", "the relation and its reverse"),
            _group(
                [c.front for c in plan.cards],
                "{n} card that asks how the two relate",
                "{n} cards that ask how the two relate",
            ),
        ],
        stays=["Both concepts; their vault notes are rewritten without it"],
        action=concept_href(concept.id) + "/unlink",
        fields={"source": source, "type": relation, "target": target},
        button="Remove the relation",
        back=concept_href(concept.id) + "#relations",
    )


@router.post("/concepts/{concept_id}/unlink", response_class=HTMLResponse, dependencies=Csrf)
def unlink(
    concept_id: str,
    web: Web,
    source: Annotated[str, Form(max_length=200)],
    target: Annotated[str, Form(max_length=200)],
    relation: Annotated[str, Form(alias="type", max_length=64)],
) -> Response:
    concept = actions.concept_or_404(web, concept_id)
    with actions.correction_refusals():
        deletions.unlink_concepts(web.services, source, target, relation)
    return see_other(concept_href(concept.id) + "#relations")


@router.get("/sources/{content_id}/remove", response_class=HTMLResponse)
def confirm_source_removal(content_id: str, request: Request, web: Web) -> HTMLResponse:
    with actions.correction_refusals():
        plan = content_removal.plan_content_removal(web.services.store, content_id)
    data = plan.as_dict()
    blocked = content_removal.open_run_message(actions.extraction_runs(web), plan.content)
    author = data["author"]
    return _confirm(
        request,
        nav="sources",
        status_code=409 if blocked else 200,
        heading=f"Remove “{data['title']}”?",
        blocked=blocked,
        goes=[
            {
                "label": _count(data["passages"], "{n} passage", "{n} passages")
                + _count(data["sections"], ", {n} section", ", {n} sections"),
                "items": [],
            },
            _group(
                [c["title"] for c in data["concepts"]],
                "{n} concept only it supports, with its relations",
                "{n} concepts only it supports, with their relations",
            ),
            _group(_fronts(data), "{n} card", "{n} cards that test them or cite it"),
            _group(
                [e["name"] for e in data["entities"]],
                "{n} entity found only in it",
                "{n} entities found only in it",
            ),
            *([{"label": f"its author, {author}", "items": []}] if data["author_removed"] else []),
        ],
        stays=[
            *(f"{c['title']}: loses its quotes from this source" for c in data["concepts_kept"]),
            *(
                f"{n['title']}: loses its relations to the concepts that go"
                for n in data["neighbours"]
                if n["id"] not in {c["id"] for c in data["concepts_kept"]}
            ),
            *(
                [f"Its author, {author} (another source is theirs)"]
                if author and not data["author_removed"]
                else []
            ),
        ],
        action=source_href(plan.content.id) + "/remove",
        button="Remove the source",
        back=source_href(plan.content.id),
    )


@router.post("/sources/{content_id}/remove", response_class=HTMLResponse, dependencies=Csrf)
def remove_source(content_id: str, web: Web) -> Response:
    with actions.correction_refusals():
        content_removal.remove_content(web.services, content_id, actions.extraction_runs(web))
    return see_other("/removals")


@router.get("/removals", response_class=HTMLResponse)
def removals_page(request: Request, web: Web) -> HTMLResponse:
    return render(request, "removals.html", "", removals=corrections.removals(web.services.store))
