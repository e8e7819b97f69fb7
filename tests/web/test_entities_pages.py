"""The entity pages, their JSON API and the graph view by type, end to end: entities and
relations written through `store.apply(ChangeSet(...))` to a real SQLite store
(tests/entity_graph.py), the app over it, pages fetched like a browser does."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from entity_graph import HOSTILE, PERSON_COLOR, PLACE_COLOR, SCHEMA, EntityGraph, entity_graph
from zettelgraph.context import open_services
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.models import ChangeSet, Concept, Relation
from zettelgraph.packs.relations import FALLBACK_COLORS, SUPPORTS
from zettelgraph.settings import Settings
from zettelgraph.web.app import create_app

BASE_URL = "http://127.0.0.1"
MEMORIA, OLVIDO = "concept-memoria", "concept-olvido"


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[TestClient, EntityGraph]]:
    """The app over a home whose store holds the entity graph, two concepts (one supported by
    the first passage), and the test packs as the active schema."""
    home = tmp_path / "home"
    home.mkdir()
    graph = entity_graph(home / "store.db")
    graph.store.apply(
        ChangeSet(
            concepts=[
                Concept(id=MEMORIA, title="Memoria", concept="Recordar es narrar."),
                Concept(id=OLVIDO, title="Olvido", concept="Lo que no se cuenta."),
            ],
            relations=[
                Relation(source_id=MEMORIA, target_id=OLVIDO, type="OPPOSES"),
                Relation(source_id=graph.q1.id, target_id=MEMORIA, type=SUPPORTS),
            ],
        )
    )
    settings = Settings(home=home, llm="fake", embeddings="hash", llm_backoff=0.0)
    services = open_services(
        settings,
        store=graph.store,
        llms=ChatModels(settings, preset={"fake": FakeChatModel()}),
    )
    services.packs = SCHEMA
    client = TestClient(create_app(settings, services=services), base_url=BASE_URL)
    with client:
        yield client, graph
    services.close()


def graph_data(html: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', html, re.S)
    assert match, "no embedded graph data"
    data: dict[str, Any] = json.loads(match.group(1))
    return data


def names(rows: list[dict[str, Any]], key: str = "name") -> set[str]:
    return {row[key] for row in rows}


# --- the list and the filter ------------------------------------------------------------


def test_entities_page_lists_every_entity_with_a_filter_form(
    site: tuple[TestClient, EntityGraph],
) -> None:
    client, graph = site
    html = client.get("/entities").text

    assert '<a href="/entities" class="active" aria-current="page">Entities</a>' in html
    for e in (graph.gabriel, graph.cadiz, graph.claim):
        assert f'href="/entities/{e.id}"' in html
    assert "8 entities" in html
    # The filter: one checkbox per entity type of the active packs (not Concept, which is
    # not an entity), grouped by pack, and the pack choice.
    assert '<input type="checkbox" name="type" value="Person">' in html
    assert 'value="Concept"' not in html
    assert "<legend>narrative</legend>" in html and "<legend>research</legend>" in html
    assert '<option value="research">research</option>' in html
    assert f"--rel: {PERSON_COLOR}" in html


def test_the_list_filters_by_type_pack_and_text(site: tuple[TestClient, EntityGraph]) -> None:
    client, graph = site

    persons = client.get("/entities", params={"type": "Person"}).text
    assert '<input type="checkbox" name="type" value="Person" checked>' in persons
    assert f'href="/entities/{graph.marcial.id}"' in persons
    assert f'href="/entities/{graph.cadiz.id}"' not in persons
    assert "4 entities" in persons
    # The link to the graph of what the filter keeps.
    assert 'href="/graph?type=Person"' in persons

    both = client.get("/entities", params=[("type", "Person"), ("type", "Place")]).text
    assert "5 entities" in both
    research = client.get("/entities", params={"pack": "research"}).text
    assert "1 entity" in research and f'href="/entities/{graph.claim.id}"' in research
    assert '<option value="research" selected>' in research
    assert "1 entity" in client.get("/entities", params={"q": "cadiz"}).text  # accents folded
    assert "No entity matches" in client.get("/entities", params={"type": "Dragon"}).text
    refused = client.get("/entities", params={"type": "not a type!"})
    assert refused.status_code == 422 and "text/html" in refused.headers["content-type"]
    assert "not a type!" in refused.text


# --- one entity ---------------------------------------------------------------------------


def test_entity_page_shows_properties_relations_and_passages(
    site: tuple[TestClient, EntityGraph],
) -> None:
    client, graph = site
    html = client.get(f"/entities/{graph.gabriel.id}").text

    assert "<h1>Gabriel Araceli</h1>" in html
    assert f'<span class="rel etype" style="--rel: {PERSON_COLOR}">Person</span>' in html
    assert '<span class="kind" title="template pack">narrative</span>' in html
    assert "Narrador de los *Episodios nacionales*" in html
    assert "1791-03-01" in html and "Gabrielillo, el narrador" in html
    assert '<span class="meta">(date)</span>' in html and '<dt title="">name' in html
    assert f'href="/entities/{graph.marcial.id}">Marcial</a>' in html
    assert "Sirvieron juntos." in html
    assert f'href="/entities/{graph.novel.id}">Trafalgar</a>' in html  # INSPIRED, one way
    # KNOWS is stored both ways: listed once, not again as pointing here.
    assert "Pointing here" not in html
    # Both passages, with their source and place, linked in context.
    assert "Me llamo Gabriel Araceli y nací en Cádiz." in html
    assert "Marcial me contó la batalla." in html
    assert 'href="/sources/trafalgar#p-q1"' in html and 'href="/sources/trafalgar#p-q2"' in html
    assert f'href="/graph?entity={graph.gabriel.id}"' in html

    novel = client.get(f"/entities/{graph.novel.id}").text
    assert "Pointing here" in novel and f'href="/entities/{graph.gabriel.id}"' in novel
    missing = client.get("/entities/nope")
    assert missing.status_code == 404 and "no entity" in missing.text


def test_html_in_entities_is_shown_as_text(site: tuple[TestClient, EntityGraph]) -> None:
    client, graph = site
    pages = {
        "list": client.get("/entities").text,
        "entity": client.get(f"/entities/{graph.hostile.id}").text,
        "other": client.get(f"/entities/{graph.gabriel.id}").text,
        "graph": client.get("/graph", params={"entity": graph.hostile.id}).text,
    }
    for name, html in pages.items():
        assert "<script>alert" not in html and "<script>x" not in html, name
        assert "<b>bold</b>" not in html, name
    assert "&lt;script&gt;alert(1)&lt;/script&gt; ../../etc/passwd" in pages["entity"]
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; &lt;i&gt;more&lt;/i&gt;" in pages["entity"]
    assert "&lt;script&gt;x&lt;/script&gt;" in pages["other"]  # the relation's explanation
    # Inside the graph's JSON, tojson writes < as \u003c: no tag can close the script.
    assert "\\u003cscript\\u003ealert(1)" in pages["graph"]
    assert graph_data(pages["graph"])["nodes"][0]["title"] == HOSTILE


# --- the graph by type --------------------------------------------------------------------


def test_graph_around_an_entity_colours_nodes_by_type(
    site: tuple[TestClient, EntityGraph],
) -> None:
    client, graph = site
    page = client.get("/graph", params={"entity": graph.gabriel.id, "depth": 1})
    assert page.status_code == 200
    data = graph_data(page.text)

    nodes = {n["id"]: n for n in data["nodes"]}
    assert data["center"] == graph.gabriel.id and nodes[graph.gabriel.id]["hops"] == 0
    assert set(nodes) == {graph.gabriel.id, graph.marcial.id, graph.hostile.id, graph.novel.id}
    gabriel = nodes[graph.gabriel.id]
    assert (gabriel["kind"], gabriel["type"], gabriel["pack"]) == ("entity", "Person", "narrative")
    assert gabriel["color"] == PERSON_COLOR and gabriel["href"] == f"/entities/{graph.gabriel.id}"
    assert data["node_colors"] == {"Person": PERSON_COLOR, "Work": "#7c3aed"}
    # KNOWS is symmetric and stored both ways: drawn once per pair, in the pack's colour.
    knows = [e for e in data["edges"] if e["type"] == "KNOWS"]
    assert len(knows) == 2 and data["colors"]["KNOWS"] == "#f97316"
    assert "KNOWS" in data["symmetric"] and "INSPIRED" not in data["symmetric"]
    # The legends, and the filter form keeping the starting entity.
    assert "Node types" in page.text and "Relation types" in page.text
    assert f'<input type="hidden" name="entity" value="{graph.gabriel.id}">' in page.text
    assert '<input type="checkbox" name="type" value="Concept">' in page.text

    event = graph_data(client.get("/graph", params={"entity": graph.battle.id}).text)
    assert event["node_colors"]["Place"] == PLACE_COLOR
    assert event["node_colors"]["Event"] in FALLBACK_COLORS  # no colour in its pack


def test_graph_filter_by_type_and_pack(site: tuple[TestClient, EntityGraph]) -> None:
    client, graph = site

    page = client.get("/graph", params={"type": "Person"})
    data = graph_data(page.text)
    assert data["overview"] is True and data["center"] is None
    assert {n["type"] for n in data["nodes"]} == {"Person"} and len(data["nodes"]) == 4
    assert {(e["type"]) for e in data["edges"]} == {"KNOWS"}
    assert '<input type="checkbox" name="type" value="Person" checked>' in page.text
    assert "Graph of Person</h1>" in " ".join(page.text.split()).replace(" </h1>", "</h1>")

    # The starting entity stays; its neighbours of other types go.
    only_places = graph_data(
        client.get("/graph", params={"entity": graph.gabriel.id, "type": "Place"}).text
    )
    assert [n["id"] for n in only_places["nodes"]] == [graph.gabriel.id]
    research = graph_data(client.get("/graph", params={"pack": "research"}).text)
    assert [n["id"] for n in research["nodes"]] == [graph.claim.id]
    concepts = graph_data(client.get("/graph", params={"type": "Concept"}).text)
    assert {n["id"] for n in concepts["nodes"]} == {MEMORIA, OLVIDO}
    assert {n["pack"] for n in concepts["nodes"]} == {"zettelkasten"}

    nothing = client.get("/graph", params={"type": "Dragon"})
    assert nothing.status_code == 200 and "Nothing of these types here" in nothing.text
    assert client.get("/graph", params={"type": "<b>"}).status_code == 422
    assert client.get("/graph", params={"entity": "nope"}).status_code == 404


def test_graph_of_a_source_has_its_concepts_and_entities(
    site: tuple[TestClient, EntityGraph],
) -> None:
    client, graph = site
    data = graph_data(client.get("/graph", params={"content": "trafalgar", "depth": 1}).text)

    kinds = {n["id"]: n["kind"] for n in data["nodes"]}
    # Memoria (supported by q1), Gabriel (q1 in his provenance, q2 by MENTIONS), neighbours.
    assert kinds[MEMORIA] == "concept" and kinds[OLVIDO] == "concept"
    assert kinds[graph.gabriel.id] == "entity" and graph.marcial.id in kinds
    assert data["colors"]["OPPOSES"].startswith("#")
    persons = graph_data(
        client.get("/graph", params={"content": "trafalgar", "type": "Person"}).text
    )
    assert MEMORIA not in {n["id"] for n in persons["nodes"]}
    # No starting point and no filter: every concept and entity.
    whole = {n["id"] for n in graph_data(client.get("/graph").text)["nodes"]}
    assert {MEMORIA, OLVIDO, graph.gabriel.id, graph.marcial.id} <= whole


# --- the JSON API -------------------------------------------------------------------------


def test_entities_api(site: tuple[TestClient, EntityGraph]) -> None:
    client, graph = site

    rows = client.get("/api/entities").json()
    assert len(rows) == 8
    gabriel = next(r for r in rows if r["id"] == graph.gabriel.id)
    assert gabriel["passages"] == 2 and gabriel["color"] == PERSON_COLOR
    places = client.get("/api/entities", params={"type": "Place"}).json()
    assert names(places) == {"Cádiz"}
    assert names(client.get("/api/entities", params={"pack": "research"}).json()) == {
        "La guerra es cruel"
    }
    assert client.get("/api/entities", params={"type": "x y"}).status_code == 422

    detail = client.get(f"/api/entities/{graph.gabriel.id}").json()
    assert detail["properties"]["aliases"] == ["Gabrielillo", "el narrador"]
    assert [p["name"] for p in detail["property_rows"]] == [
        "born",
        "aliases",
        "age",
        "fictional",
        "name",
    ]
    assert {r["target"] for r in detail["relations"]} == {"Marcial", HOSTILE, "Trafalgar"}
    assert [p["id"] for p in detail["passages"]] == ["q1", "q2"]
    assert detail["passages"][0]["content"] == "Trafalgar"
    assert client.get("/api/entities/nope").status_code == 404

    types = {t["type"]: t for t in client.get("/api/entity-types").json()}
    assert types["Person"]["entities"] == 4 and types["Person"]["color"] == PERSON_COLOR
    assert "Concept" not in types


def test_graph_api_includes_entities_and_honours_the_filter(
    site: tuple[TestClient, EntityGraph],
) -> None:
    client, graph = site

    around = client.get("/api/graph", params={"entity": graph.battle.id}).json()
    assert {n["id"] for n in around["nodes"]} == {graph.battle.id, graph.cadiz.id}
    assert around["edges"] == [
        {
            "source": graph.battle.id,
            "target": graph.cadiz.id,
            "type": "LOCATED_IN",
            "explanation": "Frente al cabo.",
        }
    ]
    persons = client.get("/api/graph", params={"type": "Person", "pack": "narrative"}).json()
    assert {n["type"] for n in persons["nodes"]} == {"Person"}
    assert persons["node_colors"] == {"Person": PERSON_COLOR}
    by_concept = client.get("/api/graph", params={"concept": MEMORIA}).json()
    assert {n["kind"] for n in by_concept["nodes"]} == {"concept"}
    assert client.get("/api/graph").status_code == 422
    assert client.get("/api/graph", params={"entity": "nope"}).status_code == 404
    assert client.get("/api/graph", params={"pack": "Not A Pack"}).status_code == 422
