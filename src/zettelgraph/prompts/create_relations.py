"""Typed relations of one new concept to other new and existing concepts."""

from __future__ import annotations

import json

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.llm.structured import Sampling
from zettelgraph.packs.relations import RelationVocabulary
from zettelgraph.prompts.ids import AnyConceptRef, narrowed, relation_types
from zettelgraph.prompts.quality import language_name, relation_guide

NAME = "create_relations"
# Two relations with one-sentence explanations take about 150 tokens; 600 leaves room.
SAMPLING = Sampling(max_tokens=600, temperature=0.1)


class ConceptLine(BaseModel):
    id: str  # c1.. for new concepts, e1.. for existing ones
    title: str
    summary_short: str


class CreateRelationsInput(BaseModel):
    target: ConceptLine
    others: list[ConceptLine]  # other new concepts of this run
    existing: list[ConceptLine]  # candidates found by the relation queries
    language: str = "es"
    compact: bool = False  # a small model: one relation at most


class ProposedRelation(BaseModel):
    target_concept_id: AnyConceptRef
    relation_type: str  # one of the vocabulary's types: see `response_model`
    explanation: str = Field(
        max_length=300, description="One sentence naming both ideas and how they connect."
    )
    confidence: float = Field(ge=0.0, le=1.0)


class CreatedRelations(BaseModel):
    # Few and sound: the proposal checks keep at most a handful per concept anyway. No
    # `relation_notes` (the seed's "any observations about relation creation"): each relation
    # already says why in its explanation, which the review shows and the edge keeps; a note
    # per concept, tied to no relation and never explained to the model, cost up to 300
    # characters of output a call for text no reader could place (issue 31).
    relations: list[ProposedRelation] = Field(max_length=5)


# What a small model is asked for: its one surest relation. Asked for two, the 1.5B model
# wrote the same explanation for both, and the repeated-explanation check dropped both: four
# of the nine relations of one run on examples/.
class CompactCreatedRelations(BaseModel):
    relations: list[ProposedRelation] = Field(max_length=1)


def response_model(
    vocabulary: RelationVocabulary, compact: bool = False
) -> type[CreatedRelations] | type[CompactCreatedRelations]:
    """The answer whose relation types are the vocabulary's, and only those."""
    relation = narrowed(ProposedRelation, "relation_type", relation_types(vocabulary.names))
    if compact:
        return narrowed(CompactCreatedRelations, "relations", list[relation])  # type: ignore[valid-type]
    return narrowed(CreatedRelations, "relations", list[relation])  # type: ignore[valid-type]


def example(vocabulary: RelationVocabulary) -> str:
    """A model answer from the first pack example of the form "A -> B: why" (the
    zettelkasten pack's is Spanish, about Don Quijote); a bare one when there is none."""
    for name in vocabulary.names:
        for text in vocabulary.examples.get(name, ()):
            ends, _, why = text.partition(": ")
            source, arrow, target = ends.partition(" -> ")
            if arrow and why.strip():
                return _example(source, target, name, why)
    if not vocabulary.names:
        raise ValueError("no relation types to offer: the active packs define none here")
    why = "One sentence naming both ideas and how they connect."
    return _example("A", "B", vocabulary.names[0], why)


def _example(source: str, target: str, relation_type: str, why: str) -> str:
    answer = {
        "relations": [
            {
                "target_concept_id": "c2",
                "relation_type": relation_type,
                "explanation": why.strip(),
                "confidence": 0.8,
            }
        ]
    }
    return f"[c1] {source.strip()} -> [c2] {target.strip()}\n" + json.dumps(
        answer, ensure_ascii=False
    )


def messages(data: CreateRelationsInput, vocabulary: RelationVocabulary) -> list[BaseMessage]:
    def lines(items: list[ConceptLine]) -> str:
        return "\n".join(f"[{c.id}] {c.title}: {c.summary_short}" for c in items) or "(none)"

    return [
        SystemMessage(
            content="You connect a new idea to other ideas of a knowledge graph with typed, "
            f"directed relations. Give at most {1 if data.compact else 2} "
            f"relation{'' if data.compact else 's'}, only those that are clearly true; "
            "an empty list is a good answer when nothing is. Never relate two ideas both as "
            "opposed and as similar. Each explanation is one sentence of your own, in "
            f"{language_name(data.language)}, that names both ideas and says how they "
            "connect; never repeat the idea's text.\n"
            + relation_guide(vocabulary)
            + f"\nExample:\n{example(vocabulary)}"
        ),
        HumanMessage(
            content=f"New idea [{data.target.id}] {data.target.title}: "
            f"{data.target.summary_short}\n\n"
            f"Other new ideas:\n{lines(data.others)}\n\n"
            f"Existing ideas:\n{lines(data.existing)}\n\n"
            f"Relations FROM [{data.target.id}] TO the ideas above, by their ids (c1.., e1..)."
        ),
    ]
