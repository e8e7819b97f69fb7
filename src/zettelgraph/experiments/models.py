"""Pure data of experiments: what the reader asks, what the documents are, what each tool
found. No I/O here.

An experiment is a question over what the reader has read ("how do Galdós and Cervantes use
*honra*?"): a focus term, a type, a set of contents. Tools (`experiments.tools`) read the store
and return typed results; the experiment workflow (`workflows/experiment/`) plans which tool
runs on which document, waits for the reader's approval, runs them and writes a cited report.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field

from zettelgraph.models import utcnow


class ExperimentType(StrEnum):
    """The four kinds of question, each with its own data needs and prompts."""

    TEMPORAL = "temporal"  # how the term's use changes with the contents' years
    CROSS_DOMAIN = "cross_domain"  # how it differs between fields, genres or authors
    DOCUMENT_ANALYSIS = "document_analysis"  # what several documents say, read in context
    SINGLE_DOCUMENT = "single_document"  # one document read in depth


# How the tools find the term: by stem, as full-text search does ("gobierno" finds
# "gobiernos"), or the very word, case and accents aside (the exact concordance).
TermMatch = Literal["stems", "exact"]


class FocusTerm(BaseModel):
    """The term the experiment follows, with the baseline meaning the reader gives."""

    term: str = Field(min_length=1, max_length=100)
    definition: str = Field(default="", max_length=1000)
    source: str = Field(default="", max_length=300, description="Where the definition is from.")
    domain: str = Field(default="", max_length=100)
    # Words that pin the baseline meaning (context anchors): whether they appear
    # near the term, document by document, is what shows a shift of meaning.
    anchors: list[str] = Field(default_factory=list, max_length=12)
    match: TermMatch = "stems"


class DocumentInfo(BaseModel):
    """The structured metadata of one content that prompts and tools see."""

    id: str
    title: str
    author: str | None = None
    year: int | None = None
    kind: str = "book"
    language: str | None = None
    domain: str | None = None
    # Where the document was published, its DOI and abstract (`ingest/bibliography.py`).
    journal: str | None = None
    doi: str | None = None
    abstract: str = ""
    passages: int = 0
    summary_short: str = ""


class Citation(BaseModel):
    """A passage a tool result rests on, citable as `[n]` in the report."""

    passage_id: str
    content_id: str
    title: str
    location: str = ""
    text: str = Field(max_length=800)


class ToolOutput(BaseModel):
    """The base of every tool's typed result."""

    count: int = Field(default=0, ge=0, description="The tool's headline number.")
    summary: str = Field(default="", max_length=500, description="One line a reader can read.")
    citations: list[Citation] = Field(default_factory=list, max_length=20)


class ToolRun(BaseModel):
    """One execution of one tool over one document (document tools) or over the documents
    the strategy gave it (corpus tools). A failed tool is a run with an `error`, not a crash
    of the experiment."""

    tool: str
    document_ids: list[str]
    started_at: datetime = Field(default_factory=utcnow)
    seconds: float = 0.0
    output: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None


class LLMCallRecord(BaseModel):
    """One LLM call of an experiment stage, for provenance."""

    name: str
    model: str
    started_at: datetime
    ended_at: datetime
    input_tokens: int = 0
    output_tokens: int = 0
    failed: bool = False


class ExperimentRecord(BaseModel):
    """What an experiment did, for provenance and the report."""

    id: str  # the run id, "exp-..."
    type: ExperimentType
    term: FocusTerm
    goal: str = ""
    documents: list[DocumentInfo] = Field(default_factory=list)
    status: str = ""
    created_at: datetime
    reviewed_at: datetime | None = None
    decision: str | None = None  # "approve" | "modify" | "reject"
    review_notes: str = ""
    # Content id -> tool names, as approved (or as proposed, before the review).
    strategy: dict[str, list[str]] = Field(default_factory=dict)
    tool_runs: list[ToolRun] = Field(default_factory=list)
    llm_calls: list[LLMCallRecord] = Field(default_factory=list)
    completed_at: datetime | None = None
    report_path: str | None = None
