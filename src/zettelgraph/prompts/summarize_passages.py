"""One line per passage of a document (seed 004, stage 3, optional): what the passage says,
for a reader scanning a long document's passages (`ZETTELGRAPH_PASSAGE_SUMMARIES`).

One call reads a batch of passages, so a paper of 200 passages costs 10 small calls, asked of
the fast model: a line needs no reasoning.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.llm.structured import Sampling
from zettelgraph.prompts.ids import QuoteRef
from zettelgraph.prompts.quality import language_name

NAME = "summarize_passages"
# Passages per call: 20 passages of 256 tokens read in about 5,000 tokens, and their lines
# (about 25 tokens each) fit the answer budget below with room to spare.
BATCH = 20
LINE_CHARS = 200
SAMPLING = Sampling(max_tokens=1200, temperature=0.1)


class PromptPassage(BaseModel):
    id: str  # local id, q1..
    text: str


class SummarizePassagesInput(BaseModel):
    title: str
    passages: list[PromptPassage]
    language: str = "es"


class PassageLine(BaseModel):
    passage_id: QuoteRef
    summary: str = Field(min_length=1, max_length=LINE_CHARS, description="One line.")


class PassageLines(BaseModel):
    lines: list[PassageLine] = Field(max_length=BATCH)


def messages(data: SummarizePassagesInput) -> list[BaseMessage]:
    language = language_name(data.language)
    passages = "\n".join(f"[{p.id}] {p.text}" for p in data.passages)
    return [
        SystemMessage(
            content=(
                "For each passage of a document, write one line (at most 25 words) saying what "
                "it says: its claim, definition or finding, not 'this passage discusses'. Use "
                f"only the passage. Write in {language}. Answer with one line per passage id."
            )
        ),
        HumanMessage(content=f"Document: {data.title}\nPassages:\n{passages}"),
    ]
