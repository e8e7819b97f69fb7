"""A small reviewed graph with cards of every type, written through ChangeSet to a real SQLite
store, for the tests of what cards become outside zettelgraph (Anki, CSV, the vault).

Walden (Thoreau) has two quotes and three concepts; the cards are one approved flashcard,
cloze, multiple choice and relation item, plus one proposed and one dropped flashcard. A
second book, Spark, has one approved flashcard. `studied_once` is the one studied card the
store upgrade tests (SQLite, FalkorDB) write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from zettelgraph.models import (
    ChangeSet,
    Concept,
    Content,
    Difficulty,
    ItemStatus,
    ItemType,
    LearningItem,
    Person,
    Quote,
    Relation,
    ReviewLog,
    content_id,
    learning_item_id,
    person_id,
    quote_id,
    stable_id,
)
from zettelgraph.packs.relations import AUTHORED_BY, CITES, QUOTED_IN, SUPPORTS, TESTS
from zettelgraph.store import GraphStore, open_store
from zettelgraph.text.normalize import normalize_name

DELIBERATE = "Fui al bosque porque quería vivir deliberadamente."
SIMPLE = "Simplifica, simplifica."


@dataclass
class CardGraph:
    store: GraphStore
    walden: Content
    spark: Content
    quotes: dict[str, Quote]
    concepts: dict[str, Concept]
    items: dict[str, LearningItem] = field(default_factory=dict)

    def write(self, *items: LearningItem) -> None:
        """Write (or overwrite) items with their TESTS and CITES relations."""
        relations = [
            Relation(source_id=i.id, target_id=c, type=TESTS) for i in items for c in i.concept_ids
        ]
        relations += [
            Relation(source_id=i.id, target_id=q, type=CITES) for i in items for q in i.quote_ids
        ]
        self.store.apply(ChangeSet(learning_items=list(items), relations=relations))

    def put(self, name: str, one: LearningItem) -> LearningItem:
        self.write(one)
        self.items[name] = one
        return one

    def change(self, name: str, **update: Any) -> LearningItem:
        """The item called `name` rewritten with `update` (same id), as an edit would be."""
        return self.put(name, self.items[name].model_copy(update=update))

    @property
    def approved(self) -> list[LearningItem]:
        return [i for i in self.items.values() if i.status == ItemStatus.APPROVED]


def concept(title: str) -> Concept:
    return Concept(id=stable_id("concept", normalize_name(title)), title=title, concept=title)


def item(item_type: ItemType, front: str, concepts: list[Concept], **fields: Any) -> LearningItem:
    ids = [c.id for c in concepts]
    values: dict[str, Any] = {"back": "respuesta", "status": ItemStatus.APPROVED, **fields}
    return LearningItem(
        id=learning_item_id(str(item_type), ids, front),
        item_type=item_type,
        front=front,
        concept_ids=ids,
        **values,
    )


def put_code_card(graph: CardGraph) -> LearningItem:
    """An approved code-completion card made straight from a passage (no concept), as
    `code`: its front is code whose lines and indentation matter."""
    front = "Completa el código:\n\ndef area(r):\n    return ____"
    passage = graph.quotes["simple"].id
    return graph.put(
        "code",
        LearningItem(
            id=learning_item_id(str(ItemType.CODE_COMPLETION), [passage], front),
            item_type=ItemType.CODE_COMPLETION,
            front=front,
            back="3.14 * r * r",
            quote_ids=[passage],
            status=ItemStatus.APPROVED,
        ),
    )


def card_graph(folder: Path) -> CardGraph:
    """The graph above in a new SQLite store under `folder` (the caller closes the store)."""
    store = open_store(f"sqlite:///{folder / 'cards.db'}")
    walden = Content(id=content_id("Walden", "Henry David Thoreau"), title="Walden")
    spark = Content(id=content_id("Spark", "John Ratey"), title="Spark")
    thoreau = Person(id=person_id("Henry David Thoreau"), name="Henry David Thoreau")
    quotes = {
        "deliberate": Quote(
            id=quote_id(walden.id, DELIBERATE),
            content_id=walden.id,
            text=DELIBERATE,
            position=0,
            section="Dónde viví",
            page="12",
        ),
        "simple": Quote(
            id=quote_id(walden.id, SIMPLE), content_id=walden.id, text=SIMPLE, position=1, page="40"
        ),
        "spark": Quote(
            id=quote_id(spark.id, "Moverse es la mejor medicina."),
            content_id=spark.id,
            text="Moverse es la mejor medicina.",
            position=0,
        ),
    }
    concepts = {
        "deliberate": concept("Vivir deliberadamente"),
        "simple": concept("Simplicidad voluntaria"),
        "city": concept("La vida en la ciudad"),
        "exercise": concept("Ejercicio y cerebro"),
    }
    store.apply(
        ChangeSet(
            contents=[walden, spark],
            persons=[thoreau],
            quotes=list(quotes.values()),
            concepts=list(concepts.values()),
            relations=[
                Relation(source_id=walden.id, target_id=thoreau.id, type=AUTHORED_BY),
                *(
                    Relation(source_id=q.id, target_id=q.content_id, type=QUOTED_IN)
                    for q in quotes.values()
                ),
                Relation(
                    source_id=quotes["deliberate"].id,
                    target_id=concepts["deliberate"].id,
                    type=SUPPORTS,
                ),
                Relation(
                    source_id=quotes["simple"].id, target_id=concepts["simple"].id, type=SUPPORTS
                ),
            ],
        )
    )
    graph = CardGraph(store, walden, spark, quotes, concepts)
    deliberate, simple = concepts["deliberate"], concepts["simple"]
    on_walden: dict[str, Any] = {
        "quote_ids": [quotes["deliberate"].id],
        "content_ids": [walden.id],
    }
    graph.items = {
        "flashcard": item(
            ItemType.FLASHCARD,
            "¿Por qué se fue Thoreau al bosque?",
            [deliberate],
            back="Para vivir deliberadamente.",
            **on_walden,
        ),
        "cloze": item(
            ItemType.CLOZE,
            "Fui al [...] porque quería vivir deliberadamente.",
            [deliberate],
            back="bosque",
            cloze="Fui al {{c1::bosque}} porque quería vivir deliberadamente.",
            **on_walden,
        ),
        "mcq": item(
            ItemType.MCQ,
            "¿Qué idea expresa la cita?",
            [deliberate],
            back="Vivir deliberadamente",
            options=["La vida en la ciudad", "Vivir deliberadamente", "Simplicidad voluntaria"],
            correct=1,
            explanation="La cita dice «deliberadamente»; la ciudad es lo que deja atrás.",
            difficulty=Difficulty.MEDIUM,
            **on_walden,
        ),
        "relation": item(
            ItemType.RELATION,
            "¿Cómo se relacionan vivir deliberadamente y la simplicidad voluntaria?",
            [deliberate, simple],
            back="Simplificar es el medio de vivir deliberadamente.",
            difficulty=Difficulty.HARD,
            quote_ids=[quotes["deliberate"].id, quotes["simple"].id],
            content_ids=[walden.id],
        ),
        "proposed": item(
            ItemType.FLASHCARD,
            "¿Qué es simplificar?",
            [simple],
            status=ItemStatus.PROPOSED,
            content_ids=[walden.id],
        ),
        "dropped": item(
            ItemType.FLASHCARD,
            "¿Qué dejó atrás Thoreau?",
            [concepts["city"]],
            status=ItemStatus.DROPPED,
            content_ids=[walden.id],
        ),
        "spark": item(
            ItemType.FLASHCARD,
            "¿Qué hace el ejercicio por el cerebro?",
            [concepts["exercise"]],
            back="Lo hace crecer.",
            quote_ids=[quotes["spark"].id],
            content_ids=[spark.id],
        ),
    }
    graph.write(*graph.items.values())
    return graph


def studied_once(due: datetime) -> tuple[LearningItem, ReviewLog]:
    """An approved flashcard of book "book" in FSRS's review state, due at `due`, and its one
    rating (a first one, at `due`): what the upgrade tests write before they take a store's
    study index away and check that opening it puts it back."""
    card = LearningItem(
        id="studied",
        item_type=ItemType.FLASHCARD,
        front="¿a?",
        back="a.",
        concept_ids=["c"],
        content_ids=["book"],
        status=ItemStatus.APPROVED,
        schedule={"state": 2},
        due=due,
    )
    return card, ReviewLog(id="log", item_id=card.id, rating=3, reviewed_at=due)
