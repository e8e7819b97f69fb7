"""The JSON API of the reader's corrections: what each answers (the CLI's --json), a
deletion read before it is made, 404/409/422 with their reasons, CSRF on every change."""

from __future__ import annotations

from correction_graph import make_library

from .conftest import MEDITATIONS, MakeWeb


def test_edit_delete_and_unlink_through_the_api(make_web: MakeWeb) -> None:
    web = make_web()
    library = make_library(web.services)
    c = library.concepts
    client, csrf = web.client, web.csrf()
    deliberate = c["deliberate"]

    edited = client.patch(
        f"/api/concepts/{deliberate.id}", json={"statement": "Elegir."}, headers=csrf
    )
    assert edited.status_code == 200, edited.text
    body = edited.json()
    assert body["changed"] == ["concept"] and body["revision"]["by"] == "model"
    assert body["concept"]["revisions"][0]["replaced_in"] == "graph"
    assert client.get(f"/api/concepts/{deliberate.id}").json()["concept"] == "Elegir."

    assert client.patch(f"/api/concepts/{deliberate.id}", json={"title": "x"}).status_code == 403
    clash = client.patch(
        f"/api/concepts/{deliberate.id}", json={"title": c["simple"].title}, headers=csrf
    )
    assert clash.status_code == 409 and "another concept is titled" in clash.json()["detail"]
    empty = client.patch(f"/api/concepts/{deliberate.id}", json={"title": " "}, headers=csrf)
    assert empty.status_code == 422 and "title cannot be empty" in empty.json()["detail"]
    assert client.patch("/api/concepts/nope", json={"title": "x"}, headers=csrf).status_code == 404

    plan = client.get(f"/api/concepts/{c['simple'].id}/deletion").json()
    assert plan["title"] == c["simple"].title and plan["attributions"] == 1
    assert c["simple"].id in {n["id"] for n in client.get("/api/concepts").json()}

    unlinked = client.delete(
        f"/api/concepts/{c['simple'].id}/relations/{c['exercise'].id}", headers=csrf
    )
    assert unlinked.status_code == 200, unlinked.text
    assert unlinked.json()["type"] == "SIMILAR_TO" and len(unlinked.json()["removed"]) == 2
    again = client.delete(
        f"/api/concepts/{c['simple'].id}/relations/{c['exercise'].id}",
        params={"type": "SIMILAR_TO"},
        headers=csrf,
    )
    assert again.status_code == 404 and "not related" in again.json()["detail"]

    deleted = client.delete(f"/api/concepts/{c['simple'].id}", headers=csrf)
    assert deleted.status_code == 200, deleted.text
    assert deleted.json()["notes_removed"] == [c["simple"].id]
    assert client.get(f"/api/concepts/{c['simple'].id}").status_code == 404
    assert client.delete(f"/api/concepts/{c['simple'].id}", headers=csrf).status_code == 404
    kinds = [r["kind"] for r in client.get("/api/removals").json()]
    assert kinds == ["concept", "relation"]


def test_a_content_is_removed_once_its_run_is_decided(make_web: MakeWeb) -> None:
    web = make_web(MEDITATIONS)
    client, csrf = web.client, web.csrf()
    content_id = web.content_id()
    run = web.start_run(content_id)

    plan = client.get(f"/api/contents/{content_id}/removal")
    assert plan.status_code == 200 and plan.json()["author_removed"] is True
    refused = client.delete(f"/api/contents/{content_id}", headers=csrf)
    assert refused.status_code == 409
    assert run["run_id"] in refused.json()["detail"]

    web.state.runs.answer(run["run_id"], "approve")
    concepts = web.concept_count()
    removed = client.delete(f"/api/contents/{content_id}", headers=csrf)
    assert removed.status_code == 200, removed.text
    assert len(removed.json()["concepts"]) == concepts > 0
    assert client.get("/api/contents").json() == []
    assert client.get("/api/concepts").json() == []
    assert client.get(f"/api/contents/{content_id}/removal").status_code == 404
    [record] = client.get("/api/removals").json()
    assert record["kind"] == "content" and record["title"] == "Meditations"
