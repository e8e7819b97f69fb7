"""The JSON API's request and response models, for validation and `/api/openapi.json`.

They describe the dicts the service functions return (`services/browse.py`,
`services/ask.py`, `RunView.as_dict`); response models accept fields they do not name, so a
field a service adds reaches the client before the schema mentions it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from zettelgraph.models import Concept, Content, Person, SearchResult, Section
from zettelgraph.services.review import ItemDecision


class Open(BaseModel):
    """A documented dict that keeps the fields it does not name."""

    model_config = ConfigDict(extra="allow")


class RunRef(Open):
    run_id: str
    content_id: str | None
    title: str | None
    updated_at: str | None


class InboxRow(RunRef):
    concepts: int
    relations: int
    quotes: int
    warnings: int
    feedback_rounds: int
    age_seconds: float | None = Field(description="Seconds since the run last changed.")


class RunSummary(RunRef):
    status: str = Field(description="awaiting_review, interrupted, committed, aborted, ...")
    next: list[str]
    committed: dict[str, Any]
    warnings: list[str]


class Run(RunSummary):
    report: dict[str, Any] | None = Field(
        description="What the reviewer decides on; null unless the run awaits review."
    )


class Passage(Open):
    id: str
    text: str
    page: str | None
    section: str | None
    location: dict[str, Any]
    location_label: str
    content_id: str
    content: str | None
    author: str | None
    section_id: str | None


class ConceptRow(Open):
    id: str
    title: str
    summary_short: str
    relations: int
    quotes: int
    vault_sync_pending: bool


class Link(Open):
    type: str
    explanation: str
    inferred: bool = Field(description="Added by the store as the reverse of another relation.")


class LinkOut(Link):
    target_id: str
    target: str


class LinkIn(Link):
    source_id: str
    source: str


class ConceptDetail(Concept):
    model_config = ConfigDict(extra="allow")

    relations: list[LinkOut]
    incoming: list[LinkIn]
    quotes: list[Passage]


class ContentRow(Open):
    id: str
    title: str
    kind: str
    author: str | None
    quotes: int
    processed_date: datetime | None
    summary_short: str


class ContentDetail(Content):
    model_config = ConfigDict(extra="allow")

    author: Person | None
    sections: list[Section]
    quotes: list[Passage]


class GraphNode(Open):
    id: str
    title: str
    summary_short: str
    hops: int = Field(description="Hops from the nearest starting node.")
    kind: Literal["concept", "entity"]
    type: str = Field(description="Its entity type (Concept for a concept).")
    pack: str = Field(description="The template pack of its type.")
    color: str = Field(description="Its type's colour (#rrggbb).")
    href: str = Field(description="Its page in the web app.")


class GraphEdge(Open):
    source: str
    target: str
    type: str
    explanation: str


class Graph(Open):
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    colors: dict[str, str] = Field(description="Relation type -> colour, for the edges shown.")
    node_colors: dict[str, str] = Field(description="Entity type -> colour, for the nodes shown.")


class PassageInContext(Open):
    passage: Passage
    section: Section | None = Field(description="The document section it was cut from.")
    previous_id: str | None = Field(description="The passage before it in reading order.")
    next_id: str | None = Field(description="The passage after it in reading order.")


class SearchOut(Open):
    query: str
    results: list[SearchResult]


class AskOut(Open):
    answer_id: str
    chat_id: str | None = Field(description="Send it back as `chat_id` to ask a follow-up.")
    turn: int = Field(description="This answer's place in its chat (1 for a new chat).")
    question: str
    standalone_question: str | None = Field(
        default=None, description="A follow-up rewritten to stand alone: what was searched."
    )
    passage_filter: dict[str, Any] = Field(
        default_factory=dict, description="The PassageFilter searched within ({}: none)."
    )
    answer: str = Field(description="Sentences ending in [n] markers, n a passage's `n`.")
    answerable: bool
    language: str
    citations: list[dict[str, Any]]
    passages: list[SearchResult]
    warnings: list[str]


class CsrfOut(Open):
    csrf_token: str = Field(description="Send it back as the X-CSRF-Token header on a POST.")


class DecisionIn(BaseModel):
    action: Literal["approve", "feedback", "abort"]
    feedback: str | None = Field(default=None, max_length=10_000)


class ItemsIn(BaseModel):
    """The reader's decisions on single items of a concept run, applied in order; none is
    saved when one does not fit the proposal (422 names it)."""

    decisions: list[ItemDecision] = Field(min_length=1, max_length=500)


class StartIn(BaseModel):
    suggestions: str | None = Field(default=None, max_length=10_000)
    force: bool = Field(default=False, description="Extract again from a processed content.")


class GraphStartIn(BaseModel):
    content_id: str = Field(min_length=1, max_length=200)
    packs: list[str] | None = Field(
        default=None,
        max_length=20,
        description="Template packs to extract with; null or empty: the active packs.",
    )
    suggestions: str | None = Field(default=None, max_length=10_000)


class AskIn(BaseModel):
    question: str = Field(min_length=1, max_length=2000)
    k: int | None = Field(default=None, ge=1, le=100)
    recipe: str | None = None
    chat_id: str | None = Field(
        default=None, max_length=100, description="Continue this chat (an answer's chat_id)."
    )
    # The filter, as `zettelgraph ask` takes it. All left out in a follow-up: the previous
    # turn's filter; any given (even []): exactly that filter.
    content: list[str] | None = Field(
        default=None, max_length=50, description="Content ids, id prefixes or titles."
    )
    kind: list[str] | None = Field(default=None, max_length=20, description="Content kinds.")
    author: list[str] | None = Field(default=None, max_length=20, description="Author names.")
    where: list[str] | None = Field(
        default=None,
        max_length=20,
        description="Places: pages=12-40, slides=3-5, turns=2-6, time=00:10:00-00:20:00.",
    )


class ChatOut(Open):
    chat_id: str
    turns: list[dict[str, Any]] = Field(description="Each turn as `POST /api/ask` returns it.")
