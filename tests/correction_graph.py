"""A small reviewed library, written through a ChangeSet (no LLM), for the tests of the
reader's corrections after the commit (`concept edit`, `concept delete`, `unlink`,
`contents remove`).

Walden and Cape Cod are Thoreau's, Spark is Ratey's. Walden's quotes support "Vivir
deliberadamente" and "Simplicidad voluntaria"; Spark's supports "Ejercicio y cerebro"; "Vivir
con poco" is supported by a quote of Walden and one of Spark. Relations: deliberate
GENERALIZES simple (reverse SPECIFIC_OF), simple SIMILAR_TO exercise (symmetric), deliberate
SUPPORTS little (reverse SUPPORTED_BY). Cards: a flashcard on deliberate (studied once), a
relation card on deliberate and simple, a flashcard on exercise. Every note is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from zettelgraph.context import Services, open_services
from zettelgraph.models import (
    ChangeSet,
    Concept,
    Content,
    ItemStatus,
    ItemType,
    LearningItem,
    Person,
    Quote,
    Relation,
    ReviewLog,
    content_id,
    embedding_text,
    learning_item_id,
    person_id,
    quote_id,
    review_log_id,
    stable_id,
)
from zettelgraph.packs.relations import AUTHORED_BY, CITES, QUOTED_IN, SUPPORTS, TESTS
from zettelgraph.settings import Settings
from zettelgraph.text.normalize import normalize_name
from zettelgraph.vault.sync import sync_vault

APPROVED = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
TITLES = {
    "deliberate": "Vivir deliberadamente",
    "simple": "Simplicidad voluntaria",
    "exercise": "Ejercicio y cerebro",
    "little": "Vivir con poco",
}


def services_on(request: pytest.FixtureRequest, tmp_path: Path, **values: Any) -> Services:
    """Services on the fixture's backend (param "sqlite" or "falkordb"), the fake LLM, the
    hash embedder and "Ana" as the reader; the caller closes them."""
    if request.param == "falkordb":
        values["store"] = request.getfixturevalue("falkordb_graph_url")
    given = {"home": tmp_path / "home", "llm": "fake", "embeddings": "hash", "reader": "Ana"}
    return open_services(Settings(**{**given, **values}))


@dataclass
class Library:
    books: dict[str, Content]
    quotes: dict[str, Quote]
    concepts: dict[str, Concept]
    cards: dict[str, LearningItem]
    thoreau: Person
    ratey: Person


def _concept(title: str, quote: Quote) -> Concept:
    return Concept(
        id=stable_id("concept", normalize_name(title)),
        title=title,
        concept=f"{title}: una idea completa.",
        summary=f"{title}: una idea completa.",
        summary_short=title,
        created_at=APPROVED,
        provenance={
            "run": f"run-{quote.content_id[:8]}",
            "content_id": quote.content_id,
            "quotes": [quote.id],
            "model": "fake",
            "llm_calls": ["extract_concepts"],
            "approved_at": APPROVED.isoformat(),
        },
    )


def _card(item_type: ItemType, front: str, concepts: list[Concept], quote: Quote) -> LearningItem:
    ids = [c.id for c in concepts]
    return LearningItem(
        id=learning_item_id(str(item_type), ids, front),
        item_type=item_type,
        front=front,
        back="Respuesta.",
        concept_ids=ids,
        quote_ids=[quote.id],
        content_ids=[quote.content_id],
        status=ItemStatus.APPROVED,
    )


def make_library(services: Services) -> Library:
    """The library above in the services' store, with its vectors and its notes."""
    thoreau = Person(id=person_id("Henry David Thoreau"), name="Henry David Thoreau")
    ratey = Person(id=person_id("John Ratey"), name="John Ratey")
    books = {
        "walden": Content(id=content_id("Walden", thoreau.name), title="Walden"),
        "cape": Content(id=content_id("Cape Cod", thoreau.name), title="Cape Cod"),
        "spark": Content(id=content_id("Spark", ratey.name), title="Spark"),
    }
    texts = {
        "w1": ("walden", "Fui al bosque porque quería vivir deliberadamente."),
        "w2": ("walden", "Simplifica, simplifica."),
        "s1": ("spark", "Moverse es la mejor medicina para el cerebro."),
        "s2": ("spark", "Con poco se vive y se piensa mejor."),
        "c1": ("cape", "El mar no es de nadie."),
    }
    quotes = {
        key: Quote(
            id=quote_id(books[book].id, text),
            content_id=books[book].id,
            text=text,
            position=n,
            page=str(10 + n),
        )
        for n, (key, (book, text)) in enumerate(texts.items())
    }
    concepts = {
        "deliberate": _concept(TITLES["deliberate"], quotes["w1"]),
        "simple": _concept(TITLES["simple"], quotes["w2"]),
        "exercise": _concept(TITLES["exercise"], quotes["s1"]),
        "little": _concept(TITLES["little"], quotes["w2"]),
    }
    c = concepts
    cards = {
        "deliberate": _card(
            ItemType.FLASHCARD, "¿Por qué fue al bosque?", [c["deliberate"]], quotes["w1"]
        ),
        "pair": _card(
            ItemType.RELATION,
            "¿Cómo se relaciona «Vivir deliberadamente» con «Simplicidad voluntaria»?",
            [c["deliberate"], c["simple"]],
            quotes["w2"],
        ),
        "exercise": _card(ItemType.FLASHCARD, "¿Qué cura moverse?", [c["exercise"]], quotes["s1"]),
    }
    studied = ReviewLog(
        id=review_log_id(cards["deliberate"].id, APPROVED),
        item_id=cards["deliberate"].id,
        rating=3,
        reviewed_at=APPROVED,
    )
    supports = [
        ("w1", "deliberate"),
        ("w2", "simple"),
        ("s1", "exercise"),
        ("w2", "little"),
        ("s2", "little"),
    ]
    relations = [
        Relation(source_id=books["walden"].id, target_id=thoreau.id, type=AUTHORED_BY),
        Relation(source_id=books["cape"].id, target_id=thoreau.id, type=AUTHORED_BY),
        Relation(source_id=books["spark"].id, target_id=ratey.id, type=AUTHORED_BY),
        *(
            Relation(source_id=q.id, target_id=q.content_id, type=QUOTED_IN)
            for q in quotes.values()
        ),
        *(
            Relation(source_id=quotes[q].id, target_id=c[k].id, type=SUPPORTS, created_at=APPROVED)
            for q, k in supports
        ),
        Relation(
            source_id=c["deliberate"].id,
            target_id=c["simple"].id,
            type="GENERALIZES",
            properties={"run": "run-walden", "explanation": "Simplificar es vivir a propósito."},
        ),
        Relation(source_id=c["simple"].id, target_id=c["exercise"].id, type="SIMILAR_TO"),
        Relation(source_id=c["deliberate"].id, target_id=c["little"].id, type="SUPPORTS"),
        *(
            Relation(source_id=i.id, target_id=k, type=TESTS)
            for i in cards.values()
            for k in i.concept_ids
        ),
        *(
            Relation(source_id=i.id, target_id=q, type=CITES)
            for i in cards.values()
            for q in i.quote_ids
        ),
    ]
    searched = [*quotes.values(), *concepts.values()]
    vectors = services.embedder.embed([embedding_text(node) for node in searched])
    services.store.ensure_embedder(services.embedder.name, services.embedder.dim)
    services.store.apply(
        ChangeSet(
            contents=list(books.values()),
            persons=[thoreau, ratey],
            quotes=list(quotes.values()),
            concepts=list(concepts.values()),
            learning_items=list(cards.values()),
            review_logs=[studied],
            relations=relations,
            vectors={node.id: vectors[i] for i, node in enumerate(searched)},
        )
    )
    sync_vault(services.store, services.vault)
    return Library(books, quotes, concepts, cards, thoreau, ratey)
