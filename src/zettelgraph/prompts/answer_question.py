"""`zettelgraph ask`: answer a question from retrieved passages, citing them.

The model answers in sentences, each naming the passages (q1, q2, ...) that support it; the
code turns those into [n] markers, where n is the passage's place in the search results. So
a marker can never point at a passage that was not shown, and a sentence the model could not
support with a passage is visible as such.

In a chat, the earlier turns come first, short and without their markers: they tell the model
what "it" or "and then?" refers to, never what to cite (only this turn's passages have ids).
"""

from __future__ import annotations

import re

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.prompts.ids import QuoteRef

NAME = "answer_question"
# Passage text shown per passage: enough for a paragraph of evidence, bounded for small models.
MAX_PASSAGE_CHARS = 1500
# Earlier turns of a chat shown: the latest few, each clipped; context, not evidence.
MAX_TURNS = 4
MAX_TURN_QUESTION_CHARS = 300
MAX_TURN_ANSWER_CHARS = 500
_MARKER = re.compile(r"\s*\[\d+\]")


class PromptTurn(BaseModel):
    """One earlier turn of a chat: what the reader asked and what was answered."""

    question: str
    answer: str


def turn_lines(turns: list[PromptTurn]) -> str:
    """The latest turns as "Reader: ... / Answer: ..." lines, markers dropped, clipped."""
    lines = []
    for turn in turns[-MAX_TURNS:]:
        answer = _MARKER.sub("", turn.answer).strip()
        lines.append(f"Reader: {_clip(turn.question, MAX_TURN_QUESTION_CHARS)}")
        lines.append(f"Answer: {_clip(answer, MAX_TURN_ANSWER_CHARS)}")
    return "\n".join(lines)


class PromptPassage(BaseModel):
    id: str  # local id q1.. in search-result order
    text: str
    source: str  # "Title, by Author, p. 12"
    context: str | None = None  # the start of the section the passage was cut from


class AnswerQuestionInput(BaseModel):
    question: str
    passages: list[PromptPassage]
    # Earlier turns of the chat, oldest first (empty for a first question), and the question
    # rewritten without them (what the passages were searched with), when it differs.
    history: list[PromptTurn] = Field(default_factory=list)
    standalone: str | None = None


class AnswerSentence(BaseModel):
    text: str = Field(min_length=1, max_length=800, description="One sentence of the answer.")
    sources: list[QuoteRef] = Field(
        default_factory=list, max_length=6, description="Ids of the passages it rests on."
    )


class AnswerQuestion(BaseModel):
    language: str = Field(
        min_length=2, max_length=8, description="ISO 639-1 code of the question's language."
    )
    answerable: bool = Field(description="True only if the passages contain what the answer says.")
    sentences: list[AnswerSentence] = Field(max_length=12)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def messages(data: AnswerQuestionInput) -> list[BaseMessage]:
    blocks = []
    for passage in data.passages:
        block = f"[{passage.id}] ({passage.source})\n{_clip(passage.text, MAX_PASSAGE_CHARS)}"
        if passage.context:
            block += f"\n(context: {_clip(passage.context, 300)})"
        blocks.append(block)
    evidence = "\n\n".join(blocks) or "(no passages found)"
    conversation = ""
    if data.history:
        conversation = f"Conversation so far:\n{turn_lines(data.history)}\n\n---\n"
    question = f"Question: {data.question}\n"
    if data.standalone:
        question += f"(That is: {data.standalone})\n"
    return [
        SystemMessage(
            content=(
                "You answer a reader's question using only the passages from their own reading "
                "that are given to you. Every sentence of the answer must rest on one or more "
                "of the passages, named by their ids (q1, q2, ...) in `sources`. Do not use "
                "outside knowledge. If the passages do not contain the answer, set answerable "
                "to false and write one sentence saying that the notes do not answer the "
                "question. Always write in the language of the question."
                + (
                    " The conversation so far is given only so you know what the question "
                    "refers to: it is not evidence, and nothing from it may be said unless "
                    "a passage given now supports it."
                    if data.history
                    else ""
                )
            )
        ),
        HumanMessage(
            content=(
                f"{conversation}Passages:\n{evidence}\n\n---\n{question}\n"
                "Give `language` (the question's language code), `answerable`, and the answer "
                "as `sentences`, each with its `sources` (passage ids exactly as written above)."
            )
        ),
    ]
