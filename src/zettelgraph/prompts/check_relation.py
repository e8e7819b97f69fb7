"""The check of a proposed relation: does its type hold between the two ideas? Answered with
one token, yes or no, whose log-probabilities give the signal `stance` (guards/doubt.py).

The question names the type in words (the pack's phrase: "se opone a", "apoya") and shows
both statements, not only their titles: a small model relates titles by their words, and the
statements are what a reader compares.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

NAME = "check_relation"

RULES = {
    "es": "Eres un lector cuidadoso. Comparas dos ideas y respondes solo «sí» o «no».",
    "en": "You are a careful reader. You compare two ideas and answer only 'yes' or 'no'.",
}
QUESTION = {
    "es": "Idea A: «{source}»\nIdea B: «{target}»\n¿Es cierto que la idea A {phrase} la idea "
    "B? Responde no si hablan de cosas distintas. Responde sí o no.",
    "en": 'Idea A: "{source}"\nIdea B: "{target}"\nIs it true that idea A {phrase} idea '
    "B? Answer no if they are about different things. Answer yes or no.",
}


class RelationCheckInput(BaseModel):
    source: str = Field(min_length=1, description="Idea A: title and statement.")
    target: str = Field(min_length=1, description="Idea B: title and statement.")
    phrase: str = Field(min_length=1, description="The type in words: 'se opone a'.")
    language: str = "es"


def messages(data: RelationCheckInput) -> list[BaseMessage]:
    language = data.language if data.language in RULES else "en"
    return [
        SystemMessage(content=RULES[language]),
        HumanMessage(
            content=QUESTION[language].format(
                source=data.source, target=data.target, phrase=data.phrase
            )
        ),
    ]
