"""Template packs as data: the types of entities and relationships a graph may hold.

A pack (a YAML file, `packs/loader.py`) names entity types with their typed properties and
relationship types with the entity types they may join, their reverse (or that they are
symmetric), their stance (agreeing, opposing or neutral, for the contradiction check) and a
colour for the graph view. Several packs can be active at once: `merge` joins them into one
`PackSchema`, and a type two packs define differently is an error, never a silent override.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

ENTITY_TYPE_NAME = r"^[A-Z][A-Za-z0-9]{0,63}$"
# Relationship types become Cypher relationship types: upper-case letters, digits and _.
RELATIONSHIP_TYPE_NAME = r"^[A-Z][A-Z0-9_]{0,63}$"
PACK_NAME = r"^[a-z][a-z0-9_-]{0,63}$"
COLOR = r"^#[0-9a-fA-F]{6}$"

PropertyKind = Literal["string", "integer", "number", "boolean", "date", "list"]
Stance = Literal["agrees", "opposes", "neutral"]


class PackError(ValueError):
    """A pack that cannot be used; the message names the file, line and field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PropertySpec(_Strict):
    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    type: PropertyKind = "string"
    description: str = Field(default="", max_length=500)
    required: bool = False


class EntityType(_Strict):
    name: str = Field(pattern=ENTITY_TYPE_NAME)
    description: str = Field(min_length=1, max_length=1000)
    properties: tuple[PropertySpec, ...] = ()
    examples: tuple[str, ...] = Field(default=(), max_length=20)
    color: str | None = Field(default=None, pattern=COLOR)

    @model_validator(mode="after")
    def _unique_properties(self) -> EntityType:
        names = [p.name for p in self.properties]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"property {repeated[0]!r} is defined twice")
        return self


class RelationshipType(_Strict):
    name: str = Field(pattern=RELATIONSHIP_TYPE_NAME)
    description: str = Field(min_length=1, max_length=1000)
    source_types: tuple[str, ...] = Field(min_length=1)
    target_types: tuple[str, ...] = Field(min_length=1)
    # The type the store writes the other way round (A GENERALIZES B -> B SPECIFIC_OF A);
    # none for a symmetric type (written both ways as itself) or a one-way one.
    reverse: str | None = Field(default=None, pattern=RELATIONSHIP_TYPE_NAME)
    symmetric: bool = False
    stance: Stance = "agrees"
    color: str | None = Field(default=None, pattern=COLOR)
    examples: tuple[str, ...] = Field(default=(), max_length=20)

    @model_validator(mode="after")
    def _one_direction_rule(self) -> RelationshipType:
        if self.symmetric and self.reverse is not None:
            raise ValueError("a relationship type is symmetric or has a reverse, not both")
        return self


class Pack(_Strict):
    name: str = Field(pattern=PACK_NAME)
    version: str = Field(min_length=1, max_length=32)
    description: str = Field(default="", max_length=2000)
    entity_types: tuple[EntityType, ...] = ()
    relationship_types: tuple[RelationshipType, ...] = ()
    # Advice the extraction prompts carry for this pack's domain.
    prompt_hints: tuple[str, ...] = Field(default=(), max_length=20)

    @model_validator(mode="after")
    def _unique_names(self) -> Pack:
        for kind, names in (
            ("entity type", [e.name for e in self.entity_types]),
            ("relationship type", [r.name for r in self.relationship_types]),
        ):
            repeated = sorted({n for n in names if names.count(n) > 1})
            if repeated:
                raise ValueError(f"{kind} {repeated[0]!r} is defined twice")
        return self


class PackSchema(_Strict):
    """The active packs merged: every type once, with the pack that defines it."""

    packs: tuple[Pack, ...]
    entity_types: dict[str, EntityType]
    relationship_types: dict[str, RelationshipType]
    # type name -> name of the pack that defines it (the first, when two define it alike).
    defined_by: dict[str, str]

    def allows(self, relationship: str, source_type: str, target_type: str) -> bool:
        """Whether `relationship` may join an entity of `source_type` to one of `target_type`."""
        spec = self.relationship_types.get(relationship)
        return (
            spec is not None
            and source_type in spec.source_types
            and target_type in spec.target_types
        )

    def relationship_types_between(
        self, source_types: set[str], target_types: set[str]
    ) -> list[RelationshipType]:
        """The relationship types some entity of `source_types` may have to `target_types`."""
        return [
            spec
            for spec in self.relationship_types.values()
            if source_types & set(spec.source_types) and target_types & set(spec.target_types)
        ]


def merge(packs: list[Pack] | tuple[Pack, ...]) -> PackSchema:
    """One schema from several packs. The same type defined alike by two packs is kept
    once; defined differently, it is an error naming both packs. Every relationship's
    endpoint types and reverse must exist in the merged schema."""
    if not packs:
        raise PackError("no pack is active: set ZETTELGRAPH_PACKS (e.g. zettelkasten)")
    names = [p.name for p in packs]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise PackError(f"pack {repeated[0]!r} is active twice")
    entity_types: dict[str, EntityType] = {}
    relationship_types: dict[str, RelationshipType] = {}
    defined_by: dict[str, str] = {}
    for pack in packs:
        for table, specs in (
            (entity_types, pack.entity_types),
            (relationship_types, pack.relationship_types),
        ):
            for spec in specs:
                known = table.get(spec.name)
                if known is not None and known != spec:
                    raise PackError(
                        f"{spec.name!r} is defined differently by packs "
                        f"{defined_by[spec.name]!r} and {pack.name!r}: rename it in one of "
                        "them, or make both definitions the same"
                    )
                if known is None:
                    table[spec.name] = spec  # type: ignore[assignment]
                    defined_by[spec.name] = pack.name
    clash = sorted(set(entity_types) & set(relationship_types))
    if clash:
        raise PackError(f"{clash[0]!r} names both an entity type and a relationship type")
    for spec in relationship_types.values():
        where = f"relationship type {spec.name!r} (pack {defined_by[spec.name]!r})"
        for endpoint in (*spec.source_types, *spec.target_types):
            if endpoint not in entity_types:
                raise PackError(f"{where} joins {endpoint!r}, which no active pack defines")
        if spec.reverse is not None:
            back = relationship_types.get(spec.reverse)
            if back is None:
                raise PackError(f"{where} has reverse {spec.reverse!r}, which is not defined")
            if back.reverse != spec.name:
                raise PackError(
                    f"{where} has reverse {spec.reverse!r}, whose reverse is "
                    f"{back.reverse!r}, not {spec.name!r}"
                )
            if set(back.source_types) != set(spec.target_types) or set(back.target_types) != set(
                spec.source_types
            ):
                raise PackError(f"{where} and its reverse {spec.reverse!r} join different types")
    return PackSchema(
        packs=tuple(packs),
        entity_types=entity_types,
        relationship_types=relationship_types,
        defined_by=defined_by,
    )
