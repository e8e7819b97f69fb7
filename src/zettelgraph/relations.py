"""The relation vocabulary and its reverse/symmetric rules.

Creating A -[GENERALIZES]-> B also creates B -[SPECIFIC_OF]-> A; symmetric types create the
same type in both directions. Structural relations (authorship, quoting, attribution) have no
automatic reverse.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, get_args

from zettelgraph.models import Relation

AUTHORED_BY = "AUTHORED_BY"  # Content -> Person
QUOTED_IN = "QUOTED_IN"  # Quote -> Content
SUPPORTS = "SUPPORTS"  # Quote -> Concept (attribution) and Concept -> Concept
IN_SECTION = "IN_SECTION"  # Quote (a document passage) -> Section (its parent chunk)
SECTION_OF = "SECTION_OF"  # Section -> Content
CITES = "CITES"  # Answer -> Quote, LearningItem -> Quote
TESTS = "TESTS"  # LearningItem -> Concept

STRUCTURAL_TYPES = frozenset({AUTHORED_BY, QUOTED_IN, IN_SECTION, SECTION_OF, CITES, TESTS})


@dataclass(frozen=True)
class RelationVocabulary:
    """Concept-to-concept relation types with their reverse rules."""

    reverses: dict[str, str] = field(default_factory=dict)
    descriptions: dict[str, str] = field(default_factory=dict)
    # Types that say two ideas disagree, and catch-alls that say neither way. Every other type
    # agrees (A is like, part of, a case of, or evidence for B): a pair joined by an opposing
    # and an agreeing type is a contradiction the proposal checks drop.
    opposing: frozenset[str] = frozenset()
    neutral: frozenset[str] = frozenset()
    # How the web app draws each type; a type without one gets a fallback colour.
    colors: dict[str, str] = field(default_factory=dict)

    @property
    def types(self) -> frozenset[str]:
        return frozenset(self.reverses)

    def stance(self, relation_type: str) -> str:
        """'opposes', 'neutral' or 'agrees'."""
        if relation_type in self.opposing:
            return "opposes"
        return "neutral" if relation_type in self.neutral else "agrees"

    def is_symmetric(self, relation_type: str) -> bool:
        return self.reverses.get(relation_type) == relation_type

    def reverse_of(self, relation_type: str) -> str:
        try:
            return self.reverses[relation_type]
        except KeyError:
            known = ", ".join(sorted(self.reverses))
            raise ValueError(f"unknown relation type {relation_type!r}; known: {known}") from None

    def with_reverses(self, relations: Iterable[Relation]) -> list[Relation]:
        """Each concept relation plus its automatic reverse, without duplicates.

        Quote -> Concept SUPPORTS and structural relations pass through unchanged; the
        caller says which are concept relations by putting them through here or not.
        """
        given = list(relations)
        # A relation that was given keeps its own properties (its provenance) even when it is
        # also the reverse of another one; only missing reverses are inferred.
        given_keys = {relation.key for relation in given}
        out: dict[tuple[str, str, str], Relation] = {}
        for relation in given:
            out.setdefault(relation.key, relation)
            reverse = Relation(
                source_id=relation.target_id,
                target_id=relation.source_id,
                type=self.reverse_of(relation.type),
                properties={**relation.properties, "inferred_reverse_of": relation.type},
                created_at=relation.created_at,
            )
            if reverse.key not in given_keys:
                out.setdefault(reverse.key, reverse)
        return list(out.values())


# The default vocabulary's types as a type, so constrained decoding can only produce these
# (prompts/ids.py). Code still checks every type against the store's vocabulary.
RelationType = Literal[
    "GENERALIZES",
    "SPECIFIC_OF",
    "PART_OF",
    "HAS_PART",
    "SUPPORTS",
    "SUPPORTED_BY",
    "OPPOSES",
    "SIMILAR_TO",
    "RELATES_TO",
]


def _default_vocabulary() -> RelationVocabulary:
    pairs = {
        "GENERALIZES": "SPECIFIC_OF",
        "PART_OF": "HAS_PART",
        "SUPPORTS": "SUPPORTED_BY",
    }
    reverses: dict[str, str] = {}
    for forward, backward in pairs.items():
        reverses[forward] = backward
        reverses[backward] = forward
    for symmetric in ("OPPOSES", "SIMILAR_TO", "RELATES_TO"):
        reverses[symmetric] = symmetric
    descriptions = {
        "GENERALIZES": "A is a general idea that encompasses B as a specific instance.",
        "SPECIFIC_OF": "A is a specific instance of the more general B.",
        "PART_OF": "A is a component of the larger whole B.",
        "HAS_PART": "A is a whole that contains B as a component.",
        "SUPPORTS": "A provides evidence or justification for B.",
        "SUPPORTED_BY": "A is backed by the evidence or justification in B.",
        "OPPOSES": "A and B are in direct opposition.",
        "SIMILAR_TO": "A and B are related but distinct ideas.",
        "RELATES_TO": "A and B are related in another way (catch-all).",
    }
    colors = {
        "GENERALIZES": "#2563eb",
        "SPECIFIC_OF": "#0891b2",
        "PART_OF": "#7c3aed",
        "HAS_PART": "#a855f7",
        "SUPPORTS": "#16a34a",
        "SUPPORTED_BY": "#65a30d",
        "OPPOSES": "#dc2626",
        "SIMILAR_TO": "#d97706",
        "RELATES_TO": "#64748b",
    }
    vocabulary = RelationVocabulary(
        reverses=reverses,
        descriptions=descriptions,
        opposing=frozenset({"OPPOSES"}),
        neutral=frozenset({"RELATES_TO"}),
        colors=colors,
    )
    if vocabulary.types != frozenset(get_args(RelationType)):
        raise AssertionError("RelationType and the default vocabulary name different types")
    return vocabulary


DEFAULT_VOCABULARY = _default_vocabulary()
