"""The graph as a store writes it: every node type by label, the record of a removal, and
the ChangeSet one logical write applies."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, ConfigDict, Field

from zettelgraph.models.base import Node, NodeLabel, stable_id
from zettelgraph.models.cards import LearningItem, ReviewLog
from zettelgraph.models.concepts import Concept, Entity, Relation, RelationKey
from zettelgraph.models.search import Answer
from zettelgraph.models.sources import Content, Person, Proposition, Quote, Section

RemovalKind = Literal["concept", "relation", "content"]


class Removal(Node):
    """A correction that took part of the graph away: what went, who removed it and when.

    What it removed is gone from the graph; this record stays (written in the same write), so
    the reader can still see what a deletion took (`zettelgraph removals`), the provenance
    export can say the reader invalidated it, and `vault sync` knows which notes to take out
    of the vault. `created_at` is when it was removed.
    """

    kind: RemovalKind
    # What the reader removed, as they knew it: a concept's or content's title, or
    # "A -[TYPE]-> B" for a relation.
    title: str = Field(min_length=1, max_length=1000)
    # The removed concept's or content's id; for a relation, its source concept's.
    subject_id: str
    by: str = Field(min_length=1, description="The reader (ZETTELGRAPH_READER).")
    # Everything that went with it: concepts (id -> title), concept relations (both
    # directions), cards, pack entities (id -> name), and how many nodes per label.
    concepts: dict[str, str] = Field(default_factory=dict)
    relations: list[RelationKey] = Field(default_factory=list)
    items: list[str] = Field(default_factory=list)
    entities: dict[str, str] = Field(default_factory=dict)
    counts: dict[str, int] = Field(default_factory=dict)
    # What a reader may want back: a removed concept's text, a relation's explanation.
    details: dict[str, Any] = Field(default_factory=dict)


def removal_id(kind: str, subject_id: str, at: datetime) -> str:
    return stable_id("removal", kind, subject_id, at.isoformat())


AnyNode = (
    Content
    | Person
    | Quote
    | Concept
    | Section
    | Answer
    | LearningItem
    | ReviewLog
    | Entity
    | Removal
    | Proposition
)


NODE_TYPES: dict[NodeLabel, type[AnyNode]] = {
    NodeLabel.CONTENT: Content,
    NodeLabel.PERSON: Person,
    NodeLabel.QUOTE: Quote,
    NodeLabel.CONCEPT: Concept,
    NodeLabel.SECTION: Section,
    NodeLabel.ANSWER: Answer,
    NodeLabel.LEARNING_ITEM: LearningItem,
    NodeLabel.REVIEW_LOG: ReviewLog,
    NodeLabel.ENTITY: Entity,
    NodeLabel.REMOVAL: Removal,
    NodeLabel.PROPOSITION: Proposition,
}


def label_of(node: AnyNode) -> NodeLabel:
    return NodeLabel(type(node).__name__)


def embedding_text(node: Quote | Concept | Entity | Proposition) -> str:
    """The text whose embedding represents a node in vector search."""
    if isinstance(node, Quote | Proposition):
        return node.text
    if isinstance(node, Entity):
        return f"{node.name}. {node.description}" if node.description else node.name
    return f"{node.title}. {node.summary_short or node.concept}"


class ChangeSet(BaseModel):
    """Everything one logical write puts in (or takes out of) the store, applied in one
    transaction.

    Writing is an upsert on ids and deleting what is already gone does nothing, so applying
    the same ChangeSet twice converges to the same graph. Deletions come first: a change set
    may delete a concept and rewrite the neighbours that pointed at it, but not write a node
    it deletes.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    contents: list[Content] = Field(default_factory=list)
    persons: list[Person] = Field(default_factory=list)
    quotes: list[Quote] = Field(default_factory=list)
    concepts: list[Concept] = Field(default_factory=list)
    sections: list[Section] = Field(default_factory=list)
    answers: list[Answer] = Field(default_factory=list)
    learning_items: list[LearningItem] = Field(default_factory=list)
    review_logs: list[ReviewLog] = Field(default_factory=list)
    entities: list[Entity] = Field(default_factory=list)
    removals: list[Removal] = Field(default_factory=list)
    propositions: list[Proposition] = Field(default_factory=list)
    relations: list[Relation] = Field(default_factory=list)
    # node id -> embedding; the vector must come from the store's registered embedder.
    vectors: dict[str, NDArray[np.float32]] = Field(default_factory=dict)
    # Content id -> the processed dates the writer accepts (None: unprocessed), typically the
    # one it read and its own (a replay after a crash). The store checks them inside the
    # write, atomically, and refuses the whole change set (ConflictError) otherwise: two runs
    # of one book cannot both commit.
    expect_processed: dict[str, list[datetime | None]] = Field(default_factory=dict)
    # Nodes to delete, with every relation touching them, their vectors and full-text rows.
    delete_ids: list[str] = Field(default_factory=list)
    # Relations to delete; one between two Concepts (or two Entities) of a type with a reverse
    # or a symmetric twin goes with its twin, as it was written with it.
    delete_relations: list[RelationKey] = Field(default_factory=list)

    def nodes(self) -> list[AnyNode]:
        # Sections before the quotes that point at them.
        return [
            *self.contents,
            *self.persons,
            *self.sections,
            *self.quotes,
            *self.concepts,
            *self.answers,
            *self.learning_items,
            *self.review_logs,
            *self.entities,
            *self.removals,
            *self.propositions,
        ]
