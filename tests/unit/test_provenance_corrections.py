"""The reader's corrections in the PROV export: an edited concept's earlier texts are
revisions, each edit an activity of the reader's (in the review, part of the run; after the
commit, generating the text it wrote); a removal invalidates what it took. Written with the
services on a real SQLite store, read back from Turtle with SPARQL, and still the graph the
`prov` package writes."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from test_provenance import _QUALIFIED, PROV, is_the_prov_packages_graph, sparql

from correction_graph import Library, make_library
from zettelgraph.context import Services, open_services
from zettelgraph.models import ChangeSet
from zettelgraph.models.revisions import revised
from zettelgraph.provenance.document import build_document
from zettelgraph.provenance.scope import everything, for_concept
from zettelgraph.services.concept_edits import edit_concept
from zettelgraph.services.deletions import delete_concept, unlink_concepts
from zettelgraph.settings import Settings

READER = "Ana"
REVIEWED = datetime(2026, 2, 28, 18, 0, tzinfo=UTC)


@pytest.fixture
def services(tmp_path: Path) -> Iterator[Services]:
    opened = open_services(Settings(home=tmp_path, llm="fake", embeddings="hash", reader=READER))
    yield opened
    opened.close()


@pytest.fixture
def library(services: Services) -> Library:
    made = make_library(services)
    # "Ejercicio y cerebro" was edited in the review: committed with the model's text kept.
    exercise = made.concepts["exercise"]
    in_review = revised(exercise, title="Moverse cura", at=REVIEWED, where="review")
    services.store.apply(ChangeSet(concepts=[in_review]))
    made.concepts["exercise"] = in_review
    return made


def test_edits_are_revisions_by_the_reader(services: Services, library: Library) -> None:
    exercise = library.concepts["exercise"]
    edit_concept(services, exercise.id, statement="Moverse cura el cerebro y el ánimo.")
    doc = build_document(everything(services.store), reader=READER)
    concept = f"urn:zettelgraph:concept/{exercise.id}"

    chain = sparql(
        doc,
        f"""SELECT ?newer ?older ?by WHERE {{
              ?newer prov:wasRevisionOf ?older . ?older zg:textBy ?by .
              FILTER (STRSTARTS(STR(?newer), "{concept}")) }}""",
    )
    assert sorted((str(n), str(o), str(b)) for n, o, b in chain) == [
        (concept, f"{concept}/version/2", "reader"),
        (f"{concept}/version/2", f"{concept}/version/1", "model"),
    ]
    edits = sparql(
        doc,
        f"""SELECT ?edit ?where ?generated WHERE {{
              ?edit a zg:Edit ; zg:replacedIn ?where ; prov:used ?used ;
                    prov:endedAtTime ?at ; prov:wasAssociatedWith ?reader .
              ?reader a prov:Person ; rdfs:label "{READER}" .
              OPTIONAL {{ ?generated prov:wasGeneratedBy ?edit }} }}""",
    )
    assert sorted((str(e).rsplit("/", 1)[1], str(w), str(g)) for e, w, g in edits) == [
        ("1", "review", "None"),  # the approval wrote the text the review left
        ("2", "graph", concept),  # the edit after the commit wrote the text it has now
    ]
    [(part,)] = sparql(doc, f"SELECT ?run WHERE {{ <{concept}/edit/1> dcterms:isPartOf ?run }}")
    assert str(part) == f"urn:zettelgraph:run/run-{exercise.provenance['content_id'][:8]}"
    committed = sparql(
        doc,
        f"""SELECT ?approval WHERE {{ <{concept}/version/2> prov:wasGeneratedBy ?approval .
              ?approval a zg:Approval ; prov:wasInformedBy <{concept}/edit/1> }}""",
    )
    assert len(committed) == 1
    [(agent,)] = sparql(doc, f"SELECT ?a WHERE {{ <{concept}/version/1> prov:wasAttributedTo ?a }}")
    assert str(agent) == "urn:zettelgraph:agent/model/fake"
    # One concept's export carries its history too.
    edited = services.store.get_concept(exercise.id)
    assert edited is not None
    alone = build_document(for_concept(services.store, edited), reader=READER)
    assert len(sparql(alone, "SELECT ?n WHERE { ?n prov:wasRevisionOf ?o }")) == 2


def test_removals_invalidate_what_they_took(services: Services, library: Library) -> None:
    c = library.concepts
    delete_concept(services, c["deliberate"].id)
    unlink_concepts(services, c["simple"].id, c["exercise"].id)
    doc = build_document(everything(services.store), reader=READER)

    gone = sparql(
        doc,
        f"""SELECT ?thing ?kind WHERE {{
              ?thing prov:wasInvalidatedBy ?removal ; a ?kind .
              ?removal a zg:Removal ; prov:endedAtTime ?at ;
                  prov:wasAssociatedWith [ rdfs:label "{READER}" ] .
              FILTER (?kind IN (zg:Concept, zg:Relation)) }}""",
    )
    things = {(str(t).split(":")[2].split("/")[0], str(k).rsplit(":", 1)[1]) for t, k in gone}
    assert things == {("concept", "Concept"), ("relation", "Relation")}
    assert (f"urn:zettelgraph:concept/{c['deliberate'].id}",) in {(str(t),) for t, _ in gone}
    assert len([t for t, k in gone if str(k).endswith("Relation")]) == 6  # 2 + 2 + 2 twins


def test_the_export_with_corrections_is_still_the_prov_packages_graph(
    services: Services, library: Library
) -> None:
    c = library.concepts
    edit_concept(services, c["exercise"].id, analysis="Mi lectura.")
    delete_concept(services, c["little"].id)
    doc = build_document(everything(services.store), reader=READER)
    # Revisions and invalidations are written as `prov` writes them, plus the direct triples.
    assert PROV.qualifiedRevision in _QUALIFIED and PROV.qualifiedInvalidation in _QUALIFIED
    assert is_the_prov_packages_graph(doc)
