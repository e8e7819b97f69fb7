"""The ground every model stands on: deterministic ids and the base node.

Ids are deterministic (UUID5 over normalised natural keys) so that writing the same thing
twice, or replaying a write after a crash, never creates a duplicate.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

# Fixed namespace so ids are stable across machines and versions.
NAMESPACE = uuid.UUID("6f1c3c9e-2b7a-4f0e-9a57-2e4f3d0c9b11")


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def stable_id(kind: str, *parts: str) -> str:
    return str(uuid.uuid5(NAMESPACE, "\x1f".join((kind, *parts))))


def utcnow() -> datetime:
    return datetime.now(UTC)


class NodeLabel(StrEnum):
    CONTENT = "Content"
    PERSON = "Person"
    QUOTE = "Quote"
    CONCEPT = "Concept"
    SECTION = "Section"
    ANSWER = "Answer"
    LEARNING_ITEM = "LearningItem"
    REVIEW_LOG = "ReviewLog"
    ENTITY = "Entity"
    REMOVAL = "Removal"
    PROPOSITION = "Proposition"


class Node(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    created_at: datetime = Field(default_factory=utcnow)
