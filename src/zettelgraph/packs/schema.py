"""Template packs as data: the types of entities and relationships a graph may hold.

A pack (a YAML file, `packs/loader.py`) names entity types with their typed properties and
relationship types with the entity types they may join, their reverse (or that they are
symmetric), their stance (agreeing, opposing or neutral, for the contradiction check) and a
colour for the graph view. Several packs can be active at once: `merge` joins them into one
`PackSchema`. Two packs may both define a relationship type when they agree on what it means
(reverse, symmetry, stance): it then joins the entity types of both. Any other difference, and
any entity type two packs define differently, is an error naming both packs, never a silent
override.

Errors carry where they are (`PackLocation`: a pack and a field path such as
`relationship_types.2.reverse`) so that the loader can name the file and line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

ENTITY_TYPE_NAME = r"^[A-Z][A-Za-z0-9]{0,63}$"
# Relationship types become Cypher relationship types: upper-case letters, digits and _.
RELATIONSHIP_TYPE_NAME = r"^[A-Z][A-Z0-9_]{0,63}$"
PACK_NAME = r"^[a-z][a-z0-9_-]{0,63}$"
COLOR = r"^#[0-9a-fA-F]{6}$"

PropertyKind = Literal["string", "integer", "number", "boolean", "date", "list"]
Stance = Literal["agrees", "opposes", "neutral"]


FieldPath = tuple[str | int, ...]


@dataclass(frozen=True)
class PackLocation:
    """Where in a pack a problem is: the pack's name and a field path (`("relationship_types",
    2, "reverse")`), which the loader turns into a file and line."""

    pack: str
    field: FieldPath = ()

    def dotted(self) -> str:
        return ".".join(str(part) for part in self.field)


class PackError(ValueError):
    """A pack that cannot be used. Raised by `merge` with the locations it is about; the
    loader's errors name the file, line and field in the message itself."""

    def __init__(self, message: str, *locations: PackLocation) -> None:
        super().__init__(message)
        self.locations = locations


def _at(message: str, *field: str | int) -> PydanticCustomError:
    # A validator's error points at the model it checks; `at` (read by the loader) says
    # which part of it, so a repeated name is reported on its own line.
    return PydanticCustomError("pack", message, {"at": field})


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
        index = _first_repeat([p.name for p in self.properties])
        if index is not None:
            name = self.properties[index].name
            raise _at(f"property {name!r} is defined twice", "properties", index, "name")
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
    # "A -> B: why", in the language of the graph; the relation prompt shows the first
    # example of this form as a model answer.
    examples: tuple[str, ...] = Field(default=(), max_length=20)
    # What the ideas at the other end are like ("more specific cases"), for the prompt that
    # writes search queries for candidates of each type.
    query_hint: str = Field(default="", max_length=200)
    # The type as words from source to target per language ("es": "generaliza"), for the
    # cards that ask how two ideas relate.
    phrases: dict[str, str] = Field(default_factory=dict, max_length=20)

    @model_validator(mode="after")
    def _one_direction_rule(self) -> RelationshipType:
        if self.symmetric and self.reverse is not None:
            raise _at("a relationship type is symmetric or has a reverse, not both", "reverse")
        if self.reverse == self.name:
            raise _at(
                f"{self.name!r} is its own reverse: write `symmetric: true` instead", "reverse"
            )
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
        for kind, field, names in (
            ("entity type", "entity_types", [e.name for e in self.entity_types]),
            ("relationship type", "relationship_types", [r.name for r in self.relationship_types]),
        ):
            index = _first_repeat(names)
            if index is not None:
                raise _at(f"{kind} {names[index]!r} is defined twice", field, index, "name")
        return self


def _first_repeat(names: Sequence[str]) -> int | None:
    """The index of the first name that appeared before it, if any."""
    seen: set[str] = set()
    for index, name in enumerate(names):
        if name in seen:
            return index
        seen.add(name)
    return None


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


# What two packs must agree on to share a relationship type: what it says about its two ends
# (the contradiction check reads the stance) and what the store writes the other way round.
SHARED_MEANING = ("reverse", "symmetric", "stance")


def merge(packs: Sequence[Pack]) -> PackSchema:
    """One schema from several packs, in the order given.

    An entity type defined by two packs must be defined alike. A relationship type defined by
    two packs must agree on `SHARED_MEANING`; it then joins the endpoint types of both, and
    keeps the first pack's description and colour (examples are pooled). Every relationship's
    endpoint types and reverse must exist in the merged schema. Errors name the packs and
    carry the locations (`PackError.locations`) of the fields at fault."""
    if not packs:
        raise PackError("no pack is active: set ZETTELGRAPH_PACKS (e.g. zettelkasten)")
    names = [p.name for p in packs]
    repeat = _first_repeat(names)
    if repeat is not None:
        raise PackError(
            f"pack {names[repeat]!r} is active twice", PackLocation(names[repeat], ("name",))
        )
    entity_types: dict[str, EntityType] = {}
    relationship_types: dict[str, RelationshipType] = {}
    defined_by: dict[str, str] = {}
    # Where each type was first defined (pack, index), to point an error at it.
    first: dict[str, tuple[str, int]] = {}
    for pack in packs:
        for index, entity in enumerate(pack.entity_types):
            known = entity_types.get(entity.name)
            if known is None:
                entity_types[entity.name] = entity
            elif known != entity:
                field = next(f for f in EntityType.model_fields if _differs(known, entity, f))
                raise PackError(
                    f"entity type {entity.name!r} is defined differently by packs "
                    f"{defined_by[entity.name]!r} and {pack.name!r} (its {field} differs): "
                    "make both definitions the same, or rename it in one of them",
                    _where(first[entity.name], "entity_types", field),
                    PackLocation(pack.name, ("entity_types", index, field)),
                )
            defined_by.setdefault(entity.name, pack.name)
            first.setdefault(entity.name, (pack.name, index))
        for index, spec in enumerate(pack.relationship_types):
            known_spec = relationship_types.get(spec.name)
            if known_spec is None:
                relationship_types[spec.name] = spec
                defined_by.setdefault(spec.name, pack.name)
                first.setdefault(spec.name, (pack.name, index))
                continue
            for field in SHARED_MEANING:
                if _differs(known_spec, spec, field):
                    raise PackError(
                        f"relationship type {spec.name!r} is defined by packs "
                        f"{defined_by[spec.name]!r} and {pack.name!r} with a different "
                        f"{field} ({getattr(known_spec, field)!r} and {getattr(spec, field)!r}): "
                        "two packs may share a type only when they agree on its reverse, "
                        "symmetry and stance; make them agree, or rename it in one of them",
                        _where(first[spec.name], "relationship_types", field),
                        PackLocation(pack.name, ("relationship_types", index, field)),
                    )
            relationship_types[spec.name] = _joined(known_spec, spec)
    _check_names(packs, entity_types, relationship_types)
    _check_relationships(packs, entity_types, relationship_types, first)
    return PackSchema(
        packs=tuple(packs),
        entity_types=entity_types,
        relationship_types=relationship_types,
        defined_by=defined_by,
    )


def _differs(a: BaseModel, b: BaseModel, field: str) -> bool:
    return bool(getattr(a, field) != getattr(b, field))


def _where(first: tuple[str, int], table: str, *field: str | int) -> PackLocation:
    return PackLocation(first[0], (table, first[1], *field))


def _union(a: Sequence[str], b: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*a, *b)))


def _joined(known: RelationshipType, other: RelationshipType) -> RelationshipType:
    """One relationship type from two packs' agreeing definitions."""
    return known.model_copy(
        update={
            "source_types": _union(known.source_types, other.source_types),
            "target_types": _union(known.target_types, other.target_types),
            "examples": _union(known.examples, other.examples)[:20],
            "color": known.color or other.color,
            "query_hint": known.query_hint or other.query_hint,
            "phrases": {**other.phrases, **known.phrases},
        }
    )


def _check_names(
    packs: Sequence[Pack],
    entity_types: dict[str, EntityType],
    relationship_types: dict[str, RelationshipType],
) -> None:
    for pack in packs:
        for index, entity in enumerate(pack.entity_types):
            if entity.name in relationship_types:
                raise PackError(
                    f"{entity.name!r} names both an entity type and a relationship type: "
                    "rename one of them",
                    PackLocation(pack.name, ("entity_types", index, "name")),
                )


def _check_relationships(
    packs: Sequence[Pack],
    entity_types: dict[str, EntityType],
    relationship_types: dict[str, RelationshipType],
    first: dict[str, tuple[str, int]],
) -> None:
    """Every endpoint type and reverse exists, and a type and its reverse mirror each other."""
    for pack in packs:
        for index, spec in enumerate(pack.relationship_types):
            where = f"relationship type {spec.name!r} (pack {pack.name!r})"
            for field in ("source_types", "target_types"):
                for position, endpoint in enumerate(getattr(spec, field)):
                    if endpoint not in entity_types:
                        raise PackError(
                            f"{where} joins {endpoint!r}, which no active pack defines: "
                            "define that entity type, or activate the pack that does",
                            PackLocation(pack.name, ("relationship_types", index, field, position)),
                        )
            if spec.reverse is None:
                continue
            reverse_at = PackLocation(pack.name, ("relationship_types", index, "reverse"))
            back = relationship_types.get(spec.reverse)
            if back is None:
                raise PackError(
                    f"{where} has reverse {spec.reverse!r}, which no active pack defines: "
                    f"define {spec.reverse!r} (with reverse {spec.name!r}), or remove the reverse",
                    reverse_at,
                )
            if back.reverse != spec.name:
                raise PackError(
                    f"{where} has reverse {spec.reverse!r}, whose reverse is {back.reverse!r}, "
                    f"not {spec.name!r}: give {spec.reverse!r} the reverse {spec.name!r}",
                    reverse_at,
                    _where(first[spec.reverse], "relationship_types", "reverse"),
                )
    for name, spec in relationship_types.items():
        if spec.symmetric and set(spec.source_types) != set(spec.target_types):
            # Written both ways, so each end must be allowed at the other.
            raise PackError(
                f"relationship type {name!r} is symmetric but joins different source and "
                "target types: give it the same types at both ends",
                _where(first[name], "relationship_types", "target_types"),
            )
        back = relationship_types.get(spec.reverse) if spec.reverse else None
        if back is not None and (
            set(back.source_types) != set(spec.target_types)
            or set(back.target_types) != set(spec.source_types)
        ):
            raise PackError(
                f"relationship type {name!r} and its reverse {spec.reverse!r} join different "
                "types: the reverse's source types must be this type's target types, and the "
                "other way round",
                _where(first[name], "relationship_types", "source_types"),
                _where(first[back.name], "relationship_types", "source_types"),
            )
