"""The reader's own links between existing concepts (`services/links.py`), on the embedded
store and on FalkorDB: the relation and its reverse, the "reader" provenance, both vault notes,
and every refusal."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from link_graph import concept_of, make_graph
from zettelgraph.context import Services, open_services
from zettelgraph.models import ChangeSet, Concept
from zettelgraph.services.links import LinkError, find_concept, link_concepts
from zettelgraph.settings import Settings
from zettelgraph.vault.sync import sync_vault


@pytest.fixture(params=["sqlite", "falkordb"])
def services(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Services]:
    store: dict[str, str] = {}
    if request.param == "falkordb":
        store["store"] = request.getfixturevalue("falkordb_graph_url")
    settings = Settings(
        home=tmp_path / "home", llm="fake", embeddings="hash", reader="Ana", **store
    )
    opened = open_services(settings)
    yield opened
    opened.close()


def note_text(services: Services, concept: Concept) -> str:
    path = services.vault.find_note(concept.id)
    assert path is not None, f"no note for {concept.title}"
    return path.read_text(encoding="utf-8")


def test_a_link_is_written_with_its_reverse_provenance_and_both_notes(
    services: Services,
) -> None:
    concepts = make_graph(services)
    a, b = concepts["deliberate"], concepts["simple"]

    result = link_concepts(services, a.id, b.title, "supports", "  Vivir con\npoco es la forma. ")

    assert (result.type, result.reverse_type) == ("SUPPORTS", "SUPPORTED_BY")
    store = services.store
    [forward] = [r for r in store.relations(a.id) if r.target_id == b.id]
    assert forward.type == "SUPPORTS"
    assert forward.properties["provenance"] == "reader"
    assert forward.properties["explanation"] == "Vivir con poco es la forma."
    assert forward.properties["created_by"] == "Ana"
    [reverse] = [r for r in store.relations(b.id) if r.target_id == a.id]
    assert reverse.type == "SUPPORTED_BY"
    assert reverse.properties["provenance"] == "reader"
    assert reverse.properties["inferred_reverse_of"] == "SUPPORTS"

    assert sorted(result.notes_written) == sorted([a.id, b.id])
    assert result.vault_errors == []
    assert f"- SUPPORTS: [[{b.title}]]" in note_text(services, a)
    assert f"- SUPPORTED_BY: [[{a.title}]]" in note_text(services, b)
    for concept in (a, b):
        stored = store.get_concept(concept.id)
        assert stored is not None and not stored.vault_sync_pending


def test_a_symmetric_link_and_a_neutral_one_beside_an_agreeing_type(services: Services) -> None:
    concepts = make_graph(services)
    simple, city = concepts["simple"], concepts["city"]
    # RELATES_TO says neither agree nor oppose: it may join a pair that is SIMILAR_TO.
    result = link_concepts(services, city.id[:10], simple.id, "RELATES_TO", "Ambas sobre vivir.")
    assert result.reverse_type == "RELATES_TO"
    types = {(r.source_id, r.type) for r in services.store.relations(simple.id, direction="both")}
    assert {(city.id, "RELATES_TO"), (simple.id, "RELATES_TO")} <= types
    assert "[[La vida en la ciudad]]" in note_text(services, simple)


def test_refusals_say_why(services: Services) -> None:
    concepts = make_graph(services)
    a, simple, city = concepts["deliberate"], concepts["simple"], concepts["city"]
    before = len(services.store.relations())

    def refused(source: str, target: str, kind: str, why: str = "Una razón.") -> str:
        with pytest.raises(LinkError) as caught:
            link_concepts(services, source, target, kind, why)
        return str(caught.value)

    assert "itself" in refused(a.id, a.title, "SUPPORTS")
    unknown = refused(a.id, simple.id, "CAUSES")
    assert "CAUSES" in unknown and "SIMILAR_TO" in unknown and "GENERALIZES" in unknown
    assert "already in the graph" in refused(simple.id, city.id, "SIMILAR_TO")
    # The store wrote city -[SIMILAR_TO]-> simple as the symmetric twin.
    assert "already in the graph" in refused(city.id, simple.id, "SIMILAR_TO")
    contradiction = refused(simple.id, city.id, "OPPOSES")
    assert "SIMILAR_TO" in contradiction and "agree and oppose" in contradiction
    assert "why" in refused(a.id, simple.id, "SUPPORTS", why="   ")
    missing = refused(a.id, "Vivir en el bosque", "SUPPORTS")
    assert "no concept" in missing
    assert services.store.relations() and len(services.store.relations()) == before


def test_find_concept_by_id_prefix_or_title(services: Services) -> None:
    concepts = make_graph(services)
    store = services.store
    simple = concepts["simple"]
    assert find_concept(store, simple.id) == store.get_concept(simple.id)
    assert find_concept(store, simple.id[:12]).id == simple.id
    assert find_concept(store, "  simplicidad VOLUNTARIA ").id == simple.id
    twin = concept_of("Otra idea").model_copy(update={"id": "x-twin", "title": simple.title})
    store.apply(ChangeSet(concepts=[twin]))
    with pytest.raises(LinkError, match="names 2 concepts"):
        find_concept(store, simple.title)


def test_notes_that_cannot_be_written_stay_marked_for_vault_sync(tmp_path: Path) -> None:
    blocked = tmp_path / "vault"
    blocked.write_text("a file where the vault folder should be", encoding="utf-8")
    settings = Settings(home=tmp_path / "home", llm="fake", embeddings="hash", vault=blocked)
    services = open_services(settings)
    try:
        concepts = make_graph(services)
        a, b = concepts["deliberate"], concepts["exercise"]
        result = link_concepts(services, a.id, b.id, "RELATES_TO", "Vivir y moverse.")
        assert result.vault_errors and not result.notes_written
        # The link is in the graph; both notes wait for `vault sync`.
        assert any(r.target_id == b.id for r in services.store.relations(a.id))
        for concept in (a, b):
            stored = services.store.get_concept(concept.id)
            assert stored is not None and stored.vault_sync_pending
        blocked.unlink()
        repaired = sync_vault(services.store, services.vault, concept_ids=[a.id, b.id])
        assert sorted(repaired.written) == sorted([a.id, b.id])
        assert f"- RELATES_TO: [[{b.title}]]" in note_text(services, a)
    finally:
        services.close()


def test_a_readers_link_is_attributed_to_the_reader_in_the_provenance(
    services: Services,
) -> None:
    import rdflib

    from zettelgraph.services.provenance import export_provenance

    concepts = make_graph(services)
    a, b = concepts["deliberate"], concepts["simple"]
    link_concepts(services, a.id, b.id, "SUPPORTS", "Vivir con poco es la forma.")
    graph = rdflib.Graph().parse(
        data=export_provenance(services, concept=a.id, fmt="turtle"), format="turtle"
    )
    rows = graph.query(
        """
        PREFIX prov: <http://www.w3.org/ns/prov#>
        SELECT ?relation WHERE {
            ?relation prov:wasAttributedTo ?reader ; prov:wasDerivedFrom ?a, ?b .
            ?reader a prov:Person .
            FILTER (?a != ?b)
        }
        """
    )
    assert len(list(rows)) >= 1
