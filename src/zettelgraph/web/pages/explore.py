"""The graph view.

The graph page embeds its data (what `/api/graph` returns, from `graph_view.graph_view`) as
JSON in a `<script type="application/json">` tag that `static/graph.js` draws with the
vendored cytoscape: concepts and pack entities, nodes coloured by entity type and relations
by relation type, filtered by type and pack with a plain GET form. With no starting node and
more nodes than `Settings.graph_budget`, it draws the communities of `graph_overview` instead,
each opened by `?community=ANCHOR` (repeated for a community's parts) and listed under the
canvas for readers without JavaScript. Search and ask are in `ask.py`.
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse

from zettelgraph.models import Concept, Entity
from zettelgraph.services import entities, graph_overview, graph_view
from zettelgraph.services.graph_view import NodeFilter
from zettelgraph.store.base import GraphStore
from zettelgraph.web.filters import PacksQuery, TypesQuery, filter_form, node_filter, pack_schema
from zettelgraph.web.pages.common import (
    HTMLRoute,
    graph_href,
    render,
)
from zettelgraph.web.state import Web, WebState

router = APIRouter(route_class=HTMLRoute, include_in_schema=False)

# `?community=A&community=B`: the communities opened, outermost first, each by its anchor.
CommunityQuery = Annotated[list[str], Query(max_length=8)]

# The graph around a node or a source draws at most this many nodes (cytoscape stays
# responsive with a fast layout; see static/graph.js); the whole graph is bounded by the budget.
GRAPH_LIMIT = 2000


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
    community: CommunityQuery = [],  # noqa: B006
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
    elif concept:
        # An entity's id is accepted too (the graph's links name any node).
        center = graph_view.get_node(store, concept)
        if center is None:
            raise HTTPException(status_code=404, detail=f"no concept {concept!r}")
    overview = center is None and source is None
    view: graph_overview.Overview | None = None
    opened: list[dict[str, str]] = []  # the communities opened, outermost first
    if overview:
        # With no starting point: the whole graph, or its communities past the budget.
        view = _overview(web, keep, community)
        opened = _opened(store, keep, community)
    if view is not None and view.communities:
        graph = graph_overview.community_graph(
            view, schema, lambda anchor: _community_href(keep, [*community, anchor])
        )
    else:
        graph = graph_view.graph_view(
            store,
            schema,
            concept_id=center.id if isinstance(center, Concept) else None,
            entity_id=center.id if isinstance(center, Entity) else None,
            content_id=source.id if source else None,
            keep=keep,
            depth=depth,
            limit=len(view.nodes) if view is not None else GRAPH_LIMIT,
            only=view.nodes if view is not None else None,
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
        "overview": overview,
        "communities": bool(view is not None and view.communities),
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
        center_title=graph_view.title_of(center) if center else "",
        center_href=graph_view.node_href(center) if center else "",
        source=source,
        depth=depth,
        legend=legend,
        node_legend=node_legend,
        form=form,
        hidden=hidden,
        clear=graph_href(**{k: v for k, v in hidden.items() if v}),
        overview=overview,
        view=view,
        opened=opened,
        whole_href=_community_href(keep, []),
        truncated=view.truncated if view is not None else len(graph["nodes"]) >= GRAPH_LIMIT,
    )


def _overview(web: WebState, keep: NodeFilter, community: list[str]) -> graph_overview.Overview:
    try:
        return graph_overview.overview(
            web.services.store,
            pack_schema(web),
            keep=keep,
            path=community,
            budget=web.settings.graph_budget,
        )
    except graph_overview.NoSuchCommunityError as error:
        raise HTTPException(
            status_code=404,
            detail=f"no community of {error.args[0]!r} here (the graph may have changed): "
            "open the whole graph at /graph",
        ) from error


def _opened(store: GraphStore, keep: NodeFilter, community: list[str]) -> list[dict[str, str]]:
    """The breadcrumb of the communities opened: each anchor's name and its page."""
    named: dict[str, graph_view.Node] = {node.id: node for node in store.get_entities(community)}
    named.update((c.id, c) for c in store.get_concepts([i for i in community if i not in named]))
    return [
        {
            "title": graph_view.title_of(named[anchor]) if anchor in named else anchor,
            "href": _community_href(keep, community[: i + 1]),
        }
        for i, anchor in enumerate(community)
    ]


def _community_href(keep: NodeFilter, path: list[str]) -> str:
    """The graph page of the community opened by `path`, under the same filter."""
    pairs = [("community", anchor) for anchor in path]
    pairs += [("type", t) for t in sorted(keep.types)] + [("pack", p) for p in sorted(keep.packs)]
    return f"/graph?{urlencode(pairs)}" if pairs else "/graph"
