"""Removing a whole content (`services/content_removal.py`) on the embedded store and on
FalkorDB: its passages, the concepts only it supports with their relations and cards, the
entities found only in it, its author when no other content has them; what stays loses only
this content's part, and the vault follows. (Refusal while a run is open: tests/cli.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from correction_graph import Library, make_library, services_on
from zettelgraph.context import Services
from zettelgraph.models import ChangeSet, Entity, NodeLabel, Relation, entity_id
from zettelgraph.packs.relations import SUPPORTS
from zettelgraph.services.content_removal import plan_content_removal, remove_content
from zettelgraph.services.corrections import UnknownError, removals
from zettelgraph.vault.entities import write_entity_notes
from zettelgraph.vault.trash import TRASH_DIR


@pytest.fixture(params=["sqlite", "falkordb"])
def services(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Services]:
    opened = services_on(request, tmp_path, packs=["zettelkasten", "narrative"])
    yield opened
    opened.close()


@pytest.fixture
def library(services: Services) -> Library:
    made = make_library(services)
    # Places found by a graph extraction: the pond only in Walden, Concord in Walden and Spark.
    w1, s1 = made.quotes["w1"].id, made.quotes["s1"].id
    pond, concord = (
        Entity(
            id=entity_id("Place", name),
            name=name,
            entity_type="Place",
            pack="narrative",
            provenance={"passages": passages},
        )
        for name, passages in (("Laguna de Walden", [w1]), ("Concord", [w1, s1]))
    )
    services.store.apply(
        ChangeSet(
            entities=[pond, concord],
            relations=[Relation(source_id=pond.id, target_id=concord.id, type="LOCATED_IN")],
        )
    )
    write_entity_notes(services.store, services.vault.root, services.packs)
    return made


def test_the_plan_lists_what_goes_and_what_stays(services: Services, library: Library) -> None:
    plan = plan_content_removal(services.store, library.books["walden"].id).as_dict()
    assert (plan["title"], plan["passages"], plan["author"], plan["author_removed"]) == (
        "Walden",
        2,
        "Henry David Thoreau",
        False,  # Cape Cod is his too
    )
    assert [c["title"] for c in plan["concepts"]] == [
        "Simplicidad voluntaria",
        "Vivir deliberadamente",
    ]
    assert [c["title"] for c in plan["concepts_kept"]] == ["Vivir con poco"]
    assert sorted(n["title"] for n in plan["neighbours"]) == [
        "Ejercicio y cerebro",
        "Vivir con poco",
    ]
    assert len(plan["cards"]) == 2
    assert [e["name"] for e in plan["entities"]] == ["Laguna de Walden"]
    with pytest.raises(UnknownError, match="no content"):
        plan_content_removal(services.store, "nothing")


def test_removing_a_content_takes_what_only_it_supports(
    services: Services, library: Library
) -> None:
    store = services.store
    walden = library.books["walden"]
    c = library.concepts
    notes = {key: services.vault.find_note(c[key].id) for key in ("deliberate", "simple")}
    before = store.counts()

    result = remove_content(services, walden.id, runs=[])

    assert store.get_content(walden.id) is None
    assert store.quotes_of(walden.id) == []
    assert (
        store.get_concept(c["deliberate"].id) is None and store.get_concept(c["simple"].id) is None
    )
    # Vivir con poco stays, supported now by Spark's quote alone; its relation from a
    # removed concept went, as did Ejercicio's SIMILAR_TO with Simplicidad.
    little = c["little"].id
    assert [
        r.source_id for r in store.relations(little, direction="in", relation_type=SUPPORTS)
    ] == [library.quotes["s2"].id]
    assert [r for r in store.relations(little, direction="both") if r.type != SUPPORTS] == []
    assert store.relations(c["exercise"].id, relation_type="SIMILAR_TO") == []
    # Thoreau has Cape Cod, so he stays; the cards that tested the removed concepts went.
    assert store.get_person(library.thoreau.id) is not None
    assert store.get_learning_items([i.id for i in library.cards.values()]) == [
        library.cards["exercise"]
    ]
    assert [e.name for e in store.find_entities("Concord")] == ["Concord"]
    assert store.find_entities("Laguna de Walden") == []
    after = store.counts()
    assert before["Quote"] - after["Quote"] == 2 and before["Concept"] - after["Concept"] == 2
    assert after["Content"] == 2 and after[str(NodeLabel.REMOVAL)] == 1
    # The vault: the removed concepts' and entity's notes in the trash, the others rewritten.
    trash = services.vault.root / TRASH_DIR
    for path in notes.values():
        assert path is not None and not path.exists() and (trash / path.name).exists()
    assert (trash / "Laguna de Walden.md").exists()
    assert sorted(result.notes.notes_removed) == sorted(
        [c["deliberate"].id, c["simple"].id, entity_id("Place", "Laguna de Walden")]
    )
    assert c["exercise"].id in result.notes.notes_updated
    assert result.notes.vault_errors == []
    # Vivir con poco's note no longer quotes Walden; its quote of Spark stays.
    kept = services.vault.find_note(little)
    assert kept is not None
    fuente = kept.read_text(encoding="utf-8").split("## Fuente")[1]
    assert "Simplifica" not in fuente and "> Con poco se vive y se piensa mejor." in fuente
    assert little in result.notes.notes_updated
    [record] = removals(store)
    assert (record.kind, record.title, record.by, record.counts["Quote"]) == (
        "content",
        "Walden",
        "Ana",
        2,
    )
    assert set(record.concepts) == {c["deliberate"].id, c["simple"].id}


def test_an_author_goes_with_their_last_content(services: Services, library: Library) -> None:
    store = services.store
    plan = remove_content(services, library.books["spark"].id, runs=[]).plan
    assert plan.author_goes
    assert store.get_person(library.ratey.id) is None
    assert store.get_concept(library.concepts["exercise"].id) is None
    # Vivir con poco is still supported by Walden.
    assert store.get_concept(library.concepts["little"].id) is not None
    remove_content(services, library.books["walden"].id, runs=[])
    remove_content(services, library.books["cape"].id, runs=[])
    assert store.get_person(library.thoreau.id) is None
    assert store.counts()["Content"] == store.counts()["Concept"] == 0
    assert store.counts()["Quote"] == 0 and store.counts()["vectors"] == 0
    assert len(removals(store)) == 3
