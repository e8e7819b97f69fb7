"""What the tools return: typed results, so a client gets both the JSON (structured content,
with its schema in the tool listing) and the same as text for models that read only text.

Every passage carries its citation (source, author, place) and the URI of its source, so an
assistant can say where a sentence came from and read on.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from zettelgraph.models import SearchResult

CONCEPT_URI = "zettelgraph://concepts/{}"
CONTENT_URI = "zettelgraph://contents/{}"


def cite(title: str | None, author: str | None, place: str | None) -> str:
    """How a passage is cited: "Meditations, Marcus Aurelius, Book II, p. 11"."""
    return ", ".join(part for part in (title, author, place) if part)


class ConceptRef(BaseModel):
    id: str
    title: str


class Passage(BaseModel):
    """A passage of something the reader read, with its citation."""

    n: int | None = Field(default=None, description="Its [n] in the results, when ranked.")
    passage_id: str
    text: str
    citation: str = Field(description="Source, author and place, as a citation shows them.")
    content_id: str
    content_title: str | None = None
    author: str | None = None
    location: str = ""
    source_uri: str = Field(description="The source as a resource: read it for the rest.")
    score: float | None = None
    methods: list[str] = Field(default_factory=list, description="Searches that found it.")
    concepts: list[ConceptRef] = Field(
        default_factory=list, description="Approved concepts this passage supports."
    )
    cited: bool | None = Field(default=None, description="For ask: whether the answer cites it.")

    @classmethod
    def of_result(cls, result: SearchResult, cited: bool | None = None) -> Passage:
        return cls(
            n=result.n,
            passage_id=result.passage_id,
            text=result.text,
            citation=cite(result.content_title, result.author, result.location_label),
            content_id=result.content_id,
            content_title=result.content_title,
            author=result.author,
            location=result.location_label,
            source_uri=CONTENT_URI.format(result.content_id),
            score=round(result.score, 6),
            methods=list(result.methods),
            concepts=[ConceptRef(id=c["id"], title=c["title"]) for c in result.concepts],
            cited=cited,
        )

    @classmethod
    def of_view(cls, view: dict[str, Any]) -> Passage:
        """From `services.browse.passage_view`."""
        return cls(
            passage_id=view["id"],
            text=view["text"],
            citation=cite(view["content"], view["author"], view["location_label"]),
            content_id=view["content_id"],
            content_title=view["content"],
            author=view["author"],
            location=view["location_label"] or "",
            source_uri=CONTENT_URI.format(view["content_id"]),
        )


class SearchOut(BaseModel):
    query: str
    passages: list[Passage]


class AskOut(BaseModel):
    answer_id: str
    question: str
    answer: str = Field(description="Each sentence ends with the [n] of the passages it uses.")
    answerable: bool = Field(description="False: the reader's passages do not answer it.")
    language: str
    passages: list[Passage] = Field(description="The passages given to the model; [n] is n.")
    warnings: list[str] = Field(default_factory=list)
    chat_id: str = Field(default="", description="Give it to `ask` to ask a follow-up.")
    turn: int = Field(default=1, description="This answer's place in its chat.")


class ConceptRow(BaseModel):
    id: str
    title: str
    summary_short: str
    relations: int
    quotes: int
    uri: str


class ConceptList(BaseModel):
    total: int = Field(description="Concepts matching, before the limit.")
    concepts: list[ConceptRow]


class ContentRow(BaseModel):
    id: str
    title: str
    author: str | None
    kind: str
    passages: int
    concepts_extracted: bool
    summary_short: str
    uri: str


class ContentList(BaseModel):
    contents: list[ContentRow]


class PassageInContext(BaseModel):
    before: list[Passage] = Field(description="The passages read just before it, in order.")
    passage: Passage
    after: list[Passage] = Field(description="The passages read just after it, in order.")


class RelationOut(BaseModel):
    direction: Literal["out", "in"] = Field(
        description="out: this concept -TYPE-> other; in: other -TYPE-> this concept."
    )
    type: str
    other_id: str
    other_title: str
    explanation: str = ""
    inferred: bool = Field(description="Stored as the reverse of a relation stated the other way.")


class ConceptOut(BaseModel):
    id: str
    title: str
    concept: str
    analysis: str
    summary: str
    summary_short: str
    language: str
    synonyms: list[str] = Field(default_factory=list, description="Other names it goes by.")
    first_appearance: str = Field(
        default="", description="Where in its source the idea first appears (page, slide...)."
    )
    uri: str
    relations: list[RelationOut]
    quotes: list[Passage] = Field(description="The passages this concept is drawn from.")
    run_id: str | None = Field(default=None, description="The run whose approval wrote it.")


class GraphNode(BaseModel):
    id: str
    title: str
    kind: Literal["concept", "entity"]
    type: str
    hops: int = Field(description="Relations between it and the concept asked about.")
    summary_short: str


class GraphEdge(BaseModel):
    source: str
    target: str
    type: str
    explanation: str = ""


class Neighbourhood(BaseModel):
    centre: ConceptRef
    nodes: list[GraphNode]
    edges: list[GraphEdge]


class FileProblem(BaseModel):
    path: str
    message: str


class IngestedContent(BaseModel):
    id: str
    title: str
    author: str | None = None
    kind: str
    passages: int
    passages_added: int
    processed: bool = Field(description="True when concepts were already extracted from it.")
    uri: str
    warnings: list[str] = Field(default_factory=list)
    cards_proposed: int | None = Field(
        default=None, description="Cards proposed from its passages (asked with `cards`)."
    )


class IngestOut(BaseModel):
    contents: list[IngestedContent]
    errors: list[FileProblem]
    skipped: list[FileProblem]
    next_step: str


class PendingReview(BaseModel):
    run_id: str
    kind: Literal["concepts", "graph"]
    content_id: str | None
    title: str | None
    proposed: int = Field(description="Concepts (or entities, for a graph run) proposed.")
    relations: int
    warnings: int
    feedback_rounds: int
    waiting_seconds: float | None


class PendingReviews(BaseModel):
    runs: list[PendingReview]
    approve_allowed: bool = Field(description="Whether this server's approve_run tool exists.")
    how_to_review: str


class ProposedConcept(BaseModel):
    title: str
    summary_short: str
    quotes: int


class RunOut(BaseModel):
    run_id: str
    status: str = Field(description="awaiting_review, committed, aborted, skipped, failed, ...")
    started: bool = Field(description="False: the content already had this open run.")
    content_id: str | None
    title: str | None
    proposed: list[ProposedConcept] = Field(default_factory=list)
    relations: int = 0
    committed_concepts: int = 0
    warnings: list[str] = Field(default_factory=list)
    next_step: str
