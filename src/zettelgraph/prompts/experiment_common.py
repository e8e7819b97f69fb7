"""What the three experiment calls share: the documents and the term as structured metadata
(title, author, year, kind, domain, the term's definition and anchors, in the
prompt as data rather than as a preview), and the guidance of each experiment type."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from zettelgraph.experiments.models import ExperimentType, FocusTerm

DocumentRef = str  # a local id d1, d2, ... (`prompts.ids.LocalIds("d")`)
DOCUMENT_ID = r"^d[0-9]+$"

# What each type of experiment looks for; the same words steer the analysis, the strategy
# and the synthesis, so the three calls pull the same way.
TYPE_GUIDANCE: dict[ExperimentType, str] = {
    ExperimentType.TEMPORAL: (
        "a temporal experiment: how the use of the term changes with the documents' years. "
        "Compare periods in chronological order; say which meanings or companion words appear "
        "or disappear, and when."
    ),
    ExperimentType.CROSS_DOMAIN: (
        "a cross-domain experiment: how the term is used in different fields, genres or by "
        "different authors. Compare the groups; say which uses are shared and which belong "
        "to one domain."
    ),
    ExperimentType.DOCUMENT_ANALYSIS: (
        "a document analysis: what several documents say about the term, read with their "
        "author, year and kind. Compare the documents' positions and their context."
    ),
    ExperimentType.SINGLE_DOCUMENT: (
        "a single-document reading: how one document uses the term, section by section, "
        "what it associates it with and who it is said of."
    ),
}


class PromptDocument(BaseModel):
    """A document as the prompts see it: metadata, not a text preview."""

    id: DocumentRef
    title: str
    author: str | None = None
    year: int | None = None
    kind: str = "book"
    domain: str | None = None
    journal: str | None = None
    doi: str | None = None
    abstract: str = Field(default="", description="Cut to 600 characters.")
    passages: int = 0
    term_passages: int = Field(default=0, description="Passages that contain the term.")
    summary: str = ""


def term_block(term: FocusTerm) -> dict[str, Any]:
    block: dict[str, Any] = {"term": term.term}
    if term.definition:
        block["baseline_meaning"] = term.definition
    if term.source:
        block["source"] = term.source
    if term.domain:
        block["domain"] = term.domain
    if term.anchors:
        block["context_anchors"] = term.anchors
    return block


def documents_block(documents: list[PromptDocument]) -> list[dict[str, Any]]:
    return [d.model_dump(exclude_defaults=True, exclude_none=True) for d in documents]


def as_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1)
