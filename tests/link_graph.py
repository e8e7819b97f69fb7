"""Four reviewed concepts of Walden, written through a ChangeSet (no LLM), for the tests of
the reader's own links (`zettelgraph link`, the concept page's form)."""

from __future__ import annotations

from zettelgraph.context import Services
from zettelgraph.models import (
    ChangeSet,
    Concept,
    Content,
    Quote,
    Relation,
    content_id,
    embedding_text,
    quote_id,
    stable_id,
)
from zettelgraph.packs.relations import QUOTED_IN, SUPPORTS
from zettelgraph.text.normalize import normalize_name

TITLES = {
    "deliberate": "Vivir deliberadamente",
    "simple": "Simplicidad voluntaria",
    "city": "La vida en la ciudad",
    "exercise": "Ejercicio y cerebro",
}
PASSAGE = "Fui al bosque porque quería vivir deliberadamente."


def concept_of(title: str) -> Concept:
    return Concept(
        id=stable_id("concept", normalize_name(title)),
        title=title,
        concept=f"{title}: una idea completa.",
        summary_short=title,
    )


def make_graph(services: Services) -> dict[str, Concept]:
    """Four reviewed concepts of Walden; simple -[SIMILAR_TO]- city is already in the graph."""
    store = services.store
    walden = Content(id=content_id("Walden", None), title="Walden")
    quote = Quote(id=quote_id(walden.id, PASSAGE), content_id=walden.id, text=PASSAGE, position=0)
    concepts = {key: concept_of(title) for key, title in TITLES.items()}
    vectors = services.embedder.embed([embedding_text(c) for c in concepts.values()])
    store.ensure_embedder(services.embedder.name, services.embedder.dim)
    store.apply(
        ChangeSet(
            contents=[walden],
            quotes=[quote],
            concepts=list(concepts.values()),
            relations=[
                Relation(source_id=quote.id, target_id=walden.id, type=QUOTED_IN),
                *(
                    Relation(source_id=quote.id, target_id=c.id, type=SUPPORTS)
                    for c in concepts.values()
                ),
                Relation(
                    source_id=concepts["simple"].id,
                    target_id=concepts["city"].id,
                    type="SIMILAR_TO",
                    properties={"explanation": "Las dos hablan de cómo vivir."},
                ),
            ],
            vectors={c.id: vectors[i] for i, c in enumerate(concepts.values())},
        )
    )
    return concepts
