"""The provenance downloads of the web app: the whole graph, a concept and a run, in each
format, as attachments with the right media type and file name; the concept page's link; 404
for an unknown concept or run and 422 for an unknown format. Real SQLite store and
checkpoints; the LLM is the fake provider."""

from __future__ import annotations

import json

from rdflib import Graph

from web.conftest import Web

PREFIXES = "PREFIX prov: <http://www.w3.org/ns/prov#>\nPREFIX zg: <urn:zettelgraph:>\n"


def approved_run(web: Web) -> str:
    run_id: str = web.start_run()["run_id"]
    decided = web.client.post(
        f"/api/runs/{run_id}/decision", json={"action": "approve"}, headers=web.csrf()
    )
    assert decided.status_code == 200, decided.text
    return run_id


def test_downloads_are_attachments_in_each_format(web: Web) -> None:
    run_id = approved_run(web)
    concepts = web.services.store.list_concepts()
    assert concepts

    everything = web.client.get("/api/provenance", params={"format": "turtle"})
    assert everything.status_code == 200, everything.text
    assert everything.headers["content-type"].startswith("text/turtle")
    disposition = everything.headers["content-disposition"]
    assert disposition == 'attachment; filename="zettelgraph-provenance.ttl"'
    graph = Graph().parse(data=everything.text, format="turtle")
    query = (
        PREFIXES
        + "SELECT DISTINCT ?c WHERE { ?c a zg:Concept ; prov:wasDerivedFrom [ a zg:Quote ] }"
    )
    assert len(list(graph.query(query))) == len(concepts)

    concept = concepts[0]
    one = web.client.get(f"/api/concepts/{concept.id}/provenance")
    assert one.status_code == 200, one.text
    assert one.headers["content-type"].startswith("application/ld+json")
    assert (
        f'filename="concept-{concept.id}-provenance.jsonld"' in one.headers["content-disposition"]
    )
    assert "@context" in json.loads(one.text)
    mine = Graph().parse(data=one.text, format="json-ld")
    generated = PREFIXES + "SELECT ?c WHERE { ?c a zg:Concept ; prov:wasGeneratedBy ?a }"
    assert [str(row[0]) for row in mine.query(generated)] == [  # type: ignore[index]
        f"urn:zettelgraph:concept/{concept.id}"
    ]

    run = web.client.get(f"/api/runs/{run_id}/provenance", params={"format": "provn"})
    assert run.status_code == 200, run.text
    assert run.headers["content-type"].startswith("text/provenance-notation")
    assert f'filename="{run_id}-provenance.provn"' in run.headers["content-disposition"]
    assert run.text.startswith("document\n") and f"run:{run_id}/approval" in run.text

    page = web.client.get(f"/concepts/{concept.id}")
    assert f'href="/api/concepts/{concept.id}/provenance?format=jsonld"' in page.text
    assert "Provenance (JSON-LD)" in page.text


def test_unknown_ids_are_404_and_unknown_formats_422(web: Web) -> None:
    approved_run(web)
    concept = web.client.get("/api/concepts/ffffffff-nope/provenance")
    assert concept.status_code == 404
    assert "no concept with id 'ffffffff-nope'" in concept.json()["detail"]
    run = web.client.get("/api/runs/run-nope/provenance")
    assert run.status_code == 404 and "no run 'run-nope'" in run.json()["detail"]
    fmt = web.client.get("/api/provenance", params={"format": "rdfxml"})
    assert fmt.status_code == 422
    assert "choose one of: jsonld, turtle, provn" in fmt.json()["detail"]
    paths = web.client.get("/api/openapi.json").json()["paths"]
    assert {
        "/api/provenance",
        "/api/concepts/{concept_id}/provenance",
        "/api/runs/{run_id}/provenance",
    } <= set(paths)
