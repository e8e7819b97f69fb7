"""The relation vocabulary and its reverse/symmetric rules, built from the active template packs.

Creating A -[GENERALIZES]-> B also creates B -[SPECIFIC_OF]-> A; symmetric types create the
same type in both directions; one-way types (a pack type with neither a reverse nor symmetry,
such as BORN_IN) are written as given. Structural relations (authorship, quoting, attribution)
are no part of a vocabulary and have no automatic reverse.

`vocabulary_from` turns a merged pack schema into a vocabulary; `DEFAULT_VOCABULARY` is the
shipped `zettelkasten` pack's, the concept workflow's eleven types.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zettelgraph.models import Relation

if TYPE_CHECKING:
    from zettelgraph.packs.schema import PackSchema

AUTHORED_BY = "AUTHORED_BY"  # Content -> Person
QUOTED_IN = "QUOTED_IN"  # Quote -> Content
SUPPORTS = "SUPPORTS"  # Quote -> Concept (attribution); packs may use it between concepts too
IN_SECTION = "IN_SECTION"  # Quote (a document passage) -> Section (its parent chunk)
SECTION_OF = "SECTION_OF"  # Section -> Content
CITES = "CITES"  # Answer -> Quote, LearningItem -> Quote
TESTS = "TESTS"  # LearningItem -> Concept
# Quote -> the Quote that follows it in its Content's reading (the file as last read).
NEXT = "NEXT"
STATED_IN = "STATED_IN"  # Proposition -> Quote (the passage that makes the statement)

# The zettelkasten pack's "understand A before B" (Concept -> Concept, reverse REQUIRES):
# Study shows A's new cards before B's.
PREREQUISITE_FOR = "PREREQUISITE_FOR"

STRUCTURAL_TYPES = frozenset(
    {AUTHORED_BY, QUOTED_IN, IN_SECTION, SECTION_OF, CITES, TESTS, NEXT, STATED_IN}
)
# The entity type of Concept nodes in the packs (the zettelkasten pack defines it).
CONCEPT_TYPE = "Concept"
# A type the vocabulary gives no colour gets one of these, by a hash of its name.
FALLBACK_COLORS = ("#0f766e", "#be185d", "#9333ea", "#b45309", "#1d4ed8", "#4d7c0f", "#be123c")


@dataclass(frozen=True)
class RelationVocabulary:
    """Relation types between typed nodes (Concepts, pack entities) with their reverse rules."""

    # type -> the type written the other way round (itself for a symmetric type).
    reverses: dict[str, str] = field(default_factory=dict)
    descriptions: dict[str, str] = field(default_factory=dict)
    # Types that say two ideas disagree, and catch-alls that say neither way. Every other type
    # agrees (A is like, part of, a case of, or evidence for B): a pair joined by an opposing
    # and an agreeing type is a contradiction the proposal checks drop.
    opposing: frozenset[str] = frozenset()
    neutral: frozenset[str] = frozenset()
    # How the web app draws each type; a type without one gets a fallback colour.
    colors: dict[str, str] = field(default_factory=dict)
    # Types written only as given, with no automatic reverse, in pack order.
    one_way: tuple[str, ...] = ()
    # type -> (source entity types, target entity types). A type not listed joins any types,
    # as the vocabularies written in code before packs did.
    endpoints: dict[str, tuple[frozenset[str], frozenset[str]]] = field(default_factory=dict)
    # Prompt and card wording from the packs: what the other end of a type is like (for
    # search queries), worked examples ("A -> B: why"), and the type as words per language.
    query_hints: dict[str, str] = field(default_factory=dict)
    examples: dict[str, tuple[str, ...]] = field(default_factory=dict)
    phrases: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def types(self) -> frozenset[str]:
        return frozenset(self.reverses) | frozenset(self.one_way)

    @property
    def names(self) -> list[str]:
        """Every type in the vocabulary's order: the reversible ones, then the one-way ones."""
        return [*self.reverses, *(t for t in self.one_way if t not in self.reverses)]

    def stance(self, relation_type: str) -> str:
        """'opposes', 'neutral' or 'agrees'."""
        if relation_type in self.opposing:
            return "opposes"
        return "neutral" if relation_type in self.neutral else "agrees"

    def is_symmetric(self, relation_type: str) -> bool:
        return self.reverses.get(relation_type) == relation_type

    def reverse_of(self, relation_type: str) -> str | None:
        """The type written the other way round; None for a one-way type."""
        if relation_type in self.reverses:
            return self.reverses[relation_type]
        if relation_type in self.one_way:
            return None
        known = ", ".join(sorted(self.types))
        raise ValueError(f"unknown relation type {relation_type!r}; known: {known}")

    def joins(self, relation_type: str, source_type: str, target_type: str) -> bool:
        """Whether the type may go from a node of `source_type` to one of `target_type`."""
        if relation_type not in self.types:
            return False
        ends = self.endpoints.get(relation_type)
        return ends is None or (source_type in ends[0] and target_type in ends[1])

    def between(self, source_type: str, target_type: str) -> RelationVocabulary:
        """The part of the vocabulary that joins `source_type` to `target_type`, such as the
        Concept -> Concept types the concept workflow offers. The packs make a type and its
        reverse mirror each other, so the part is closed under reverses."""
        keep = {t for t in self.types if self.joins(t, source_type, target_type)}
        return RelationVocabulary(
            reverses={t: r for t, r in self.reverses.items() if t in keep and r in keep},
            descriptions={t: d for t, d in self.descriptions.items() if t in keep},
            opposing=self.opposing & keep,
            neutral=self.neutral & keep,
            colors={t: c for t, c in self.colors.items() if t in keep},
            one_way=tuple(t for t in self.one_way if t in keep),
            endpoints={t: e for t, e in self.endpoints.items() if t in keep},
            query_hints={t: h for t, h in self.query_hints.items() if t in keep},
            examples={t: e for t, e in self.examples.items() if t in keep},
            phrases={t: p for t, p in self.phrases.items() if t in keep},
        )

    def color(self, relation_type: str) -> str:
        """The type's colour, or a stable one of `FALLBACK_COLORS` (never from the data)."""
        if relation_type in self.colors:
            return self.colors[relation_type]
        digest = hashlib.sha256(relation_type.encode()).digest()
        return FALLBACK_COLORS[digest[0] % len(FALLBACK_COLORS)]

    def phrase(self, relation_type: str, language: str) -> str:
        """The type as words from source to target in `language` (English when the pack has
        none in it; the name in lower case when it has none at all: "CAUSES" -> "causes")."""
        words = self.phrases.get(relation_type, {})
        return words.get(language) or words.get("en") or relation_type.lower().replace("_", " ")

    def with_reverses(self, relations: Iterable[Relation]) -> list[Relation]:
        """Each typed relation plus its automatic reverse, without duplicates.

        One-way types get no reverse. Quote -> Concept SUPPORTS and structural relations pass
        through unchanged; the caller says which are typed relations by putting them through
        here or not.
        """
        given = list(relations)
        # A relation that was given keeps its own properties (its provenance) even when it is
        # also the reverse of another one; only missing reverses are inferred.
        given_keys = {relation.key for relation in given}
        out: dict[tuple[str, str, str], Relation] = {}
        for relation in given:
            out.setdefault(relation.key, relation)
            reverse_type = self.reverse_of(relation.type)
            if reverse_type is None:
                continue
            reverse = Relation(
                source_id=relation.target_id,
                target_id=relation.source_id,
                type=reverse_type,
                properties={**relation.properties, "inferred_reverse_of": relation.type},
                created_at=relation.created_at,
            )
            if reverse.key not in given_keys:
                out.setdefault(reverse.key, reverse)
        return list(out.values())


