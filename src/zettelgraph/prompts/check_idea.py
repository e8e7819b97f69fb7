"""The doubt check of a concept's quotes: do they state an idea (a lesson, an opinion, a maxim)
or tell events and describe people? Answered with one letter, both orders averaged as in
`check_statement`; the chance given to "an idea" is the signal `idea` (guards/doubt.py).

A quote that only narrates (a novel's opening, a character sketch, a line of dialogue) gives
no concept a grader keeps, whatever the title: a third of the drops of the small model's
`titles` drafts on the development notes were such quotes (docs/benchmarks.md).
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage
from pydantic import BaseModel, Field

from zettelgraph.prompts.check_statement import choice

NAME = "check_idea"

OPTIONS = {
    "es": (
        "enuncia una idea general: una enseñanza, una opinión, una máxima",
        "cuenta hechos, describe a alguien o es un diálogo sin idea general",
    ),
    "en": (
        "states a general idea: a lesson, an opinion, a maxim",
        "tells events, describes someone, or is dialogue with no general idea",
    ),
}
QUESTION = {
    "es": "Cita: «{quote}»\n¿Qué hace esta cita?\nA) {a}\nB) {b}\nResponde A o B.",
    "en": 'Quote: "{quote}"\nWhat does this quote do?\nA) {a}\nB) {b}\nAnswer A or B.',
}


class IdeaInput(BaseModel):
    quote: str = Field(min_length=1)
    idea_first: bool = Field(description="The 'idea' option is A (else B).")
    language: str = "es"


def messages(data: IdeaInput) -> list[BaseMessage]:
    idea, story = OPTIONS[data.language if data.language in OPTIONS else "en"]
    first, second = (idea, story) if data.idea_first else (story, idea)
    return choice(QUESTION, data.language, quote=data.quote, a=first, b=second)
