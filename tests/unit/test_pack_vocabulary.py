"""The relation vocabulary comes from the active packs: today's eleven types from the shipped
zettelkasten pack, and a changed pack changes the prompts, the store rules, the vault notes
and the web colours (issue 14, "Done when")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError

from pack_files import changed_zettelkasten
from zettelgraph.context import Services, open_services
from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.models import ChangeSet, Concept, Entity, Relation, entity_id
from zettelgraph.packs.loader import active_schema
from zettelgraph.packs.relations import DEFAULT_VOCABULARY, RelationVocabulary, vocabulary_from
from zettelgraph.prompts import (
    create_relations,
    incorporate_feedback,
    refine_extraction,
    relation_queries,
)
from zettelgraph.prompts.proposal_patch import typed_patch
from zettelgraph.settings import Settings
from zettelgraph.store.base import IntegrityError
from zettelgraph.vault.notes import ConceptNote, LinkedConcept
from zettelgraph.web.app import create_app

CONCEPT_TYPES = {
    "GENERALIZES": ("SPECIFIC_OF", "agrees", "#2563eb"),
    "SPECIFIC_OF": ("GENERALIZES", "agrees", "#0891b2"),
    "PART_OF": ("HAS_PART", "agrees", "#7c3aed"),
    "HAS_PART": ("PART_OF", "agrees", "#a855f7"),
    "SUPPORTS": ("SUPPORTED_BY", "agrees", "#16a34a"),
    "SUPPORTED_BY": ("SUPPORTS", "agrees", "#65a30d"),
    "PREREQUISITE_FOR": ("REQUIRES", "neutral", "#be185d"),
    "REQUIRES": ("PREREQUISITE_FOR", "neutral", "#ec4899"),
    "OPPOSES": ("OPPOSES", "opposes", "#dc2626"),
    "SIMILAR_TO": ("SIMILAR_TO", "agrees", "#d97706"),
    "RELATES_TO": ("RELATES_TO", "neutral", "#64748b"),
}


def test_the_zettelkasten_pack_is_the_concept_workflow_vocabulary() -> None:
    assert DEFAULT_VOCABULARY.names == list(CONCEPT_TYPES)
    for name, (reverse, stance, color) in CONCEPT_TYPES.items():
        assert DEFAULT_VOCABULARY.reverse_of(name) == reverse
        assert DEFAULT_VOCABULARY.stance(name) == stance
        assert DEFAULT_VOCABULARY.color(name) == color
    assert DEFAULT_VOCABULARY.descriptions["OPPOSES"] == "A and B are in direct opposition."
    assert DEFAULT_VOCABULARY.phrase("SPECIFIC_OF", "es") == "es un caso particular de"
    # What must be understood first (issue 31): a strict need, in the reader's words.
    assert DEFAULT_VOCABULARY.phrase("PREREQUISITE_FOR", "en") == "is needed to understand"
    assert DEFAULT_VOCABULARY.phrase("REQUIRES", "es") == "requiere entender antes"
    assert "cannot be understood without" in DEFAULT_VOCABULARY.descriptions["REQUIRES"]


def test_the_concept_part_of_all_shipped_packs_is_the_same_eleven(tmp_path: Path) -> None:
    vocabulary = vocabulary_from(active_schema(Settings(home=tmp_path)))
    assert {"KNOWS", "WROTE", "CONTRADICTS", "BORN_IN"} <= vocabulary.types
    concepts = vocabulary.between("Concept", "Concept")
    assert concepts.names == DEFAULT_VOCABULARY.names
    assert concepts.reverses == DEFAULT_VOCABULARY.reverses
    assert concepts.descriptions == DEFAULT_VOCABULARY.descriptions
    assert vocabulary.joins("SUPPORTS", "Finding", "Claim")
    assert not vocabulary.joins("KNOWS", "Concept", "Concept")


def test_a_one_way_type_is_written_as_given(tmp_path: Path) -> None:
    vocabulary = vocabulary_from(active_schema(Settings(home=tmp_path)))
    assert vocabulary.reverse_of("BORN_IN") is None and "BORN_IN" in vocabulary.one_way
    born = Relation(source_id="p", target_id="madrid", type="BORN_IN")
    knows = Relation(source_id="p", target_id="q", type="KNOWS")
    keys = [r.key for r in vocabulary.with_reverses([born, knows])]
    assert keys == [("p", "BORN_IN", "madrid"), ("p", "KNOWS", "q"), ("q", "KNOWS", "p")]


def test_a_type_without_a_colour_or_words_gets_stable_fallbacks() -> None:
    vocabulary = RelationVocabulary(reverses={"CAUSES": "CAUSED_BY", "CAUSED_BY": "CAUSES"})
    assert vocabulary.color("CAUSES") == vocabulary.color("CAUSES")
    assert vocabulary.color("CAUSES").startswith("#")
    assert vocabulary.phrase("CAUSED_BY", "es") == "caused by"
    # A vocabulary written in code (no endpoint types) joins any types.
    assert vocabulary.between("Concept", "Concept").types == vocabulary.types


def test_the_relation_prompts_offer_exactly_the_vocabulary_in_its_order() -> None:
    model = create_relations.response_model(DEFAULT_VOCABULARY)
    assert issubclass(model, create_relations.CreatedRelations)
    assert model is create_relations.response_model(DEFAULT_VOCABULARY)  # built once
    enum = model.model_json_schema()["$defs"]["ProposedRelation"]["properties"]
    assert enum["relation_type"]["enum"] == list(CONCEPT_TYPES)
    reply = {"target_concept_id": "c2", "explanation": "x", "confidence": 0.5}
    model.model_validate({"relations": [{**reply, "relation_type": "OPPOSES"}]})
    with pytest.raises(ValidationError):
        model.model_validate({"relations": [{**reply, "relation_type": "CAUSES"}]})
    queries = relation_queries.response_model(DEFAULT_VOCABULARY).model_json_schema()
    assert queries["$defs"]["TypedQueries"]["properties"]["relation_type"]["enum"] == list(
        CONCEPT_TYPES
    )
    for patch in (refine_extraction.Refinement, incorporate_feedback.FeedbackPatch):
        typed = typed_patch(patch, DEFAULT_VOCABULARY)
        assert issubclass(typed, patch)
        change = typed.model_json_schema()["$defs"]["RelationChange"]["properties"]
        assert change["relation_type"]["enum"] == list(CONCEPT_TYPES)


def test_the_prompt_text_comes_from_the_pack() -> None:
    line = create_relations.ConceptLine(id="c1", title="T", summary_short="S")
    data = create_relations.CreateRelationsInput(target=line, others=[], existing=[])
    system = str(create_relations.messages(data, DEFAULT_VOCABULARY)[0].content)
    assert "- OPPOSES: A and B are in direct opposition." in system
    # The prerequisite is asked for strictly: precision over volume (issue 31).
    assert "- PREREQUISITE_FOR: B cannot be understood without first understanding A" in system
    # The zettelkasten pack's example of SUPPORTS is the model answer shown.
    assert '"relation_type": "SUPPORTS"' in system and "don Quijote" in system
    ask = relation_queries.RelationQueriesInput(title="t", concept="c")
    human = str(relation_queries.messages(ask, DEFAULT_VOCABULARY)[1].content)
    assert (
        "(for GENERALIZES: more specific cases; for PREREQUISITE_FOR: ideas that build on this "
        "one; ...)" in human
    )


# --- a changed zettelkasten pack in the home folder ---------------------------------------------


@pytest.fixture
def changed(tmp_path: Path) -> Iterator[Services]:
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "zettelkasten.yaml").write_text(changed_zettelkasten(), encoding="utf-8")
    settings = Settings(home=tmp_path, llm="fake", embeddings="hash")
    services = open_services(settings, llms=ChatModels(settings, preset={"fake": FakeChatModel()}))
    yield services
    services.close()


def test_a_changed_pack_changes_what_the_relation_prompts_offer(changed: Services) -> None:
    vocabulary = changed.concept_vocabulary
    assert vocabulary.names[-2:] == ["CAUSES", "CAUSED_BY"]
    assert "SIMILAR_TO" not in vocabulary.types and "RESEMBLES" in vocabulary.types
    model = create_relations.response_model(vocabulary)
    enum = model.model_json_schema()["$defs"]["ProposedRelation"]["properties"]
    assert enum["relation_type"]["enum"] == vocabulary.names
    reply = {"target_concept_id": "c2", "explanation": "x", "confidence": 0.5}
    model.model_validate({"relations": [{**reply, "relation_type": "CAUSES"}]})
    with pytest.raises(ValidationError):
        model.model_validate({"relations": [{**reply, "relation_type": "SIMILAR_TO"}]})
    line = create_relations.ConceptLine(id="c1", title="T", summary_short="S")
    data = create_relations.CreateRelationsInput(target=line, others=[], existing=[])
    system = str(create_relations.messages(data, vocabulary)[0].content)
    assert "- CAUSES: A brings about B." in system
    assert "- OPPOSES: A and B cannot both hold." in system
    assert "SIMILAR_TO" not in system
    # Entity relationship types of the other active packs are not offered between concepts.
    assert "KNOWS" not in system


def test_a_changed_pack_changes_what_the_store_accepts(changed: Services) -> None:
    a = Concept(id="a", title="Lluvia", concept="Llueve.")
    b = Concept(id="b", title="Charcos", concept="Hay charcos.")
    store = changed.store
    store.apply(ChangeSet(concepts=[a, b]))
    store.apply(ChangeSet(relations=[Relation(source_id="a", target_id="b", type="CAUSES")]))
    keys = {r.key for r in store.relations("a", direction="both")}
    assert keys == {("a", "CAUSES", "b"), ("b", "CAUSED_BY", "a")}
    with pytest.raises(IntegrityError, match="not in the vocabulary"):
        store.apply(
            ChangeSet(relations=[Relation(source_id="a", target_id="b", type="SIMILAR_TO")])
        )
    # The other active packs' types join their entities, never two concepts.
    with pytest.raises(IntegrityError, match="does not join two Concepts"):
        store.apply(ChangeSet(relations=[Relation(source_id="a", target_id="b", type="KNOWS")]))
    people = [
        Entity(id=entity_id("Person", n), name=n, entity_type="Person", pack="narrative")
        for n in ("Don Quijote", "Sancho Panza")
    ]
    store.apply(ChangeSet(entities=people))
    knows = Relation(source_id=people[0].id, target_id=people[1].id, type="KNOWS")
    store.apply(ChangeSet(relations=[knows]))
    assert len(store.relations(people[0].id, relation_type="KNOWS", direction="both")) == 2


def test_a_changed_pack_changes_the_vault_notes_and_the_web_colours(changed: Services) -> None:
    a = Concept(id="a", title="Lluvia", concept="Llueve.")
    b = Concept(id="b", title="Charcos", concept="Hay charcos.")
    path = changed.vault.write_note(ConceptNote(a, {"CAUSES": [LinkedConcept("b", b.title)]}, []))
    text = path.read_text(encoding="utf-8")
    # The changed pack's own type, as a line and as a property; no empty lines for the
    # types this concept has no relation of, and none of the default pack's names.
    assert "- CAUSES: [[Charcos]]" in text and "causes:" in text
    assert "RESEMBLES" not in text and "SIMILAR_TO" not in text

    changed.store.apply(
        ChangeSet(
            concepts=[a, b],
            relations=[Relation(source_id="a", target_id="b", type="SUPPORTS")],
        )
    )
    app = create_app(changed.settings, services=changed)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        page = client.get("/graph", params={"concept": "a"})
        assert page.status_code == 200, page.text
        assert "#123456" in page.text  # SUPPORTS in the changed pack's colour
        concept_page = client.get("/concepts/a")
        assert "--rel: #123456" in concept_page.text
