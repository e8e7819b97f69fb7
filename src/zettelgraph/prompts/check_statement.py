"""The doubt check of a concept: does its statement say what its quote says? Answered with one
token, yes or no, whose log-probabilities give the signal `check` (guards/doubt.py).

Asked as a yes/no question rather than for a score: a small model's written numbers cluster on
a few values, while its probability of "sí" against "no" is a continuous measure.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

NAME = "check_statement"

RULES = {
    "es": "Eres un lector cuidadoso de textos clásicos. Respondes solo «sí» o «no».",
    "en": "You are a careful reader of classic texts. You answer only 'yes' or 'no'.",
}
QUESTION = {
    "es": "Cita: «{quote}»\nAfirmación: «{statement}»\n¿Dice la afirmación lo que dice la "
    "cita, sin inventar nada ni entenderla al revés? Responde sí o no.",
    "en": 'Quote: "{quote}"\nStatement: "{statement}"\nDoes the statement say what the '
    "quote says, inventing nothing and not reading it backwards? Answer yes or no.",
}


class CheckInput(BaseModel):
    quote: str = Field(min_length=1)
    statement: str = Field(min_length=1)
    language: str = "es"


def messages(data: CheckInput) -> list[BaseMessage]:
    language = data.language if data.language in RULES else "en"
    return [
        SystemMessage(content=RULES[language]),
        HumanMessage(content=QUESTION[language].format(quote=data.quote, statement=data.statement)),
    ]
