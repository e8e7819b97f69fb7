"""The concept page's "link to another concept" form: a POST with the CSRF token adds the
reader's relation (and its reverse) and returns to the page; a refused one shows the page again
with the reason and what was typed."""

from __future__ import annotations

import html
import re

from link_graph import make_graph
from zettelgraph.models import Concept

from .conftest import MakeWeb, Web


def form_token(web: Web, concept: Concept) -> str:
    page = web.client.get(f"/concepts/{concept.id}")
    assert page.status_code == 200
    assert f'action="/concepts/{concept.id}/links"' in page.text
    match = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert match is not None
    return match.group(1)


def test_the_form_offers_the_concept_types(make_web: MakeWeb) -> None:
    web = make_web()
    concepts = make_graph(web.services)
    page = web.client.get(f"/concepts/{concepts['simple'].id}").text
    options = re.findall(r'<option value="([A-Z_]+)"', page)
    assert options[:3] == ["GENERALIZES", "SPECIFIC_OF", "PART_OF"]
    assert {"SUPPORTS", "OPPOSES", "SIMILAR_TO", "RELATES_TO"} <= set(options)


def test_a_link_from_the_page(make_web: MakeWeb) -> None:
    web = make_web()
    concepts = make_graph(web.services)
    a, b = concepts["deliberate"], concepts["exercise"]
    token = form_token(web, a)
    made = web.client.post(
        f"/concepts/{a.id}/links",
        data={"csrf_token": token, "relation": "SUPPORTS", "target": b.title, "why": "Moverse."},
        follow_redirects=False,
    )
    assert made.status_code == 303
    assert made.headers["location"] == f"/concepts/{a.id}#relations"
    page = web.client.get(f"/concepts/{a.id}").text
    assert f'href="/concepts/{b.id}">{b.title}</a>' in page
    assert "Moverse." in page
    [forward] = [r for r in web.services.store.relations(a.id) if r.target_id == b.id]
    assert forward.properties["provenance"] == "reader"
    reverse = [r for r in web.services.store.relations(b.id) if r.target_id == a.id]
    assert [r.type for r in reverse] == ["SUPPORTED_BY"]
    note = web.services.vault.find_note(b.id)
    assert note is not None and f"- SUPPORTED_BY: [[{a.title}]]" in note.read_text("utf-8")


def test_refusals_show_the_page_with_the_reason(make_web: MakeWeb) -> None:
    web = make_web()
    concepts = make_graph(web.services)
    simple, city = concepts["simple"], concepts["city"]
    token = form_token(web, simple)
    before = len(web.services.store.relations())

    refused = web.client.post(
        f"/concepts/{simple.id}/links",
        data={"csrf_token": token, "relation": "OPPOSES", "target": city.id, "why": "<b>no</b>"},
    )
    assert refused.status_code == 400
    text = html.unescape(refused.text)
    assert "agree and oppose each other" in text
    assert '<option value="OPPOSES" title' in refused.text and "selected>OPPOSES" in refused.text
    # What the reader typed comes back escaped, never as markup.
    assert "&lt;b&gt;no&lt;/b&gt;" in refused.text

    no_csrf = web.client.post(
        f"/concepts/{simple.id}/links",
        data={"relation": "RELATES_TO", "target": city.id, "why": "Sin token."},
    )
    assert no_csrf.status_code == 403
    gone = web.client.post(
        "/concepts/nope/links",
        data={"csrf_token": token, "relation": "RELATES_TO", "target": city.id, "why": "x"},
    )
    assert gone.status_code == 404
    assert len(web.services.store.relations()) == before


def test_a_relation_stored_both_ways_is_listed_once(make_web: MakeWeb) -> None:
    """SIMILAR_TO (symmetric) and SUPPORTS (reversible) are stored with their reverse; each
    concept's page lists each relation once, not again under "Pointing here"."""
    web = make_web()
    concepts = make_graph(web.services)
    a, b, c = concepts["deliberate"], concepts["exercise"], concepts["simple"]
    token = form_token(web, a)
    for relation, target in (("SIMILAR_TO", b), ("SUPPORTS", c)):
        made = web.client.post(
            f"/concepts/{a.id}/links",
            data={"csrf_token": token, "relation": relation, "target": target.title, "why": "."},
            follow_redirects=False,
        )
        assert made.status_code == 303, made.text
    for page_of, other in ((a, b), (b, a), (a, c), (c, a)):
        page = web.client.get(f"/concepts/{page_of.id}").text
        relations = page[
            page.index('<section id="relations">') : page.index(
                "</section>", page.index('<section id="relations">')
            )
        ]
        assert relations.count(f'href="/concepts/{other.id}">') == 1, (page_of.title, other.title)
    detail = web.client.get(f"/api/concepts/{b.id}").json()
    assert [r["type"] for r in detail["relations"] if r["target_id"] == a.id] == ["SIMILAR_TO"]
    assert [r for r in detail["incoming"] if r["source_id"] == a.id] == []
