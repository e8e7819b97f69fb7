"""Ids in URLs as a reader types them, on a real SQLite store and checkpoints with the fake
LLM: a page named by an id's first characters redirects to its whole URL, the JSON API
answers at once, an ambiguous prefix is refused with the candidates and an unknown one is a
404 naming it."""

from __future__ import annotations

from typing import Any

from zettelgraph.models import ChangeSet, Content

from .conftest import Web

TWINS = ["abcd1111-0000-5000-8000-000000000001", "abcd2222-0000-5000-8000-000000000002"]


def approved(web: Web) -> dict[str, Any]:
    """A run approved through the API, named by the first characters of its id."""
    run = web.start_run()
    short = run["run_id"].removeprefix("run-")[:4]
    done = web.client.post(
        f"/api/runs/{short}/decision", json={"action": "approve"}, headers=web.csrf()
    )
    assert done.status_code == 200, done.text
    assert done.json()["run_id"] == run["run_id"] and done.json()["status"] == "committed"
    return run


def test_pages_named_by_a_prefix_redirect_to_the_whole_id(web: Web) -> None:
    run = approved(web)
    run_id, content_id = run["run_id"], run["content_id"]
    concept = web.services.store.list_concepts()[0]
    pages = {
        f"/concepts/{concept.id[:8]}": f"/concepts/{concept.id}",
        f"/sources/{content_id[:8]}": f"/sources/{content_id}",
        f"/runs/run-{run_id[4:8]}": f"/runs/{run_id}",
        f"/runs/{run_id[4:8]}": f"/runs/{run_id}",
        f"/graph?content={content_id[:8]}": f"/graph?content={content_id}",
        f"/graph?concept={concept.id[:6]}&depth=1": f"/graph?concept={concept.id}&depth=1",
    }
    for given, whole in pages.items():
        moved = web.client.get(given, follow_redirects=False)
        assert moved.status_code == 307, given
        assert moved.headers["location"] == whole
        assert web.client.get(given).status_code == 200, given
    assert concept.title in web.client.get(f"/concepts/{concept.id[:8]}").text


def test_the_api_answers_a_prefix_at_once(web: Web) -> None:
    run = approved(web)
    concept = web.services.store.list_concepts()[0]
    got = web.client.get(f"/api/concepts/{concept.id[:8]}", follow_redirects=False)
    assert got.status_code == 200 and got.json()["id"] == concept.id
    got = web.client.get(f"/api/runs/{run['run_id'][4:9]}", follow_redirects=False)
    assert got.status_code == 200 and got.json()["run_id"] == run["run_id"]
    got = web.client.get(f"/api/contents/{run['content_id'][:4]}")
    assert got.status_code == 200 and got.json()["id"] == run["content_id"]
    graph = web.client.get(f"/api/graph?content={run['content_id'][:8]}")
    assert graph.status_code == 200 and graph.json()["nodes"]


def test_ambiguous_and_unknown_prefixes(web: Web) -> None:
    web.services.store.apply(
        ChangeSet(contents=[Content(id=i, title=f"Gemelo {n}") for n, i in enumerate(TWINS)])
    )
    for url in ("/sources/abcd", "/api/contents/abcd"):
        refused = web.client.get(url, follow_redirects=False)
        assert refused.status_code == 400, url
        assert all(twin in refused.text for twin in TWINS)
    assert web.client.get("/sources/abcd1").status_code == 200
    unknown = web.client.get("/api/concepts/0000aaaa")
    assert unknown.status_code == 404 and "0000aaaa" in unknown.json()["detail"]
    assert web.client.get("/concepts/0000aaaa").status_code == 404
    # A page whose name is no id is still the page.
    assert web.client.get("/cards/generate").status_code == 200
