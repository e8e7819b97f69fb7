"""The change set that refinement (1.3) and feedback incorporation (2.3) return.

A patch instead of a full re-extraction: it names only what changes, so its size follows the
size of the critique or the feedback, not of the whole proposal (which can hold a hundred
concepts for a long book).
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, Field

from zettelgraph.packs.relations import RelationVocabulary
from zettelgraph.prompts.ids import (
    AnyConceptRef,
    ConceptRef,
    ExistingRef,
    QuoteRef,
    narrowed,
    relation_types,
)


class ConceptChange(BaseModel):
    id: ConceptRef = Field(description="An id of the proposal to replace it, or a new c-id.")
    title: str = Field(min_length=1, max_length=120)
    concept: str = Field(min_length=1, max_length=1200)
    analysis: str = Field(max_length=1500)
    summary: str = Field(max_length=900)
    summary_short: str = Field(min_length=1, max_length=260)
    source_quote_ids: list[QuoteRef] = Field(min_length=1, max_length=40)


class RelationChange(BaseModel):
    source_id: AnyConceptRef
    relation_type: str  # one of the vocabulary's types: see `typed_patch`
    target_id: AnyConceptRef
    explanation: str = Field(default="", max_length=400)
    confidence: float = Field(default=0.8, ge=0.0, le=1.0)


class AttributionChange(BaseModel):
    existing_concept_id: ExistingRef
    quote_ids: list[QuoteRef] = Field(max_length=40, description="The full new list.")


class ProposalPatch(BaseModel):
    upsert_concepts: list[ConceptChange] = Field(default_factory=list, max_length=20)
    remove_concept_ids: list[ConceptRef] = Field(default_factory=list, max_length=20)
    add_relations: list[RelationChange] = Field(default_factory=list, max_length=30)
    remove_relations: list[RelationChange] = Field(default_factory=list, max_length=30)
    set_attributions: list[AttributionChange] = Field(default_factory=list, max_length=20)
    notes: str = Field(default="", max_length=800, description="What changed and why.")


PatchT = TypeVar("PatchT", bound=ProposalPatch)


def typed_patch(model: type[PatchT], vocabulary: RelationVocabulary) -> type[PatchT]:
    """`model` (a patch) whose relation types are the vocabulary's, and only those; as it
    is when the vocabulary has none (its relations are then dropped as unknown)."""
    if not vocabulary.names:
        return model
    change = narrowed(RelationChange, "relation_type", relation_types(vocabulary.names))
    relations = list[change]  # type: ignore[valid-type]
    return narrowed(narrowed(model, "add_relations", relations), "remove_relations", relations)


PATCH_GUIDE = """Answer with the changes only:
- upsert_concepts: full new text of each concept you change (same id) or add (a new c-id);
- remove_concept_ids: concepts to drop (e.g. merged into another one);
- add_relations / remove_relations: relations by ids (c1.., e1..), type and direction;
- set_attributions: for an existing concept (e1..), the full new list of quotes supporting it;
- notes: what you changed and why.
Use only ids that appear above, except new c-ids for new concepts."""