def vocabulary_from(schema: PackSchema) -> RelationVocabulary:
    """The vocabulary of a merged pack schema: every relationship type, in pack order, with
    its reverse (or symmetry), stance, description, colour, endpoint types and wording."""
    reverses: dict[str, str] = {}
    one_way: list[str] = []
    for name, spec in schema.relationship_types.items():
        if spec.symmetric:
            reverses[name] = name
        elif spec.reverse is not None:
            reverses[name] = spec.reverse
        else:
            one_way.append(name)
    specs = schema.relationship_types
    return RelationVocabulary(
        reverses=reverses,
        descriptions={name: spec.description for name, spec in specs.items()},
        opposing=frozenset(name for name, spec in specs.items() if spec.stance == "opposes"),
        neutral=frozenset(name for name, spec in specs.items() if spec.stance == "neutral"),
        colors={name: spec.color for name, spec in specs.items() if spec.color},
        one_way=tuple(one_way),
        endpoints={
            name: (frozenset(spec.source_types), frozenset(spec.target_types))
            for name, spec in specs.items()
        },
        query_hints={name: spec.query_hint for name, spec in specs.items() if spec.query_hint},
        examples={name: spec.examples for name, spec in specs.items() if spec.examples},
        phrases={name: dict(spec.phrases) for name, spec in specs.items() if spec.phrases},
    )


def _default_vocabulary() -> RelationVocabulary:
    from zettelgraph.packs.loader import shipped_schema

    return vocabulary_from(shipped_schema(("zettelkasten",)))


# The shipped zettelkasten pack's eleven types: what a store opened without the active packs
# enforces, and what code that is not given a vocabulary (tests, benchmarks) uses.
DEFAULT_VOCABULARY = _default_vocabulary()
