"""What the reader asks of the graph: which passages a search may return, the passages it
found, and the answers given from them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from zettelgraph.models.base import Node, NodeLabel

PlaceUnit = Literal["page", "slide", "turn", "time"]


class PlaceRange(BaseModel):
    """A stretch of a source: pages, slides or turns (numbers), or a time span (seconds).

    Both ends are inclusive; None leaves that side open. A passage is inside when its own
    span overlaps the range."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    unit: PlaceUnit
    start: float | None = None
    end: float | None = None


class PassageFilter(BaseModel):
    """Which passages a search may return. Every criterion given must hold; within one,
    any of its values does. An empty filter admits every passage.

    `authors` are names, matched like `normalize_name` (case, accents, spacing); `kinds`
    are Content kinds (book, pdf, pptx, transcript...), matched case-insensitively."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    content_ids: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    places: tuple[PlaceRange, ...] = ()

    @property
    def active(self) -> bool:
        return bool(self.content_ids or self.kinds or self.authors or self.places)

    @property
    def by_content(self) -> bool:
        """Whether it narrows by Content (id, kind or author), not only by place."""
        return bool(self.content_ids or self.kinds or self.authors)


class SearchHit(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    label: NodeLabel
    score: float


class SearchResult(BaseModel):
    """One passage found by search, with everything its citation shows.

    `n` is its 1-based place in the results (the [n] an answer uses); `methods` says which
    searches found it (fulltext, vector, graph) and `method_scores` their raw scores.
    """

    model_config = ConfigDict(frozen=True)

    n: int = Field(ge=1)
    passage_id: str
    text: str
    score: float
    methods: list[str]
    method_scores: dict[str, float] = Field(default_factory=dict)
    content_id: str
    content_title: str
    content_kind: str = "book"
    author: str | None = None
    location: dict[str, Any] = Field(default_factory=dict)
    location_label: str = ""
    section_id: str | None = None
    section_title: str | None = None
    # The parent section's text: the passage in its context.
    context: str | None = None
    # Concepts this passage supports: [{"id": ..., "title": ...}].
    concepts: list[dict[str, str]] = Field(default_factory=list)

    def citation(self) -> dict[str, Any]:
        """What an answer stores per cited passage (the passage text stays in the graph)."""
        return {
            "n": self.n,
            "quote_id": self.passage_id,
            "content_id": self.content_id,
            "content_title": self.content_title,
            "author": self.author,
            "location": self.location_label,
            "score": round(self.score, 6),
            "methods": self.methods,
        }


class Answer(Node):
    """A question asked of the graph, the answer given, and the passages it cites.

    `citations` holds one entry per [n] marker the answer may use: n, quote_id, score and the
    retrieval methods that found the passage; each cited passage also gets a CITES relation.
    """

    question: str = Field(min_length=1, max_length=2000)
    answer: str
    answerable: bool
    language: str = ""
    model: str = ""
    recipe: str = ""
    citations: list[dict[str, Any]] = Field(default_factory=list)
    # A conversation: the turns of one chat share its id (answers stored before chats have
    # none). A follow-up is searched as `standalone_question`, its rewrite without the chat.
    chat_id: str | None = None
    turn: int = Field(default=1, ge=1)
    standalone_question: str = ""
    # The PassageFilter the passages were searched with (`PassageFilter.model_dump`).
    passage_filter: dict[str, Any] = Field(default_factory=dict)
