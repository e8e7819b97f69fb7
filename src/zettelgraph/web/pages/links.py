"""The concept page's "link to another concept" form: the reader's own relation, through the
same service as `zettelgraph link` (`services/links.py`).

A link made is followed by a redirect to the concept's relations; one the service refuses is
answered with the concept page again (status 400), the reason above the form and what the
reader typed kept in it.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, Response

from zettelgraph.packs.relations import CONCEPT_TYPE, RelationVocabulary
from zettelgraph.services.links import MAX_WHY_CHARS, LinkError, link_concepts
from zettelgraph.web import actions
from zettelgraph.web.pages.common import (
    HTMLRoute,
    concept_href,
    render_concept,
    see_other,
    template_globals,
)
from zettelgraph.web.security import Csrf
from zettelgraph.web.state import Web

router = APIRouter(route_class=HTMLRoute, include_in_schema=False)


def concept_link_types(vocabulary: RelationVocabulary) -> list[tuple[str, str]]:
    """(type, description) of every type a concept may link to another concept with."""
    concepts = vocabulary.between(CONCEPT_TYPE, CONCEPT_TYPE)
    return [(name, concepts.descriptions.get(name, "")) for name in concepts.names]


template_globals(concept_link_types=concept_link_types)


@router.post(
    "/concepts/{concept_id}/links",
    response_class=HTMLResponse,
    dependencies=Csrf,
)
def add_link(
    concept_id: str,
    request: Request,
    web: Web,
    target: Annotated[str, Form(max_length=300)],
    relation: Annotated[str, Form(max_length=64)],
    why: Annotated[str, Form(max_length=MAX_WHY_CHARS * 2)] = "",
) -> Response:
    concept = actions.concept_or_404(web, concept_id)
    try:
        link_concepts(web.services, concept.id, target, relation, why)
    except LinkError as exc:
        return render_concept(
            request,
            web,
            concept,
            status_code=400,
            link_error=str(exc),
            link_form={"target": target, "relation": relation, "why": why},
        )
    return see_other(concept_href(concept.id) + "#relations")
