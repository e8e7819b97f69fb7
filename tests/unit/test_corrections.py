"""The reader's corrections of committed concepts (`services/corrections.py`,
`services/deletions.py`), on the embedded store and on FalkorDB: an edit keeps the earlier
text, recomputes the embedding and rewrites the note; a deleted concept goes with its
relations (reverses too), attributions and cards, its note to the trash; an unlinked relation
goes with its twin; every refusal writes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from correction_graph import Library, make_library, services_on
from zettelgraph.context import Services
from zettelgraph.models import ChangeSet, NodeLabel, Relation, embedding_text
from zettelgraph.services.concept_edits import edit_concept
from zettelgraph.services.corrections import (
    CorrectionError,
    RefusedError,
    UnknownError,
    removals,
)
from zettelgraph.services.deletions import delete_concept, unlink_concepts
from zettelgraph.store import GraphStore
from zettelgraph.vault.notes import parse_note
from zettelgraph.vault.trash import TRASH_DIR


@pytest.fixture(params=["sqlite", "falkordb"])
def services(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Services]:
    opened = services_on(request, tmp_path)
    yield opened
    opened.close()


@pytest.fixture
def library(services: Services) -> Library:
    return make_library(services)


def note(services: Services, concept_id: str) -> str:
    path = services.vault.find_note(concept_id)
    assert path is not None
    return path.read_text(encoding="utf-8")


def graph_state(store: GraphStore) -> tuple[object, ...]:
    return (store.counts(), store.list_concepts(), store.relations())


def vector_of(store: GraphStore, node_id: str) -> list[float]:
    return dict(store.vectors(NodeLabel.CONCEPT))[node_id].tolist()


def test_an_edit_keeps_the_models_text_recomputes_the_embedding_and_rewrites_the_note(
    services: Services, library: Library
) -> None:
    store = services.store
    before = library.concepts["deliberate"]
    statement = "Elegir cada día en qué se va la vida. Lo demás es ruido."

    result = edit_concept(services, before.title.upper(), statement=statement)

    assert result.changed == ["concept"]
    edited = store.get_concept(before.id)
    assert edited is not None and edited == result.concept
    assert (edited.title, edited.concept) == (before.title, statement)
    # The summaries follow the statement, as a commit cuts them.
    assert edited.summary_short == "Elegir cada día en qué se va la vida."
    assert edited.summary == statement
    [revision] = edited.revisions
    assert (revision.concept, revision.by, revision.model, revision.replaced_in) == (
        before.concept,
        "model",
        "fake",
        "graph",
    )
    assert edited.text_by == "reader" and not edited.vault_sync_pending
    expected = services.embedder.embed([embedding_text(edited)])[0]
    assert np.allclose(vector_of(store, before.id), expected)
    text = note(services, before.id)
    assert f"## Concepto\n{statement}\n" in text
    assert "edited_by: reader" in text and "earlier_versions: 1" in text
    assert result.notes.notes_updated == [before.id]

    again = edit_concept(services, before.id[:8], title="Vivir a propósito", analysis="Mío.")
    assert sorted(again.changed) == ["analysis", "title"]
    assert [r.by for r in again.concept.revisions] == ["model", "reader"]
    assert again.concept.summary_short == edited.summary_short
    assert "# Vivir a propósito\n" in note(services, before.id)


def test_refused_edits_write_nothing(services: Services, library: Library) -> None:
    store = services.store
    concept = library.concepts["deliberate"]
    state = graph_state(store)
    with pytest.raises(RefusedError, match="another concept is titled 'Simplicidad voluntaria'"):
        edit_concept(services, concept.id, title="  SIMPLICIDAD   voluntária ")
    with pytest.raises(CorrectionError, match="title cannot be empty"):
        edit_concept(services, concept.id, title=" \n ")
    with pytest.raises(CorrectionError, match="statement cannot be empty"):
        edit_concept(services, concept.id, statement="")
    with pytest.raises(CorrectionError, match="at most 300"):
        edit_concept(services, concept.id, title="x" * 301)
    with pytest.raises(UnknownError, match="no concept"):
        edit_concept(services, "Nada que ver", title="Otro")
    # The same text again changes nothing and writes nothing.
    same = edit_concept(services, concept.id, title=concept.title, statement=concept.concept)
    assert same.changed == [] and same.revision is None
    # A title that differs only in case is the concept's own: no clash with itself.
    edit_concept(services, concept.id, title=concept.title.lower())
    assert graph_state(store)[0] == state[0]


def test_a_deleted_concept_goes_with_its_relations_attributions_and_cards(
    services: Services, library: Library
) -> None:
    store = services.store
    c = library.concepts
    gone = c["deliberate"]
    old_note = services.vault.find_note(gone.id)
    assert old_note is not None
    before = store.counts()

    result = delete_concept(services, gone.title)

    assert store.get_concept(gone.id) is None
    assert [r for r in store.relations() if gone.id in (r.source_id, r.target_id)] == []
    # Its relations both ways: GENERALIZES + SPECIFIC_OF, SUPPORTS + SUPPORTED_BY.
    assert sorted((r["type"], r["target"]) for r in result.plan.as_dict()["relations"]) == [
        ("GENERALIZES", "Simplicidad voluntaria"),
        ("SPECIFIC_OF", "Vivir deliberadamente"),
        ("SUPPORTED_BY", "Vivir deliberadamente"),
        ("SUPPORTS", "Vivir con poco"),
    ]
    # The quotes stay; the cards that test it go with their history, the others stay.
    assert store.get_quotes([library.quotes["w1"].id]) != []
    assert {i.id for i in result.plan.cards} == {
        library.cards["deliberate"].id,
        library.cards["pair"].id,
    }
    assert store.get_learning_items([i.id for i in library.cards.values()]) == [
        library.cards["exercise"]
    ]
    assert store.review_logs(library.cards["deliberate"].id) == []
    after = store.counts()
    assert (after["Concept"], after["LearningItem"], after["ReviewLog"], after["Removal"]) == (
        before["Concept"] - 1,
        before["LearningItem"] - 2,
        before["ReviewLog"] - 1,
        1,
    )
    # The notes: its own to the trash, the neighbours' without the links.
    assert not old_note.exists()
    assert (services.vault.root / TRASH_DIR / old_note.name).exists()
    assert result.notes.notes_removed == [gone.id]
    assert sorted(result.notes.notes_updated) == sorted([c["simple"].id, c["little"].id])
    assert "Vivir deliberadamente" not in note(services, c["simple"].id).split("## Fuente")[0]
    [record] = removals(store)
    assert (record.kind, record.title, record.by, record.id) == (
        "concept",
        gone.title,
        "Ana",
        result.removal_id,
    )
    assert record.details["concept"]["concept"] == gone.concept
    assert record.concepts == {gone.id: gone.title}


def test_unlink_removes_a_relation_with_its_twin_and_the_cards_on_the_pair(
    services: Services, library: Library
) -> None:
    store = services.store
    c = library.concepts
    deliberate, simple = c["deliberate"], c["simple"]

    # Named from the other end, by the reverse type: the same relation.
    result = unlink_concepts(services, simple.title, deliberate.id[:8], "specific-of")

    plan = result.plan
    assert (plan.source.title, plan.type, plan.target.title) == (
        simple.title,
        "SPECIFIC_OF",
        deliberate.title,
    )
    assert sorted(r.key for r in plan.relations) == sorted(
        [(deliberate.id, "GENERALIZES", simple.id), (simple.id, "SPECIFIC_OF", deliberate.id)]
    )
    between = [r for r in store.relations(simple.id, direction="both") if deliberate.id in r.key]
    assert between == []
    assert [i.id for i in plan.cards] == [library.cards["pair"].id]
    assert store.get_learning_items([library.cards["pair"].id]) == []
    links = parse_note(note(services, deliberate.id))[0]
    assert "generalizes" not in links and links["supports"] == [f"[[{c['little'].title}]]"]
    assert sorted(result.notes.notes_updated) == sorted([deliberate.id, simple.id])
    # Without a type: the one relation joining the pair (the symmetric SIMILAR_TO).
    similar = unlink_concepts(services, c["exercise"].id, simple.id)
    assert (similar.plan.type, len(similar.plan.relations)) == ("SIMILAR_TO", 2)
    assert [r.kind for r in removals(store)] == ["relation", "relation"]
    # Everything else is as it was.
    assert store.get_concept(deliberate.id) is not None
    assert len(store.relations(deliberate.id, relation_type="SUPPORTS")) == 1


def test_refused_unlinks_say_what_joins_the_pair_and_write_nothing(
    services: Services, library: Library
) -> None:
    store = services.store
    c = library.concepts
    a, b = c["deliberate"], c["simple"]
    store.apply(ChangeSet(relations=[Relation(source_id=a.id, target_id=b.id, type="RELATES_TO")]))
    state = graph_state(store)
    with pytest.raises(CorrectionError, match=r"joined by 2 relations.*say which"):
        unlink_concepts(services, a.id, b.id)
    with pytest.raises(UnknownError, match="other way round"):
        unlink_concepts(services, b.id, a.id, "GENERALIZES")
    with pytest.raises(UnknownError, match=r"OPPOSES.*not in the graph; what joins them"):
        unlink_concepts(services, a.id, b.id, "OPPOSES")
    with pytest.raises(UnknownError, match="are not related"):
        unlink_concepts(services, a.id, c["exercise"].id)
    with pytest.raises(CorrectionError, match="named twice"):
        unlink_concepts(services, a.id, a.title)
    with pytest.raises(UnknownError, match="no concept"):
        unlink_concepts(services, a.id, "Nadie")
    assert graph_state(store) == state
