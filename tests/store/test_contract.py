"""The GraphStore contract: every backend must pass these, through the protocol only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from numpy.typing import NDArray

from zettelgraph.models import (
    ChangeSet,
    Difficulty,
    Entity,
    ItemStatus,
    ItemType,
    LearningItem,
    NodeLabel,
    ReviewLog,
    SearchHit,
    entity_id,
    learning_item_id,
    review_log_id,
)
from zettelgraph.packs.relations import (
    AUTHORED_BY,
    CITES,
    IN_SECTION,
    QUOTED_IN,
    SECTION_OF,
    SUPPORTS,
    TESTS,
)
from zettelgraph.store import GraphStore
from zettelgraph.store.base import EmbedderMismatchError, EmbeddingInfo, IntegrityError

if TYPE_CHECKING:
    from conftest import Builders, HashEmbedder

SCORE_TOL = 1e-5


def snapshot(store: GraphStore) -> dict[str, Any]:
    """Everything a reader can see, in a comparable form."""
    return {
        "counts": store.counts(),
        "contents": store.list_contents(),
        "concepts": store.list_concepts(),
        "sections": store.nodes(NodeLabel.SECTION),
        "answers": store.answers(limit=1000),
        "relations": store.relations(),
        "vectors": {node_id: vector.tolist() for node_id, vector in store.vectors()},
    }


def unit(vector: NDArray[np.float32]) -> NDArray[np.float64]:
    array = np.asarray(vector, dtype=np.float64)
    return array / np.linalg.norm(array)


# --- nodes ------------------------------------------------------------------------------


def test_every_node_type_reads_back_exactly(store: GraphStore, make: Builders) -> None:
    content = make.content(
        "Así habló Zaratustra",
        "Friedrich Nietzsche",
        kind="pdf",
        source_path="/libros/zaratustra.pdf",
        content_hash="ab" * 32,
        summary="Un libro para todos y para nadie.",
        summary_short="Para todos y para nadie.",
        metadata={"year": 1883, "tags": ["filosofía", "ñandú"], "nested": {"a": None}},
        processed_date=datetime(2024, 2, 29, 23, 59, 59, 999999, tzinfo=UTC),
    )
    person = make.person("Friedrich Nietzsche", summary="Filósofo.", occupation="filólogo")
    quote = make.quote(
        content,
        "Hay que tener caos dentro de sí para dar a luz una estrella danzarina.",
        0,
        section="Prólogo",
        page="12-13",
        location={"slide": None, "heading_path": ["I", "5"], "offsets": [10, 82]},
        summary="El caos interior precede a la creación.",  # issue 31, item 6
    )
    concept = make.concept(
        "Caos creativo",
        "El desorden interior como condición de la creación.",
        analysis="Nietzsche invierte la relación orden/creación.",
        summary="Crear exige atravesar el caos.",
        summary_short="Crear desde el caos.",
        language="es",
        vault_sync_pending=True,
        synonyms=["Estrella danzarina", "Caos fecundo"],  # issue 31, item 18
        first_appearance="Prólogo, pp. 12-13",
    )
    store.apply(
        ChangeSet(
            contents=[content],
            persons=[person],
            quotes=[quote],
            concepts=[concept],
            relations=[make.relation(content.id, AUTHORED_BY, person.id)],
        )
    )

    assert store.get_content(content.id) == content
    assert store.list_contents() == [content]
    assert store.get_person(person.id) == person
    assert store.author_of(content.id) == person
    assert store.get_quotes([quote.id]) == [quote]
    assert store.quotes_of(content.id) == [quote]
    assert store.get_concept(concept.id) == concept
    assert store.list_concepts() == [concept]


def test_reads_of_missing_or_wrongly_labelled_ids_are_empty(
    store: GraphStore, make: Builders
) -> None:
    book = make.book()
    store.apply(book)
    content, person, quote = book.contents[0], book.persons[0], book.quotes[0]

    assert store.get_content("no-such-id") is None
    assert store.get_content(person.id) is None
    assert store.get_person(content.id) is None
    assert store.get_concept(quote.id) is None
    assert store.author_of(person.id) is None
    assert store.quotes_of("no-such-id") == []
    assert store.get_quotes(["no-such-id", content.id]) == []


def test_nodes_pages_through_every_node_of_a_label_by_id(store: GraphStore, make: Builders) -> None:
    book = make.book(quotes=[f"Pasaje número {i} del libro." for i in range(25)])
    store.apply(book)
    store.apply(make.concepts_for(book, ["Hábito", "Rutina", "Memoria"]))

    pages: list[list[str]] = []
    after = ""
    while page := store.nodes(NodeLabel.QUOTE, after=after, limit=10):
        pages.append([q.id for q in page])
        after = page[-1].id
    assert [len(p) for p in pages] == [10, 10, 5]
    assert [i for p in pages for i in p] == sorted(q.id for q in book.quotes)
    assert store.nodes(NodeLabel.QUOTE, limit=100) == sorted(book.quotes, key=lambda q: q.id)
    assert store.nodes(NodeLabel.PERSON) == book.persons
    assert [c.title for c in store.nodes(NodeLabel.CONCEPT)] == [
        c.title for c in sorted(store.list_concepts(), key=lambda c: c.id)
    ]
    assert store.nodes(NodeLabel.CONTENT, after=book.contents[0].id) == []


def test_get_quotes_returns_each_known_quote_once(store: GraphStore, make: Builders) -> None:
    book = make.book()
    store.apply(book)
    first, _, third = book.quotes

    found = store.get_quotes([third.id, "missing", first.id, third.id])

    assert sorted(found, key=lambda q: q.id) == sorted([first, third], key=lambda q: q.id)


def test_upsert_replaces_node_data(store: GraphStore, make: Builders) -> None:
    concept = make.concept("Hábito", "Una conducta automática.")
    store.apply(ChangeSet(concepts=[concept]))
    revised = concept.model_copy(update={"concept": "Una conducta repetida hasta ser automática."})

    store.apply(ChangeSet(concepts=[revised]))

    assert store.get_concept(concept.id) == revised
    assert store.counts()["Concept"] == 1


def test_counts(store: GraphStore, make: Builders) -> None:
    assert store.counts() == {
        "Content": 0,
        "Person": 0,
        "Quote": 0,
        "Concept": 0,
        "Section": 0,
        "Answer": 0,
        "LearningItem": 0,
        "ReviewLog": 0,
        "Entity": 0,
        "Removal": 0,
        "Proposition": 0,
        "relations": 0,
        "vectors": 0,
    }
    book = make.book()
    store.apply(book)
    store.apply(make.concepts_for(book, ["Neuroplasticidad", "Memoria", "Hipocampo"]))
    store.apply(make.document())

    assert store.counts() == {
        "Content": 2,
        "Person": 1,
        "Quote": 3 + 3,
        "Concept": 3,
        "Section": 2,
        "Answer": 1,
        "LearningItem": 0,
        "ReviewLog": 0,
        "Entity": 0,
        "Removal": 0,
        "Proposition": 0,
        # Book: AUTHORED_BY + 3 QUOTED_IN + 3 Quote -> Concept SUPPORTS. Document: 2
        # SECTION_OF + 3 QUOTED_IN + 3 IN_SECTION + 2 CITES (none has a reverse).
        "relations": 7 + 10,
        "vectors": 6 + 3,
    }


def test_apply_is_idempotent(store: GraphStore, make: Builders) -> None:
    book = make.book()
    concepts = make.concepts_for(book)
    a, b = concepts.concepts
    changes = ChangeSet(
        contents=book.contents,
        persons=book.persons,
        quotes=book.quotes,
        concepts=concepts.concepts,
        relations=[*book.relations, *concepts.relations, make.relation(a.id, "PART_OF", b.id)],
        vectors={**book.vectors, **concepts.vectors},
    )

    store.apply(changes)
    first = snapshot(store)
    store.apply(changes)

    assert snapshot(store) == first
    assert first["counts"]["relations"] == 1 + 3 + 2 + 2


def test_find_person_ignores_case_accents_and_spacing(store: GraphStore, make: Builders) -> None:
    jose = make.person("José Ortega y Gasset")
    store.apply(ChangeSet(persons=[jose, make.person("José Saramago")]))

    assert store.find_person("JOSÉ  ortega y gasset") == jose
    assert store.find_person("jose ortega y gasset") == jose
    assert store.find_person("  José\tOrtega   y Gasset ") == jose
    assert store.find_person("Ortega") is None
    assert store.find_person("José Ortega") is None


def test_quotes_of_returns_reading_order(store: GraphStore, make: Builders) -> None:
    content = make.content()
    # Positions above 9 catch a backend that sorts positions as text.
    positions = [10, 2, 0, 11, 1]
    quotes = [make.quote(content, f"Pasaje número {p}.", p) for p in positions]
    other = make.content("Otro libro", "Otra autora")
    store.apply(
        ChangeSet(
            contents=[content, other],
            quotes=[*quotes, make.quote(other, "Pasaje de otro libro.", 3)],
        )
    )

    assert [q.position for q in store.quotes_of(content.id)] == [0, 1, 2, 10, 11]
    assert store.quotes_of(content.id) == sorted(quotes, key=lambda q: q.position)


# --- documents: sections, passages and answers -------------------------------------------


def test_sections_passages_and_answers_read_back_exactly(store: GraphStore, make: Builders) -> None:
    doc = make.document()
    store.apply(doc)
    content, (first, second), answer = doc.contents[0], doc.sections, doc.answers[0]

    assert store.get_sections([first.id]) == [first]
    assert store.sections_of(content.id) == [first, second]
    assert store.nodes(NodeLabel.SECTION) == sorted(doc.sections, key=lambda s: s.id)
    # Passages are Quotes of the Content that remember their Section.
    assert store.quotes_of(content.id) == doc.quotes
    assert store.get_quotes([q.id for q in doc.quotes]) == doc.quotes
    assert [q.parent_id for q in store.quotes_of(content.id)] == [first.id, first.id, second.id]
    assert store.answers() == [answer]
    assert store.nodes(NodeLabel.ANSWER) == [answer]
    assert answer.citations[1]["methods"] == ["vector", "text"]


def test_get_sections_keeps_the_order_asked_and_skips_unknown_ids(
    store: GraphStore, make: Builders
) -> None:
    doc = make.document()
    store.apply(doc)
    first, second = doc.sections
    passage, answer = doc.quotes[0], doc.answers[0]

    found = store.get_sections([second.id, "missing", passage.id, first.id, second.id, answer.id])

    assert found == [second, first]
    assert store.get_sections([]) == []
    assert store.get_quotes([first.id, answer.id]) == []  # a Section is not a Quote


def test_sections_of_returns_reading_order(store: GraphStore, make: Builders) -> None:
    content = make.content("Manual", "Alguien")
    # Positions above 9 catch a backend that sorts positions as text; equal positions fall
    # back to the id.
    sections = [make.section(content, f"Sección {p}.", p) for p in (10, 2, 0, 11, 1)]
    twins = [make.section(content, f"Gemela {i}.", 5) for i in range(3)]
    other = make.content("Otro", "Otra")
    store.apply(
        ChangeSet(
            contents=[content, other],
            sections=[*sections, *twins, make.section(other, "De otro documento.", 3)],
            quotes=[make.quote(content, "Un pasaje suelto.", 4)],
        )
    )

    found = store.sections_of(content.id)

    assert [s.position for s in found] == [0, 1, 2, 5, 5, 5, 10, 11]
    assert [s.id for s in found if s.position == 5] == sorted(t.id for t in twins)
    assert [s.text for s in store.sections_of(other.id)] == ["De otro documento."]
    assert [q.text for q in store.quotes_of(content.id)] == ["Un pasaje suelto."]
    assert store.sections_of("no-such-id") == []


def test_answers_are_newest_first_with_a_limit(store: GraphStore, make: Builders) -> None:
    base = datetime(2025, 3, 1, 10, 0, tzinfo=UTC)
    madrid = timezone(timedelta(hours=2))
    asked = [
        make.answer("¿Primera?", created_at=base),
        make.answer("¿Tercera?", created_at=base + timedelta(hours=2)),
        # 11:00+02:00 is 09:00 UTC, the oldest: compared as text it would come second.
        make.answer("¿La más vieja?", created_at=datetime(2025, 3, 1, 11, 0, tzinfo=madrid)),
        make.answer("¿Segunda?", created_at=base + timedelta(hours=1, microseconds=1)),
        make.answer("¿Segunda bis?", created_at=base + timedelta(hours=1, microseconds=1)),
    ]
    store.apply(ChangeSet(answers=asked))
    tied = sorted([asked[3], asked[4]], key=lambda a: a.id)

    assert store.answers() == [asked[1], *tied, asked[0], asked[2]]
    assert store.answers(limit=2) == [asked[1], tied[0]]
    assert store.answers(limit=0) == []
    assert store.answers()[-1].created_at == asked[2].created_at  # its offset is kept
    assert store.answers()[-1].created_at.utcoffset() == timedelta(hours=2)


# --- learning items and their study history ---------------------------------------------


def _card(concept_id: str, quote_id: str, front: str, **kw: Any) -> LearningItem:
    fields: dict[str, Any] = {
        "item_type": ItemType.MCQ,
        "front": front,
        "back": "La soledad elegida",
        "options": ["La soledad elegida", "La vida en la ciudad", "El trabajo"],
        "correct": 0,
        "explanation": "«La vida en la ciudad» es lo que el autor deja atrás.",
        "difficulty": Difficulty.MEDIUM,
        "concept_ids": [concept_id],
        "quote_ids": [quote_id],
        "content_ids": ["c1"],
        "warnings": ["cloze: «bosque» elegida por el código"],
        "provenance": {"generator": "graph", "calls": 0},
        "schedule": {"card_id": 1, "state": 2, "step": None, "stability": 3.2},
        "due": datetime(2026, 12, 1, 9, 30, tzinfo=timezone(timedelta(hours=1))),
        **kw,
    }
    item_type = fields["item_type"]
    return LearningItem(id=learning_item_id(str(item_type), [concept_id], front), **fields)


def test_learning_items_and_review_logs_read_back_exactly(
    store: GraphStore, make: Builders
) -> None:
    book = make.book()
    concepts = make.concepts_for(book)
    store.apply(book)
    store.apply(concepts)
    concept, quote = concepts.concepts[0], book.quotes[0]
    item = _card(concept.id, quote.id, "¿Qué idea expresa esta cita?")
    cloze = _card(
        concept.id,
        quote.id,
        "Fui al [...] porque quería vivir deliberadamente.",
        item_type=ItemType.CLOZE,
        back="bosque",
        cloze="Fui al {{c1::bosque}} porque quería vivir deliberadamente.",
        options=[],
        correct=None,
        status=ItemStatus.APPROVED,
        schedule={},
        due=None,
    )
    base = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)
    logs = [
        ReviewLog(id=review_log_id(item.id, when), item_id=item.id, rating=r, reviewed_at=when)
        for r, when in [(3, base + timedelta(days=2)), (1, base), (4, base + timedelta(days=9))]
    ]
    store.apply(
        ChangeSet(
            learning_items=[item, cloze],
            review_logs=logs,
            relations=[
                make.relation(item.id, TESTS, concept.id),
                make.relation(item.id, CITES, quote.id),
                make.relation(cloze.id, TESTS, concept.id),
            ],
        )
    )

    assert store.get_learning_items([cloze.id, "missing", item.id, cloze.id, quote.id]) == [
        cloze,
        item,
    ]
    assert store.get_learning_items([item.id])[0].due == item.due  # its offset is kept
    assert sorted(store.nodes(NodeLabel.LEARNING_ITEM), key=lambda n: n.id) == sorted(
        [item, cloze], key=lambda n: n.id
    )
    assert store.review_logs(item.id) == [logs[1], logs[0], logs[2]]
    assert store.review_logs(cloze.id) == []
    assert {
        r.source_id for r in store.relations(concept.id, relation_type=TESTS, direction="in")
    } == {
        item.id,
        cloze.id,
    }
    counts = store.counts()
    assert (counts["LearningItem"], counts["ReviewLog"]) == (2, 3)
    # Cards are not sources: never searched, and a vector for one is refused.
    assert store.text_search("deliberadamente", 10, label=NodeLabel.LEARNING_ITEM) == []
    with pytest.raises(IntegrityError, match="Entities and Propositions"):
        store.apply(ChangeSet(vectors={item.id: np.ones(16, dtype=np.float32)}))


def test_studying_an_item_rewrites_its_schedule(store: GraphStore, make: Builders) -> None:
    book = make.book()
    concepts = make.concepts_for(book)
    store.apply(book)
    store.apply(concepts)
    item = _card(concepts.concepts[0].id, book.quotes[0].id, "¿Qué idea expresa esta cita?")
    store.apply(ChangeSet(learning_items=[item]))
    when = datetime(2026, 11, 3, tzinfo=UTC)
    studied = item.model_copy(
        update={"schedule": {"card_id": 1, "state": 2}, "due": when + timedelta(days=4)}
    )
    log = ReviewLog(id=review_log_id(item.id, when), item_id=item.id, rating=3, reviewed_at=when)

    store.apply(ChangeSet(learning_items=[studied], review_logs=[log]))
    store.apply(ChangeSet(learning_items=[studied], review_logs=[log]))  # a replay

    assert store.get_learning_items([item.id]) == [studied]
    assert store.review_logs(item.id) == [log]


# --- entities of the template packs -------------------------------------------------------


def _entity(name: str, entity_type: str = "Place", **kw: Any) -> Entity:
    return Entity(
        id=entity_id(entity_type, name), name=name, entity_type=entity_type, pack="narrative", **kw
    )


def test_entities_read_back_are_found_by_name_and_searched(
    store: GraphStore, make: Builders
) -> None:
    madrid = _entity(
        "Madrid",
        description="Villa y corte, donde Gabriel vive el dos de mayo.",
        properties={"country": "España", "founded": 852, "aliases": ["la Villa"]},
        provenance={"passages": ["q1"], "pack_version": "1"},
    )
    person = _entity("Gabriel Araceli", "Person", description="Narrador de los Episodios.")
    # The same name as another type is another entity.
    play = _entity("MADRID", "Work", description="Una comedia.")
    store.apply(
        ChangeSet(
            entities=[madrid, person, play],
            vectors={e.id: make.embedder.embed(e.name) for e in (madrid, person, play)},
        )
    )

    assert store.get_entities([play.id, "missing", madrid.id, madrid.id]) == [play, madrid]
    assert store.find_entities("  madríd ") == sorted([madrid, play], key=lambda e: e.entity_type)
    assert store.find_entities("Gabriel  araceli") == [person]
    assert store.find_entities("Sevilla") == []
    hits = store.text_search("corte", 5, label=NodeLabel.ENTITY)
    assert [h.id for h in hits] == [madrid.id]
    nearest = store.vector_search(NodeLabel.ENTITY, make.embedder.embed("Gabriel Araceli"), 1)
    assert [h.id for h in nearest] == [person.id]
    assert store.counts()["Entity"] == 3


def test_entity_relations_follow_the_vocabulary(store: GraphStore, make: Builders) -> None:
    a, b = _entity("Madrid"), _entity("Toledo")
    store.apply(ChangeSet(entities=[a, b]))

    with pytest.raises(IntegrityError, match="not in the vocabulary"):
        store.apply(ChangeSet(relations=[make.relation(a.id, "NO_SUCH_TYPE", b.id)]))
    store.apply(ChangeSet(relations=[make.relation(a.id, "SIMILAR_TO", b.id, why="ciudades")]))

    assert {
        (r.source_id, r.type, r.target_id) for r in store.relations(a.id, direction="both")
    } == {
        (a.id, "SIMILAR_TO", b.id),
        (b.id, "SIMILAR_TO", a.id),
    }


def test_document_relations_are_structural(store: GraphStore, make: Builders) -> None:
    doc = make.document()
    store.apply(doc)
    content, (first, second), answer = doc.contents[0], doc.sections, doc.answers[0]
    by_key = {r.key: r for r in doc.relations}

    into_first = store.relations(first.id, direction="in")
    assert {r.key for r in into_first} == {(q.id, IN_SECTION, first.id) for q in doc.quotes[:2]}
    assert into_first == [by_key[r.key] for r in into_first]
    assert store.relations(first.id) == [by_key[(first.id, SECTION_OF, content.id)]]
    cites = [by_key[(answer.id, CITES, q.id)] for q in doc.quotes[:2]]
    assert store.relations(answer.id) == sorted(cites, key=lambda r: r.key)
    assert store.relations(answer.id, direction="in") == []
    assert {r.source_id for r in store.relations(second.id, direction="in")} == {doc.quotes[2].id}
    assert {r.key for r in store.relations(doc.quotes[0].id, direction="in")} == {
        (answer.id, CITES, doc.quotes[0].id)
    }
    # No reverses: these relations are not between Concepts.
    assert len(store.relations()) == len(doc.relations)


def test_sections_and_answers_are_not_searched(store: GraphStore, make: Builders) -> None:
    doc = make.document(question="¿Qué hace la cafeína con la adenosina?")
    store.apply(doc)
    caffeine = doc.quotes[2]

    # The word is in a passage, in its Section's text and title and in the Answer.
    hits = store.text_search("cafeína", 10)
    assert [(h.id, h.label) for h in hits] == [(caffeine.id, NodeLabel.QUOTE)]
    assert store.text_search("cafeína", 10, label=NodeLabel.SECTION) == []
    assert store.text_search("cafeína", 10, label=NodeLabel.ANSWER) == []
    assert store.text_search("Dormir", 10) == []  # only a Section title
    assert store.text_search("Según", 10) == []  # only the Answer's text
    query = doc.vectors[caffeine.id]
    assert store.vector_search(NodeLabel.SECTION, query, 5) == []
    assert [h.id for h in store.vector_search(NodeLabel.QUOTE, query, 1)] == [caffeine.id]
    assert dict(store.vectors()).keys() == {q.id for q in doc.quotes}


@pytest.mark.parametrize("which", ["section", "answer"])
def test_a_vector_for_a_section_or_answer_writes_nothing(
    store: GraphStore, make: Builders, which: str
) -> None:
    doc = make.document()
    node = doc.sections[0] if which == "section" else doc.answers[0]
    vectors = {**doc.vectors, node.id: np.ones(16, dtype=np.float32)}

    with pytest.raises(IntegrityError, match="Entities and Propositions"):
        store.apply(doc.model_copy(update={"vectors": vectors}))

    assert snapshot(store) == snapshot_of_empty()


def test_a_document_replays_idempotently(store: GraphStore, make: Builders) -> None:
    doc = make.document()
    store.apply(doc)
    first = snapshot(store)
    sections = store.sections_of(doc.contents[0].id)

    store.apply(doc)
    # A re-ingested section with new text replaces the old record, in place.
    revised = doc.sections[0].model_copy(update={"title": "Dormir mejor"})
    store.apply(ChangeSet(sections=[revised]))
    store.apply(ChangeSet(sections=[doc.sections[0]]))

    assert snapshot(store) == first
    assert store.sections_of(doc.contents[0].id) == sections
    assert first["counts"]["Section"] == 2 and first["counts"]["Answer"] == 1


# --- relations --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("forward", "reverse"),
    [
        ("GENERALIZES", "SPECIFIC_OF"),
        ("SPECIFIC_OF", "GENERALIZES"),
        ("PART_OF", "HAS_PART"),
        ("HAS_PART", "PART_OF"),
        ("SUPPORTS", "SUPPORTED_BY"),
        ("SUPPORTED_BY", "SUPPORTS"),
        ("OPPOSES", "OPPOSES"),
        ("SIMILAR_TO", "SIMILAR_TO"),
        ("RELATES_TO", "RELATES_TO"),
    ],
)
def test_concept_relations_get_their_reverse(
    store: GraphStore, make: Builders, forward: str, reverse: str
) -> None:
    a, b = make.concept("Ejercicio"), make.concept("Ejercicio aeróbico")
    store.apply(
        ChangeSet(concepts=[a, b], relations=[make.relation(a.id, forward, b.id, why="test")])
    )

    assert [(r.source_id, r.type, r.target_id) for r in store.relations(a.id)] == [
        (a.id, forward, b.id)
    ]
    back = store.relations(b.id)
    assert [(r.source_id, r.type, r.target_id) for r in back] == [(b.id, reverse, a.id)]
    assert back[0].properties["why"] == "test"
    assert store.counts()["relations"] == 2


def test_quote_supports_concept_has_no_reverse(store: GraphStore, make: Builders) -> None:
    book = make.book()
    store.apply(book)
    concepts = make.concepts_for(book, ["Neuroplasticidad"])
    store.apply(concepts)
    quote, concept = book.quotes[0], concepts.concepts[0]

    assert store.relations(concept.id, direction="out") == []
    assert store.relations(relation_type="SUPPORTED_BY") == []
    supports = store.relations(quote.id, relation_type=SUPPORTS)
    assert [(r.source_id, r.target_id) for r in supports] == [(quote.id, concept.id)]
    assert store.relations(concept.id, direction="in") == supports


def test_relations_read_back_exactly(store: GraphStore, make: Builders) -> None:
    book = make.book()
    store.apply(book)
    content, person = book.contents[0], book.persons[0]

    assert store.relations(content.id, relation_type=AUTHORED_BY) == [book.relations[0]]
    assert sorted(store.relations(relation_type=QUOTED_IN), key=lambda r: r.key) == sorted(
        book.relations[1:], key=lambda r: r.key
    )
    assert store.relations(person.id, direction="in") == [book.relations[0]]
    both = store.relations(content.id, direction="both")
    assert {r.key for r in both} == {r.key for r in book.relations}


def test_relations_rejects_an_unknown_direction(store: GraphStore) -> None:
    with pytest.raises(ValueError, match="direction"):
        store.relations("x", direction="sideways")


def test_existing_relation_properties_are_never_rewritten(
    store: GraphStore, make: Builders
) -> None:
    a, b = make.concept("Hábito"), make.concept("Rutina")
    first = make.relation(a.id, "GENERALIZES", b.id, why="first run", confidence=0.9)
    store.apply(ChangeSet(concepts=[a, b], relations=[first]))
    before = store.relations()

    second = make.relation(a.id, "GENERALIZES", b.id, why="second run", confidence=0.1)
    reverse = make.relation(b.id, "SPECIFIC_OF", a.id, why="second run reverse")
    store.apply(ChangeSet(concepts=[a, b], relations=[second, reverse]))

    assert store.relations() == before
    assert store.relations(a.id)[0].properties == {"why": "first run", "confidence": 0.9}
    assert store.relations(a.id)[0].created_at == first.created_at


def test_relation_to_missing_node_writes_nothing(store: GraphStore, make: Builders) -> None:
    store.apply(make.book("Spark", "John Ratey"))
    before = snapshot(store)

    book = make.book("El cerebro", "Otra Persona")
    broken = book.model_copy(
        update={"relations": [*book.relations, make.relation(book.quotes[0].id, SUPPORTS, "nope")]}
    )
    with pytest.raises(IntegrityError):
        store.apply(broken)

    assert snapshot(store) == before
    assert store.get_content(book.contents[0].id) is None
    assert store.find_person("Otra Persona") is None


def test_relation_from_missing_node_writes_nothing(store: GraphStore, make: Builders) -> None:
    concept = make.concept("Memoria")
    with pytest.raises(IntegrityError):
        store.apply(
            ChangeSet(
                concepts=[concept], relations=[make.relation("ghost", "RELATES_TO", concept.id)]
            )
        )

    assert store.get_concept(concept.id) is None
    assert store.counts()["Concept"] == 0


def test_unknown_relation_type_between_concepts_writes_nothing(
    store: GraphStore, make: Builders
) -> None:
    a, b = make.concept("Hábito"), make.concept("Rutina")
    with pytest.raises(IntegrityError, match="INSPIRES"):
        store.apply(
            ChangeSet(
                concepts=[a, b],
                relations=[
                    make.relation(a.id, "GENERALIZES", b.id),
                    make.relation(a.id, "INSPIRES", b.id),
                ],
                vectors=make.vectors([a, b]),
            )
        )

    assert snapshot(store) == snapshot_of_empty()


def snapshot_of_empty() -> dict[str, Any]:
    return {
        "counts": {
            "Content": 0,
            "Person": 0,
            "Quote": 0,
            "Concept": 0,
            "Section": 0,
            "Answer": 0,
            "LearningItem": 0,
            "ReviewLog": 0,
            "Entity": 0,
            "Removal": 0,
            "Proposition": 0,
            "relations": 0,
            "vectors": 0,
        },
        "contents": [],
        "concepts": [],
        "sections": [],
        "answers": [],
        "relations": [],
        "vectors": {},
    }


@pytest.mark.parametrize("failure", ["wrong_dim", "unknown_node", "nan"])
def test_failing_last_part_leaves_no_partial_write(
    store: GraphStore, make: Builders, failure: str
) -> None:
    store.apply(make.book("Spark", "John Ratey"))
    before = snapshot(store)

    book = make.book("Nuevo libro", "Nueva Autora")
    vectors = dict(book.vectors)
    if failure == "wrong_dim":
        vectors[book.quotes[-1].id] = np.ones(8, dtype=np.float32)
    elif failure == "unknown_node":
        vectors["not-a-node"] = np.ones(16, dtype=np.float32)
    else:
        vectors[book.quotes[-1].id] = np.full(16, np.nan, dtype=np.float32)
    with pytest.raises(IntegrityError):
        store.apply(book.model_copy(update={"vectors": vectors}))

    assert snapshot(store) == before
    assert store.get_content(book.contents[0].id) is None
    assert store.quotes_of(book.contents[0].id) == []


def test_a_node_cannot_change_label(store: GraphStore, make: Builders) -> None:
    concept = make.concept("Memoria")
    store.apply(ChangeSet(concepts=[concept]))
    impostor = make.person("Memoria").model_copy(update={"id": concept.id})

    with pytest.raises(IntegrityError):
        store.apply(ChangeSet(persons=[impostor]))

    assert store.get_concept(concept.id) == concept
    assert store.get_person(concept.id) is None


# --- embedder registration --------------------------------------------------------------


def test_embedder_registration(empty_store: GraphStore) -> None:
    assert empty_store.embedding_info() is None

    empty_store.ensure_embedder("model-a", 16)
    empty_store.ensure_embedder("model-a", 16)

    assert empty_store.embedding_info() == EmbeddingInfo(model="model-a", dim=16)


@pytest.mark.parametrize(("model", "dim"), [("model-b", 16), ("model-a", 32), ("model-b", 8)])
def test_a_different_embedder_is_refused(empty_store: GraphStore, model: str, dim: int) -> None:
    empty_store.ensure_embedder("model-a", 16)

    with pytest.raises(EmbedderMismatchError, match="zettelgraph reindex"):
        empty_store.ensure_embedder(model, dim)

    assert empty_store.embedding_info() == EmbeddingInfo(model="model-a", dim=16)


def test_vectors_without_a_registered_embedder_are_refused(
    empty_store: GraphStore, make: Builders
) -> None:
    concept = make.concept("Memoria")
    with pytest.raises(IntegrityError):
        empty_store.apply(ChangeSet(concepts=[concept], vectors=make.vectors([concept])))
    assert empty_store.get_concept(concept.id) is None


def test_replace_vectors_swaps_model_and_vectors(store: GraphStore, make: Builders) -> None:
    book = make.book()
    store.apply(book)
    concepts = make.concepts_for(book)
    store.apply(concepts)
    loaded = store.vector_search(NodeLabel.CONCEPT, concepts.vectors[concepts.concepts[0].id], 1)
    assert [h.id for h in loaded] == [concepts.concepts[0].id]
    rng = np.random.default_rng(7)
    # The new model embeds only the quotes; the concepts' old vectors must go too.
    new = {q.id: rng.standard_normal(8).astype(np.float32) for q in book.quotes}

    store.replace_vectors("model-8", 8, new)

    assert store.embedding_info() == EmbeddingInfo(model="model-8", dim=8)
    stored = dict(store.vectors())
    assert stored.keys() == new.keys()
    for node_id, vector in new.items():
        np.testing.assert_array_equal(stored[node_id], vector)
    assert {node_id for node_id, _ in store.vectors(NodeLabel.QUOTE)} == new.keys()
    assert store.vector_search(NodeLabel.CONCEPT, np.ones(8, dtype=np.float32), 5) == []
    target = book.quotes[1].id
    assert store.vector_search(NodeLabel.QUOTE, new[target], 1)[0].id == target
    store.ensure_embedder("model-8", 8)
    with pytest.raises(EmbedderMismatchError):
        store.ensure_embedder("test-hash", 16)


@pytest.mark.parametrize("failure", ["wrong_dim", "unknown_node", "nan"])
def test_failing_replace_vectors_keeps_the_old_model_and_vectors(
    store: GraphStore, make: Builders, failure: str
) -> None:
    book = make.book()
    store.apply(book)
    before = snapshot(store)
    new = {q.id: np.ones(8, dtype=np.float32) for q in book.quotes}
    if failure == "wrong_dim":
        new[book.quotes[-1].id] = np.ones(16, dtype=np.float32)
    elif failure == "unknown_node":
        new["not-a-node"] = np.ones(8, dtype=np.float32)
    else:
        new[book.quotes[-1].id] = np.array([np.inf] * 8, dtype=np.float32)

    with pytest.raises(IntegrityError):
        store.replace_vectors("model-8", 8, new)

    assert store.embedding_info() == EmbeddingInfo(model="test-hash", dim=16)
    assert snapshot(store) == before
    query = book.vectors[book.quotes[0].id]
    assert store.vector_search(NodeLabel.QUOTE, query, 1)[0].id == book.quotes[0].id


def test_vectors_read_back_exactly(store: GraphStore, make: Builders) -> None:
    book = make.book()
    store.apply(book)
    concepts = make.concepts_for(book)
    store.apply(concepts)

    quotes = dict(store.vectors(NodeLabel.QUOTE))
    assert quotes.keys() == book.vectors.keys()
    for node_id, vector in book.vectors.items():
        np.testing.assert_array_equal(quotes[node_id], vector)
        assert quotes[node_id].dtype == np.float32
    assert dict(store.vectors()).keys() == {*book.vectors, *concepts.vectors}


# --- vector search ----------------------------------------------------------------------


def load_random_concepts(
    store: GraphStore, make: Builders, n: int, seed: int = 42
) -> tuple[list[str], NDArray[np.float32]]:
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((n, 16)).astype(np.float32)
    concepts = [make.concept(f"Concepto {i:05d}") for i in range(n)]
    store.apply(
        ChangeSet(concepts=concepts, vectors={c.id: matrix[i] for i, c in enumerate(concepts)})
    )
    return [c.id for c in concepts], matrix


def brute_force(
    ids: list[str], matrix: NDArray[np.float32], query: NDArray[np.float32]
) -> tuple[list[str], NDArray[np.float64]]:
    """Every id ranked by float64 cosine similarity, best first, ties by id."""
    rows = matrix.astype(np.float64)
    scores = rows / np.linalg.norm(rows, axis=1, keepdims=True) @ unit(query)
    order = sorted(range(len(ids)), key=lambda i: (-scores[i], ids[i]))
    return [ids[i] for i in order], scores[order]


def assert_same_ranking(
    hits: list[SearchHit], expected_ids: list[str], expected_scores: NDArray[np.float64]
) -> None:
    assert len(hits) == len(expected_ids)
    np.testing.assert_allclose([h.score for h in hits], expected_scores, atol=SCORE_TOL, rtol=0)
    got = [h.id for h in hits]
    assert len(set(got)) == len(got)
    if len(expected_scores) < 2 or np.min(-np.diff(expected_scores)) > 2 * SCORE_TOL:
        assert got == expected_ids
    else:  # near-ties may swap; each hit must still carry its own true score
        truth = dict(zip(expected_ids, expected_scores, strict=True))
        for hit in hits:
            assert hit.id in truth


def test_vector_search_equals_brute_force(store: GraphStore, make: Builders) -> None:
    ids, matrix = load_random_concepts(store, make, 2000)
    # Quotes share the space but must never show up in a Concept search.
    store.apply(make.book())
    queries = np.random.default_rng(99).standard_normal((12, 16)).astype(np.float32)

    for query in queries:
        ranked_ids, ranked_scores = brute_force(ids, matrix, query)
        for k in (1, 5, 50, 300):
            hits = store.vector_search(NodeLabel.CONCEPT, query, k)
            assert all(h.label == NodeLabel.CONCEPT for h in hits)
            assert_same_ranking(hits, ranked_ids[:k], ranked_scores[:k])


def test_vector_search_with_min_score(store: GraphStore, make: Builders) -> None:
    ids, matrix = load_random_concepts(store, make, 2000)
    query = np.random.default_rng(5).standard_normal(16).astype(np.float32)
    ranked_ids, ranked_scores = brute_force(ids, matrix, query)

    for k, min_score in [(50, 0.6), (10, 0.6), (2000, 0.5), (50, 0.99), (50, -1.0)]:
        keep = int(np.sum(ranked_scores[:k] >= min_score))
        hits = store.vector_search(NodeLabel.CONCEPT, query, k, min_score=min_score)
        assert all(h.score >= min_score for h in hits)
        assert_same_ranking(hits, ranked_ids[:keep], ranked_scores[:keep])


def test_vector_search_with_k_beyond_size_returns_everything(
    store: GraphStore, make: Builders
) -> None:
    ids, matrix = load_random_concepts(store, make, 7)
    query = matrix[3]

    hits = store.vector_search(NodeLabel.CONCEPT, query, 100)

    ranked_ids, ranked_scores = brute_force(ids, matrix, query)
    assert_same_ranking(hits, ranked_ids, ranked_scores)
    assert hits[0].id == ids[3]
    assert hits[0].score == pytest.approx(1.0, abs=SCORE_TOL)


def test_vector_search_breaks_ties_by_id(store: GraphStore, make: Builders) -> None:
    shared = np.arange(1, 17, dtype=np.float32)
    twins = [make.concept(f"Gemelo {i}") for i in range(40)]
    others = [make.concept(f"Otro {i}") for i in range(40)]
    rng = np.random.default_rng(3)
    store.apply(
        ChangeSet(
            concepts=[*twins, *others],
            vectors={
                **{c.id: shared for c in twins},
                **{c.id: rng.standard_normal(16).astype(np.float32) for c in others},
            },
        )
    )
    twin_ids = sorted(c.id for c in twins)

    for k in (1, 5, 39, 40):
        hits = store.vector_search(NodeLabel.CONCEPT, shared, k)
        assert [h.id for h in hits] == twin_ids[:k]
        assert all(h.score == pytest.approx(1.0, abs=SCORE_TOL) for h in hits)


def test_vector_search_on_an_empty_label_or_zero_k(store: GraphStore, make: Builders) -> None:
    query = np.ones(16, dtype=np.float32)
    assert store.vector_search(NodeLabel.CONCEPT, query, 10) == []
    store.apply(make.book())
    assert store.vector_search(NodeLabel.CONCEPT, query, 10) == []
    assert store.vector_search(NodeLabel.QUOTE, query, 0) == []
    assert len(store.vector_search(NodeLabel.QUOTE, query, 10)) == 3


def test_vector_search_stays_current_after_writes(
    store: GraphStore, make: Builders, embedder: HashEmbedder
) -> None:
    ids, _ = load_random_concepts(store, make, 500)
    query = np.random.default_rng(11).standard_normal(16).astype(np.float32)
    first = store.vector_search(NodeLabel.CONCEPT, query, 5)  # index now loaded
    assert len(first) == 5

    # A new vector appears at once.
    newcomer = make.concept("Recién llegado")
    store.apply(ChangeSet(concepts=[newcomer], vectors={newcomer.id: query * 3}))
    hits = store.vector_search(NodeLabel.CONCEPT, query, 5)
    assert hits[0].id == newcomer.id
    assert hits[0].score == pytest.approx(1.0, abs=SCORE_TOL)
    assert [h.id for h in hits[1:]] == [h.id for h in first[:4]]

    # An updated vector moves: the old best drops out, the old worst rises to the top.
    last = store.vector_search(NodeLabel.CONCEPT, query, 501)[-1].id
    store.apply(ChangeSet(vectors={first[0].id: -query, last: query + 0.001 * embedder.embed("x")}))
    hits = store.vector_search(NodeLabel.CONCEPT, query, 502)
    assert hits[0].id in {newcomer.id, last}
    assert {h.id for h in hits[:2]} == {newcomer.id, last}
    assert hits[-1].id == first[0].id
    assert hits[-1].score == pytest.approx(-1.0, abs=SCORE_TOL)
    assert len(hits) == len(ids) + 1


# --- text search ------------------------------------------------------------------------


def test_text_search_ignores_accents(store: GraphStore, make: Builders) -> None:
    book = make.book()
    store.apply(book)
    aerobic = book.quotes[0]

    for query in ("aerobico", "AERÓBICO", "aeróbico", "Aerobico memoria"):
        hits = store.text_search(query, 5)
        assert hits, query
        assert hits[0].id == aerobic.id
        assert hits[0].label == NodeLabel.QUOTE

    assert store.text_search("hipocampo", 5)[0].id == book.quotes[2].id
    assert store.text_search("inexistente", 5) == []


@pytest.mark.parametrize(
    "query",
    [
        '"AND OR (*',
        "AND",
        "NOT",
        "(",
        '"',
        "*",
        "aeróbico*",
        "text:memoria",
        "NEAR(memoria ejercicio)",
        "-memoria",
        "^memoria",
        "memoria OR",
        "' OR 1=1; --",
        "",
        "   ",
        "{text}: memoria",
    ],
)
def test_text_search_never_reads_user_text_as_syntax(
    store: GraphStore, make: Builders, query: str
) -> None:
    store.apply(make.book())

    hits = store.text_search(query, 5)

    assert isinstance(hits, list)
    assert all(isinstance(h, SearchHit) for h in hits)


def test_text_search_filters_by_label_and_limits(store: GraphStore, make: Builders) -> None:
    book = make.book()
    store.apply(book)
    concept = make.concept("Ejercicio aeróbico", "Correr y nadar mejoran la memoria.")
    store.apply(ChangeSet(concepts=[concept]))

    both = store.text_search("aerobico", 10)
    assert {h.id for h in both} == {book.quotes[0].id, concept.id}
    assert [h.score for h in both] == sorted((h.score for h in both), reverse=True)
    quotes = store.text_search("aerobico", 10, label=NodeLabel.QUOTE)
    assert [(h.id, h.label) for h in quotes] == [(book.quotes[0].id, NodeLabel.QUOTE)]
    concepts = store.text_search("aerobico", 10, label=NodeLabel.CONCEPT)
    assert [(h.id, h.label) for h in concepts] == [(concept.id, NodeLabel.CONCEPT)]
    assert len(store.text_search("memoria", 1)) == 1
    assert store.text_search("memoria", 0) == []
    assert store.text_search("Ratey", 10) == []  # Persons and Contents are not text-indexed


def test_text_search_follows_updates(store: GraphStore, make: Builders) -> None:
    concept = make.concept("Hábito", "Una conducta automática.")
    store.apply(ChangeSet(concepts=[concept]))
    assert [h.id for h in store.text_search("automatica", 5)] == [concept.id]

    store.apply(
        ChangeSet(concepts=[concept.model_copy(update={"concept": "Una rutina repetida."})])
    )

    assert store.text_search("automatica", 5) == []
    assert [h.id for h in store.text_search("rutina", 5)] == [concept.id]


def test_text_search_ranks_by_bm25_on_every_backend(store: GraphStore, make: Builders) -> None:
    # Every backend ranks the same known set the same way: more occurrences of the rarer
    # words first, then shorter texts (FalkorDB scores in the server, issue 30).
    book = make.book(
        quotes=(
            "Un río de montaña, un río ancho, un castor que pasa y un pájaro que canta junto "
            "a la orilla del agua fría.",
            "Los castores construyen presas; las presas de los castores cambian los ríos.",
            "Un castor junto a una presa.",
            "El pájaro canta.",
            "La montaña nevada.",
            "El agua fría del lago.",
            "Un pájaro en la orilla.",
            "La orilla del río.",
        )
    )
    store.apply(book)

    hits = store.text_search("castores presas", 5)

    assert [hit.id for hit in hits] == [book.quotes[i].id for i in (1, 2, 0)]
    assert hits[0].score > hits[1].score > hits[2].score > 0
