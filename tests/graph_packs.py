"""A small template pack for the graph extraction tests, built in code so that the tests do
not depend on the shipped packs' wording: `story` (Person, Place, Work; KNOWS symmetric,
LIVED_IN one-way, WROTE <-> WRITTEN_BY)."""

from __future__ import annotations

from zettelgraph.packs.schema import (
    EntityType,
    Pack,
    PropertySpec,
    RelationshipType,
    merge,
)

STORY = Pack(
    name="story",
    version="3",
    description="People and places of a novel.",
    entity_types=(
        EntityType(
            name="Person",
            description="A character or a real person.",
            properties=(
                PropertySpec(name="born", type="integer"),
                PropertySpec(name="occupation", type="string"),
                PropertySpec(name="aliases", type="list"),
                PropertySpec(name="fictional", type="boolean"),
            ),
            examples=("Sancho Panza",),
        ),
        EntityType(name="Place", description="A place.", examples=("La Mancha",)),
        EntityType(name="Work", description="A book or another made work."),
    ),
    relationship_types=(
        RelationshipType(
            name="KNOWS",
            description="A and B know each other.",
            source_types=("Person",),
            target_types=("Person",),
            symmetric=True,
        ),
        RelationshipType(
            name="LIVED_IN",
            description="A lived in the place B.",
            source_types=("Person",),
            target_types=("Place",),
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
    ),
    prompt_hints=("A character of a novel is a Person.",),
)
PACKS = {STORY.name: STORY}
STORY_SCHEMA = merge([STORY])
