"""`zettelgraph ask`: answer a question from retrieved passages, citing them.

The model answers in sentences, each naming the passages (q1, q2, ...) that support it; the
code turns those into [n] markers, where n is the passage's place in the search results. So
a marker can never point at a passage that was not shown, and a sentence the model could not
support with a passage is visible as such.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.prompts.ids import QuoteRef

NAME = "answer_question"
# Passage text shown per passage: enough for a paragraph of evidence, bounded for small models.
MAX_PASSAGE_CHARS = 1500


class PromptPassage(BaseModel):
    id: str  # local id q1.. in search-result order
    text: str
    source: str  # "Title, by Author, p. 12"
    context: str | None = None  # the start of the section the passage was cut from


class AnswerQuestionInput(BaseModel):
    question: str
    passages: list[PromptPassage]


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
    return [
        SystemMessage(
            content=(
                "You answer a reader's question using only the passages from their own reading "
                "that are given to you. Every sentence of the answer must rest on one or more "
                "of the passages, named by their ids (q1, q2, ...) in `sources`. Do not use "
                "outside knowledge. If the passages do not contain the answer, set answerable "
                "to false and write one sentence saying that the notes do not answer the "
                "question. Always write in the language of the question."
            )
        ),
        HumanMessage(
            content=(
                f"Passages:\n{evidence}\n\n---\nQuestion: {data.question}\n\n"
                "Give `language` (the question's language code), `answerable`, and the answer "
                "as `sentences`, each with its `sources` (passage ids exactly as written above)."
            )
        ),
    ]
