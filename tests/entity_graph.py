"""A small graph of template-pack entities written through ChangeSet to a real SQLite store, for
the tests of entity notes and the web's entity pages.

Two packs beside the shipped zettelkasten: `narrative` (Person, Place, Event, Work; KNOWS
symmetric, LOCATED_IN <-> LOCATION_OF, WROTE <-> WRITTEN_BY, INSPIRED one way) and
`research` (Claim). Trafalgar (Galdós) has two
passages; Gabriel Araceli was found in both, one by his provenance and one by a MENTIONS
relation from the passage. One person's name is hostile HTML and a path.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from zettelgraph.models import (
    ChangeSet,
    Content,
    Entity,
    Person,
    Quote,
    Relation,
    entity_id,
)
from zettelgraph.packs.loader import shipped_schema
from zettelgraph.packs.relations import AUTHORED_BY, QUOTED_IN, vocabulary_from
from zettelgraph.packs.schema import (
    EntityType,
    Pack,
    PackSchema,
    PropertySpec,
    RelationshipType,
    merge,
)
from zettelgraph.store import GraphStore
from zettelgraph.store.sqlite import SQLiteStore

T0 = datetime(2024, 5, 1, tzinfo=UTC)
HOSTILE = "<script>alert(1)</script> ../../etc/passwd"
PERSON_COLOR = "#e11d48"
PLACE_COLOR = "#0891b2"

NARRATIVE = Pack(
    name="narrative",
    version="1",
    description="People, places and events of a story.",
    entity_types=(
        EntityType(
            name="Person",
            description="A character or a real person.",
            color=PERSON_COLOR,
            properties=(
                PropertySpec(name="born", type="date"),
                PropertySpec(name="aliases", type="list"),
                PropertySpec(name="age", type="integer"),
                PropertySpec(name="fictional", type="boolean"),
                # Clashes with a key the note owns: written as property_name.
                PropertySpec(name="name", type="string"),
            ),
        ),
        EntityType(
            name="Place",
            description="A city, region or building.",
            color=PLACE_COLOR,
            properties=(
                PropertySpec(name="population", type="integer"),
                PropertySpec(name="latitude", type="number"),
            ),
        ),
        # No colour: the web app gives it one from its fallback palette.
        EntityType(name="Event", description="Something that happened.", properties=()),
        EntityType(name="Work", description="A book, play or painting.", color="#7c3aed"),
    ),
    relationship_types=(
        RelationshipType(
            name="KNOWS",
            description="The two people know each other.",
            source_types=("Person",),
            target_types=("Person",),
            symmetric=True,
            color="#f97316",
        ),
        RelationshipType(
            name="LOCATED_IN",
            description="A is in place B.",
            source_types=("Event", "Place"),
            target_types=("Place",),
            reverse="LOCATION_OF",
        ),
        RelationshipType(
            name="LOCATION_OF",
            description="A is where B is.",
            source_types=("Place",),
            target_types=("Event", "Place"),
            reverse="LOCATED_IN",
        ),
        RelationshipType(
            name="WROTE",
            description="A wrote B.",
            source_types=("Person",),
            target_types=("Work",),
            reverse="WRITTEN_BY",
        ),
        RelationshipType(
            name="WRITTEN_BY",
            description="A was written by B.",
            source_types=("Work",),
            target_types=("Person",),
            reverse="WROTE",
        ),
        # One way: stored only as given, so the work's note lists it as pointing there.
        RelationshipType(
            name="INSPIRED",
            description="A inspired B.",
            source_types=("Person",),
            target_types=("Work",),
        ),
    ),
)
RESEARCH = Pack(
    name="research",
    version="1",
    entity_types=(EntityType(name="Claim", description="A statement a text argues for."),),
)
# The shipped zettelkasten pack (Concept and its nine relation types) and the two above.
ZETTELKASTEN = shipped_schema(("zettelkasten",)).packs[0]
SCHEMA: PackSchema = merge([ZETTELKASTEN, NARRATIVE, RESEARCH])


def entity(name: str, kind: str, minutes: int, pack: str = "narrative", **kw: object) -> Entity:
    return Entity(
        id=entity_id(kind, name),
        name=name,
        entity_type=kind,
        pack=pack,
        created_at=T0 + timedelta(minutes=minutes),
        **kw,  # type: ignore[arg-type]
    )


def rel(source: Entity | Quote, kind: str, target: Entity, why: str = "") -> Relation:
    properties = {"explanation": why} if why else {}
    return Relation(
        source_id=source.id, target_id=target.id, type=kind, properties=properties, created_at=T0
    )


@dataclass
class EntityGraph:
    store: GraphStore
    gabriel: Entity
    marcial: Entity
    cadiz: Entity
    battle: Entity
    novel: Entity
    galdos: Entity
    hostile: Entity
    claim: Entity
    q1: Quote
    q2: Quote


def entity_changes() -> tuple[ChangeSet, dict[str, Entity | Quote]]:
    """The change set of the graph, and its nodes by short name."""
    book = Content(id="trafalgar", title="Trafalgar")
    q1 = Quote(
        id="q1",
        content_id=book.id,
        text="Me llamo Gabriel Araceli y nací en Cádiz.",
        position=1,
        page="12",
    )
    q2 = Quote(
        id="q2", content_id=book.id, text="Marcial me contó la batalla.", position=2, page="30"
    )
    gabriel = entity(
        "Gabriel Araceli",
        "Person",
        1,
        description="Narrador de los *Episodios nacionales*.\n\n# No es un título",
        properties={
            "born": "1791-03-01",
            "aliases": ["Gabrielillo", "el narrador"],
            "age": "14",
            "fictional": "true",
            "name": "Gabriel",
        },
        provenance={"passages": ["q1"], "pack_version": "1"},
    )
    marcial = entity("Marcial", "Person", 2, description="Un viejo marinero: Medio-hombre.")
    cadiz = entity(
        "Cádiz",
        "Place",
        3,
        description="Ciudad en la costa atlántica.",
        properties={"population": 70000, "latitude": "36.53"},
    )
    battle = entity("Batalla de Trafalgar", "Event", 4, description="21 de octubre de 1805.")
    novel = entity("Trafalgar", "Work", 5, description="La primera novela de la serie.")
    galdos = entity("Benito Pérez Galdós", "Person", 6, description="El autor.")
    hostile = entity(HOSTILE, "Person", 7, description="<b>bold</b> & <i>more</i>")
    claim = entity("La guerra es cruel", "Claim", 8, pack="research")
    changes = ChangeSet(
        contents=[book],
        persons=[Person(id="galdos-author", name="Benito Pérez Galdós")],
        quotes=[q1, q2],
        entities=[gabriel, marcial, cadiz, battle, novel, galdos, hostile, claim],
        relations=[
            Relation(source_id=book.id, target_id="galdos-author", type=AUTHORED_BY),
            Relation(source_id=q1.id, target_id=book.id, type=QUOTED_IN),
            Relation(source_id=q2.id, target_id=book.id, type=QUOTED_IN),
            rel(q2, "MENTIONS", gabriel),
            rel(gabriel, "KNOWS", marcial, "Sirvieron juntos."),
            rel(battle, "LOCATED_IN", cadiz, "Frente al cabo."),
            rel(galdos, "WROTE", novel),
            rel(gabriel, "INSPIRED", novel),
            rel(hostile, "KNOWS", gabriel, "<script>x</script>"),
        ],
    )
    nodes: dict[str, Entity | Quote] = {
        "gabriel": gabriel,
        "marcial": marcial,
        "cadiz": cadiz,
        "battle": battle,
        "novel": novel,
        "galdos": galdos,
        "hostile": hostile,
        "claim": claim,
        "q1": q1,
        "q2": q2,
    }
    return changes, nodes


def open_entity_store(path: Path) -> GraphStore:
    return SQLiteStore(path, vocabulary_from(SCHEMA))


def entity_graph(path: Path) -> EntityGraph:
    """The graph written to a new SQLite store at `path`."""
    store = open_entity_store(path)
    changes, nodes = entity_changes()
    store.apply(changes)
    return EntityGraph(store=store, **nodes)  # type: ignore[arg-type]
