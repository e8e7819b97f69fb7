"""Experiment stage 5, synthesise: insights across the documents and how the term is used in
each group, every claim resting on numbered passages (the `synthesize` node).

As in `answer_question`, the model names passages by local id (q1, q2, ...) and the code turns
them into [n] markers, so a marker can only point at a passage the model was shown, and a
claim with no passage is dropped (precision over volume)."""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.experiments.models import ExperimentType, FocusTerm
from zettelgraph.llm.structured import Sampling
from zettelgraph.prompts.experiment_common import (
    TYPE_GUIDANCE,
    PromptDocument,
    as_json,
    documents_block,
    term_block,
)
from zettelgraph.prompts.ids import QuoteRef

NAME = "experiment_synthesis"
SAMPLING = Sampling(temperature=0.2, max_tokens=1400)
# Passage text shown per passage: the evidence, bounded for small context windows.
MAX_PASSAGE_CHARS = 600

# The questions every synthesis answers, then the type's own.
QUESTIONS: dict[ExperimentType, list[str]] = {
    ExperimentType.TEMPORAL: [
        "How does the usage differ from the baseline meaning?",
        "Which context anchors appear or disappear over time?",
        "Which new meanings emerge, and when?",
    ],
    ExperimentType.CROSS_DOMAIN: [
        "How does the meaning vary across domains or authors?",
        "Which context anchors are shared and which belong to one domain?",
    ],
    ExperimentType.DOCUMENT_ANALYSIS: [
        "What does each document say about the term, given its author and year?",
        "Where do the documents agree, and where do they differ?",
    ],
    ExperimentType.SINGLE_DOCUMENT: [
        "How does the document use the term, and with which ideas and people?",
        "Does the use stay the same through the document?",
    ],
}
COMMON_QUESTIONS = ["Does the usage agree with the baseline meaning, when one is given?"]


class PromptPassage(BaseModel):
    id: str  # q1, q2, ... in citation order
    document: str  # d1, d2, ...
    source: str  # "Title, Author (year), p. 12"
    text: str


class SynthesisInput(BaseModel):
    type: ExperimentType
    term: FocusTerm
    goal: str
    questions: list[str] = Field(default_factory=list)
    documents: list[PromptDocument]
    findings: list[str]  # one line per tool result, "[tool] d1: ..."
    groups: list[str]  # the groups the term-evolution table has a row for
    passages: list[PromptPassage]
    language: str = "es"


class Insight(BaseModel):
    text: str = Field(min_length=1, max_length=500, description="One claim, one or two sentences.")
    sources: list[QuoteRef] = Field(default_factory=list, max_length=4)


class GroupUsage(BaseModel):
    group: str = Field(min_length=1, max_length=80, description="A group named in `groups`.")
    usage: str = Field(min_length=1, max_length=300, description="How the term is used there.")
    sources: list[QuoteRef] = Field(default_factory=list, max_length=3)


class Synthesis(BaseModel):
    insights: list[Insight] = Field(max_length=6)
    evolution: list[GroupUsage] = Field(default_factory=list, max_length=10)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def messages(data: SynthesisInput) -> list[BaseMessage]:
    evidence = "\n\n".join(
        f"[{p.id}] {p.document}, {p.source}\n{_clip(p.text, MAX_PASSAGE_CHARS)}"
        for p in data.passages
    )
    request = {
        "experiment_type": data.type.value,
        "goal": data.goal,
        "focus_term": term_block(data.term),
        "documents": documents_block(data.documents),
        "questions": [*data.questions, *QUESTIONS[data.type], *COMMON_QUESTIONS],
        "tool_findings": data.findings,
        "groups": data.groups,
    }
    return [
        SystemMessage(
            content=(
                "You write the findings of a study of how a term is used in a reader's "
                f"documents. This is {TYPE_GUIDANCE[data.type]} Every claim must rest on the "
                "tool findings and on one or more of the numbered passages, named by their "
                "ids (q1, q2, ...) in `sources`; a claim without a passage will be dropped. "
                "Do not use outside knowledge. Write in the language with code "
                f"'{data.language}'."
            )
        ),
        HumanMessage(
            content=(
                f"{as_json(request)}\n\nPassages:\n{evidence or '(none)'}\n\n---\n"
                "Give `insights` (up to 6 claims that answer the goal and the questions, each "
                "with its `sources`) and `evolution`: for each group in `groups`, how the term "
                "is used there (`usage`, one sentence) with its `sources`."
            )
        ),
    ]
