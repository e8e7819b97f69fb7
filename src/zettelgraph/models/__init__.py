"""Pure data: the domain as the reader sees it. No I/O here.

One module per part of the domain: `base` (deterministic ids, the base node), `sources`
(what was read), `concepts` (concepts, relations, pack entities), `cards` (what is studied),
`search` (passage filters, search results, answers) and `graph` (every node type, removals,
the ChangeSet a write applies). Every public name is here too: import from `zettelgraph.models`.
"""

from __future__ import annotations

from zettelgraph.models.base import (
    NAMESPACE,
    Node,
    NodeLabel,
    sha256_text,
    stable_id,
    utcnow,
)
from zettelgraph.models.cards import (
    DIFFICULTY_RANK,
    CardState,
    Difficulty,
    ItemStatus,
    ItemType,
    LearningItem,
    ReviewLog,
    learning_item_id,
    review_log_id,
)
from zettelgraph.models.concepts import (
    Concept,
    ConceptRevision,
    Entity,
    Relation,
    RelationKey,
    TextAuthor,
    entity_id,
)
from zettelgraph.models.graph import (
    NODE_TYPES,
    AnyNode,
    ChangeSet,
    Removal,
    RemovalKind,
    embedding_text,
    label_of,
    removal_id,
)
from zettelgraph.models.search import (
    Answer,
    PassageFilter,
    PlaceRange,
    PlaceUnit,
    SearchHit,
    SearchResult,
)
from zettelgraph.models.sources import (
    MAX_PROPOSITION_CHARS,
    MAX_PROPOSITIONS,
    Content,
    Person,
    Proposition,
    Quote,
    Section,
    content_id,
    person_id,
    proposition_id,
    quote_id,
    section_id,
)
from zettelgraph.text.normalize import normalize_name, normalize_text

__all__ = [
    "DIFFICULTY_RANK",
    "MAX_PROPOSITIONS",
    "MAX_PROPOSITION_CHARS",
    "NAMESPACE",
    "NODE_TYPES",
    "Answer",
    "AnyNode",
    "CardState",
    "ChangeSet",
    "Concept",
    "ConceptRevision",
    "Content",
    "Difficulty",
    "Entity",
    "ItemStatus",
    "ItemType",
    "LearningItem",
    "Node",
    "NodeLabel",
    "PassageFilter",
    "Person",
    "PlaceRange",
    "PlaceUnit",
    "Proposition",
    "Quote",
    "Relation",
    "RelationKey",
    "Removal",
    "RemovalKind",
    "ReviewLog",
    "SearchHit",
    "SearchResult",
    "Section",
    "TextAuthor",
    "content_id",
    "embedding_text",
    "entity_id",
    "label_of",
    "learning_item_id",
    "normalize_name",
    "normalize_text",
    "person_id",
    "proposition_id",
    "quote_id",
    "removal_id",
    "review_log_id",
    "section_id",
    "sha256_text",
    "stable_id",
    "utcnow",
]
