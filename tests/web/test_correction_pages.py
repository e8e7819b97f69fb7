"""The reader's corrections in the browser, without JavaScript: the concept page's edit form
(a refused edit shows the page again with the reason and what was typed), the confirmation
pages of a deletion (nothing written by a GET), the remove buttons, the source's removal
(refused while its run is open), and the list of removals."""

from __future__ import annotations

import html
import re

from correction_graph import Library, make_library

from .conftest import MEDITATIONS, MakeWeb, Web


def token(page: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert match is not None
    return match.group(1)


def library_web(make_web: MakeWeb) -> tuple[Web, Library]:
    web = make_web()
    return web, make_library(web.services)


def test_edit_from_the_concept_page(make_web: MakeWeb) -> None:
    web, library = library_web(make_web)
    concept = library.concepts["deliberate"]
    page = web.client.get(f"/concepts/{concept.id}").text
    assert f'action="/concepts/{concept.id}/edit"' in page
    assert 'value="Vivir deliberadamente"' in page

    saved = web.client.post(
        f"/concepts/{concept.id}/edit",
        data={
            "csrf_token": token(page),
            "title": "Vivir a propósito",
            "statement": "Elegir cada día en qué se va la vida.",
            "analysis": "",
        },
        follow_redirects=False,
    )
    assert saved.status_code == 303 and saved.headers["location"] == f"/concepts/{concept.id}"
    shown = web.client.get(f"/concepts/{concept.id}").text
    assert "<h1>Vivir a propósito</h1>" in shown
    assert "Earlier versions" in shown and "the model’s text, replaced after approval" in shown
    note = web.services.vault.find_note(concept.id)
    assert note is not None and "Elegir cada día" in note.read_text(encoding="utf-8")

    clash = web.client.post(
        f"/concepts/{concept.id}/edit",
        data={
            "csrf_token": token(shown),
            "title": "simplicidad voluntaria",
            "statement": "<b>Otra</b> idea.",
        },
    )
    assert clash.status_code == 409
    assert "another concept is titled" in html.unescape(clash.text)
    # What the reader typed comes back in the open form, escaped.
    assert (
        "&lt;b&gt;Otra&lt;/b&gt; idea." in clash.text
        and '<details class="edit edit-concept" open>' in clash.text
    )
    empty = web.client.post(
        f"/concepts/{concept.id}/edit",
        data={"csrf_token": token(shown), "title": "Algo", "statement": "   "},
    )
    assert empty.status_code == 422 and "cannot be empty" in empty.text
    no_csrf = web.client.post(
        f"/concepts/{concept.id}/edit", data={"title": "Sin token", "statement": "Nada."}
    )
    assert no_csrf.status_code == 403
    assert web.services.store.get_concept(concept.id).title == "Vivir a propósito"  # type: ignore[union-attr]


def test_deleting_a_concept_asks_first(make_web: MakeWeb) -> None:
    web, library = library_web(make_web)
    concept = library.concepts["deliberate"]
    page = web.client.get(f"/concepts/{concept.id}").text
    assert f'href="/concepts/{concept.id}/delete"' in page

    confirm = web.client.get(f"/concepts/{concept.id}/delete")
    assert confirm.status_code == 200
    text = html.unescape(confirm.text)
    assert "2 relations, with their reverses" in text
    assert "Vivir deliberadamente -[GENERALIZES]-> Simplicidad voluntaria" in text
    assert "2 cards that test it" in text and "¿Por qué fue al bosque?" in text
    assert web.services.store.get_concept(concept.id) is not None  # a GET writes nothing

    done = web.client.post(
        f"/concepts/{concept.id}/delete",
        data={"csrf_token": token(confirm.text)},
        follow_redirects=False,
    )
    assert done.status_code == 303 and done.headers["location"] == "/removals"
    assert web.services.store.get_concept(concept.id) is None
    removals = web.client.get("/removals").text
    assert "Vivir deliberadamente" in removals and "2 cards" in removals
    assert web.client.get(f"/concepts/{concept.id}/delete").status_code == 404


def test_removing_a_relation_from_the_page(make_web: MakeWeb) -> None:
    web, library = library_web(make_web)
    c = library.concepts
    simple = c["simple"]
    page = web.client.get(f"/concepts/{simple.id}").text
    # Incoming relations too: deliberate -[GENERALIZES]-> simple, named from its source.
    href = html.unescape(re.findall(r'<a class="remove" href="([^"]+)"', page)[0])
    assert href.startswith(f"/concepts/{simple.id}/unlink?source=")
    confirm = web.client.get(href)
    assert confirm.status_code == 200
    assert "the relation and its reverse" in confirm.text

    done = web.client.post(
        f"/concepts/{simple.id}/unlink",
        data={
            "csrf_token": token(confirm.text),
            "source": c["deliberate"].id,
            "type": "GENERALIZES",
            "target": simple.id,
        },
        follow_redirects=False,
    )
    assert done.status_code == 303 and done.headers["location"].endswith("#relations")
    left = web.services.store.relations(simple.id, direction="both")
    assert not [r for r in left if c["deliberate"].id in (r.source_id, r.target_id)]
    gone = web.client.get(
        f"/concepts/{simple.id}/unlink",
        params={"source": c["deliberate"].id, "type": "GENERALIZES", "target": simple.id},
    )
    assert gone.status_code == 404 and "are not related" in html.unescape(gone.text)


def test_a_source_is_removed_after_a_confirmation_and_not_while_its_run_is_open(
    make_web: MakeWeb,
) -> None:
    web = make_web(MEDITATIONS)
    content_id = web.content_id()
    run = web.start_run(content_id)
    page = web.client.get(f"/sources/{content_id}").text
    assert f'href="/sources/{content_id}/remove"' in page

    blocked = web.client.get(f"/sources/{content_id}/remove")
    assert blocked.status_code == 409
    text = html.unescape(blocked.text)
    assert run["run_id"] in text and "--abort" in text and "Remove the source" not in text
    refused = web.client.post(f"/sources/{content_id}/remove", data={"csrf_token": token(page)})
    assert refused.status_code == 409 and web.services.store.get_content(content_id)

    web.state.runs.answer(run["run_id"], "abort")
    confirm = web.client.get(f"/sources/{content_id}/remove")
    assert confirm.status_code == 200
    assert "its author, Marcus Aurelius" in html.unescape(confirm.text)
    done = web.client.post(
        f"/sources/{content_id}/remove",
        data={"csrf_token": token(confirm.text)},
        follow_redirects=False,
    )
    assert done.status_code == 303
    assert web.services.store.get_content(content_id) is None
    assert web.client.get(f"/sources/{content_id}").status_code == 404
    assert "Meditations" in web.client.get("/removals").text
