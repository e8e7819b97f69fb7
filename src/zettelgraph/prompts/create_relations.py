"""Call 1.1e: typed relations of one new concept to other new and existing concepts."""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.prompts.ids import AnyConceptRef, RelationType
from zettelgraph.prompts.quality import relation_guide
from zettelgraph.relations import RelationVocabulary

NAME = "create_relations"


class ConceptLine(BaseModel):
    id: str  # c1.. for new concepts, e1.. for existing ones
    title: str
    summary_short: str


class CreateRelationsInput(BaseModel):
    target: ConceptLine
    concept: str
    analysis: str
    others: list[ConceptLine]  # other new concepts of this run
    existing: list[ConceptLine]  # candidates found by the relation queries


class ProposedRelation(BaseModel):
    target_concept_id: AnyConceptRef
    relation_type: RelationType
    explanation: str = Field(max_length=400)
    confidence: float = Field(ge=0.0, le=1.0)


class CreatedRelations(BaseModel):
    relations: list[ProposedRelation] = Field(max_length=20)
    relation_notes: str = Field(default="", max_length=600)


def messages(data: CreateRelationsInput, vocabulary: RelationVocabulary) -> list[BaseMessage]:
    def lines(items: list[ConceptLine]) -> str:
        return "\n".join(f"[{c.id}] {c.title}: {c.summary_short}" for c in items) or "(none)"

    return [
        SystemMessage(
            content="You connect a new idea to other ideas of a knowledge graph with typed, "
            "directed relations. Only relations that are clearly meaningful; none is fine.\n"
            + relation_guide(vocabulary)
        ),
        HumanMessage(
            content=f"New idea [{data.target.id}] {data.target.title}\n{data.concept}\n"
            f"{data.analysis}\n\nOther new ideas:\n{lines(data.others)}\n\n"
            f"Existing ideas:\n{lines(data.existing)}\n\n"
            f"Give relations FROM [{data.target.id}] TO the ideas above, by their ids "
            "(c1.., e1..) exactly as written, with relation_type one of the types listed, an "
            "explanation and a confidence between 0 and 1."
        ),
    ]
