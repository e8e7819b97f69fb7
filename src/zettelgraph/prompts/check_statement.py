"""The doubt check of a concept: which of two statements says what its quote says, its own or
another concept's of the run? Answered with one letter, whose log-probabilities give the
signal `check` (guards/doubt.py): the chance given to the concept's own statement, asked in
both orders and averaged, so a preference for the first option cancels out.

Asked as a choice rather than a yes/no: the 1.5B model answers "sí" to nearly every
statement-and-quote pair (0.8 to 0.99 for misreadings and sound readings alike; its ranking
of them has an AUC of 0.64 on graded items), while choosing between two statements it has to
compare them (AUC 0.70 on the same items; docs/benchmarks.md).

When the small model wrote only titles (`small_model_task = titles`), a concept's statement is
its quote, which would always win: the choice is then between the two titles.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

NAME = "check_statement"
LETTERS = ("A", "B")

RULES = {
    "es": "Eres un lector cuidadoso de textos clásicos. Respondes solo con una letra: A o B.",
    "en": "You are a careful reader of classic texts. You answer with one letter only: A or B.",
}
QUESTION = {
    "es": "Cita: «{quote}»\n¿Cuál de estas dos afirmaciones dice lo que dice la cita?\n"
    "A) {a}\nB) {b}\nResponde A o B.",
    "en": 'Quote: "{quote}"\nWhich of these two statements says what the quote says?\n'
    "A) {a}\nB) {b}\nAnswer A or B.",
}
TITLE_QUESTION = {
    "es": "Cita: «{quote}»\n¿Cuál de estos dos títulos nombra la idea de la cita?\n"
    "A) {a}\nB) {b}\nResponde A o B.",
    "en": 'Quote: "{quote}"\nWhich of these two titles names the idea of the quote?\n'
    "A) {a}\nB) {b}\nAnswer A or B.",
}


class CheckInput(BaseModel):
    quote: str = Field(min_length=1)
    first: str = Field(min_length=1, description="Option A.")
    second: str = Field(min_length=1, description="Option B.")
    language: str = "es"
    titles: bool = Field(default=False, description="Options are titles, not statements.")


def messages(data: CheckInput) -> list[BaseMessage]:
    question = TITLE_QUESTION if data.titles else QUESTION
    return choice(question, data.language, quote=data.quote, a=data.first, b=data.second)


def choice(questions: dict[str, str], language: str, **fields: str) -> list[BaseMessage]:
    """A one-letter question in the language asked (English if there is none), filled in:
    the shape every A-or-B doubt check shares."""
    language = language if language in RULES else "en"
    return [
        SystemMessage(content=RULES[language]),
        HumanMessage(content=questions[language].format(**fields)),
    ]
