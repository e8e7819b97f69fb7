"""Two small books that use *honra*, for the experiment tests: stored with their author, year
and passages as ingestion would store them."""

from __future__ import annotations

from zettelgraph.context import Services
from zettelgraph.models import (
    ChangeSet,
    Content,
    Person,
    Quote,
    Relation,
    content_id,
    person_id,
    quote_id,
)
from zettelgraph.packs.relations import AUTHORED_BY, QUOTED_IN

BOOKS = [
    (
        "La honra del hidalgo",
        "Miguel de Cervantes",
        1605,
        [
            "La honra del hidalgo vale más que su hacienda, decía don Quijote en la venta.",
            "Sin honra no hay caballero, y sin caballero no hay aventura que valga la pena.",
            "El cura y el barbero hablaron de libros toda la tarde en la aldea.",
            "Perdió la honra por una mentira pequeña, y la quiso recobrar con la espada.",
        ],
    ),
    (
        "Honras de Madrid",
        "Benito Pérez Galdós",
        1876,
        [
            "En Madrid la honra era ya cuestión de dinero y de apariencia ante los vecinos.",
            "Las honras fúnebres del marqués reunieron a media ciudad en San Isidro.",
            "Doña Perfecta defendía su honra con sermones y con intrigas en Orbajosa.",
            "El tren llegó tarde a la estación en octubre de 1875, con lluvia.",
        ],
    ),
]


def add_book(services: Services, title: str, author: str, year: int, quotes: list[str]) -> str:
    """A content with its author and passages, stored and embedded; its id."""
    cid = content_id(title, author)
    pid = person_id(author)
    store, embedder = services.store, services.embedder
    store.ensure_embedder(embedder.name, embedder.dim)
    items = [
        Quote(id=quote_id(cid, t), content_id=cid, text=t, position=i, page=str(i + 10))
        for i, t in enumerate(quotes)
    ]
    vectors = embedder.embed(quotes)
    store.apply(
        ChangeSet(
            contents=[Content(id=cid, title=title, metadata={"year": year})],
            persons=[Person(id=pid, name=author)],
            quotes=items,
            relations=[
                Relation(source_id=cid, target_id=pid, type=AUTHORED_BY),
                *(Relation(source_id=q.id, target_id=cid, type=QUOTED_IN) for q in items),
            ],
            vectors={q.id: vectors[i] for i, q in enumerate(items)},
        )
    )
    return cid


def add_books(services: Services) -> list[str]:
    return [add_book(services, *book) for book in BOOKS]
