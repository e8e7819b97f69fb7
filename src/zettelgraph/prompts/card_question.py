"""Learning items: one question, its short answer and a cloze deletion for one reviewed concept.

One call per concept gives two easy cards: a flashcard (question -> answer) and a cloze on the
reader's own quote (the words that carry the idea, hidden). The model sees the concept and up
to two of its quotes under short ids and names the quote its answer rests on, so the code can
check the answer against it. The instructions and the worked example come first and never
change within a run, so a server with a prompt cache (llama.cpp) reads them once.
"""

from __future__ import annotations

import json

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.llm.structured import Sampling
from zettelgraph.prompts.ids import QuoteRef
from zettelgraph.prompts.quality import language_name

NAME = "card_question"
# About 60 output tokens; the limit stops a small model that loses its way.
SAMPLING = Sampling(max_tokens=300, temperature=0.2)
# Quote text shown per quote: a document passage can be long; a card is about one idea.
MAX_QUOTE_CHARS = 700
MAX_QUOTES = 2


class PromptQuote(BaseModel):
    id: str  # local id, q1..
    text: str
    page: str | None = None


class CardQuestionInput(BaseModel):
    title: str
    concept: str
    summary_short: str = ""
    quotes: list[PromptQuote] = Field(max_length=MAX_QUOTES)
    language: str = "es"


class CardQuestion(BaseModel):
    question: str = Field(
        min_length=5,
        max_length=240,
        description="A question whose answer is the concept's idea, in the requested language. "
        "It must not contain the answer.",
    )
    answer: str = Field(
        min_length=1,
        max_length=160,
        description="The short answer: a few words, at most one sentence, in the requested "
        "language.",
    )
    quote: QuoteRef = Field(description="Id of the quote (q1, q2) the answer rests on.")
    cloze_words: str = Field(
        min_length=1,
        max_length=60,
        description="1 to 4 consecutive words copied exactly from that quote, the ones that "
        "carry the idea.",
    )


# From no book a reader is likely to bring, so a small model has nothing to copy from it.
EXAMPLE_INPUT = (
    "Concepto: Sin saber esperar no crece nada\n"
    "Lo que vale la pena necesita tiempo: quien exige resultados inmediatos abandona antes "
    "de obtenerlos.\n"
    "Citas:\n[q1] Quien no sabe esperar no verá crecer nada en su huerto. (p. 12)"
)
EXAMPLE_ANSWER = {
    "question": "¿Qué le falta a quien abandona antes de obtener resultados?",
    "answer": "Saber esperar: lo valioso necesita tiempo.",
    "quote": "q1",
    "cloze_words": "saber esperar",
}

RULES = {
    "es": """Escribes tarjetas de estudio a partir de una idea que un lector ha anotado.
Reglas:
- question: una pregunta cuya respuesta es la idea del concepto. Que se entienda sola, sin
  nombrar el libro, y que NO contenga la respuesta.
- answer: la respuesta, breve (unas palabras, como mucho una frase).
- quote: la cita (q1, q2) en la que se apoya la respuesta.
- cloze_words: de 1 a 4 palabras seguidas, copiadas tal cual de esa cita, que llevan la
  idea (no artículos ni preposiciones sueltas).
- Escribe question y answer en {language}, aunque la cita esté en otro idioma.
Ejemplo (de otro libro: no lo copies).
{example_input}
Respuesta:
{example_answer}""",
    "en": """You write study cards from an idea a reader noted.
Rules:
- question: a question whose answer is the concept's idea. It must stand on its own, without
  naming the book, and must NOT contain the answer.
- answer: the answer, short (a few words, at most one sentence).
- quote: the quote (q1, q2) the answer rests on.
- cloze_words: 1 to 4 consecutive words copied exactly from that quote, the ones that carry
  the idea (not articles or prepositions alone).
- Write question and answer in {language}, whatever the language of the quote.
Example (from another book, in Spanish: do not copy it; write yours in {language}).
{example_input}
Answer:
{example_answer}""",
}
FINAL = {
    "es": "\nEscribe question y answer en español; cloze_words, copiadas de la cita.",
    "en": "\nWrite question and answer in {language}; cloze_words copied from the quote.",
}


def _clip(text: str, limit: int = MAX_QUOTE_CHARS) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def messages(data: CardQuestionInput) -> list[BaseMessage]:
    language = language_name(data.language)
    rules = RULES.get(data.language, RULES["en"]).format(
        language=language,
        example_input=EXAMPLE_INPUT,
        example_answer=json.dumps(EXAMPLE_ANSWER, ensure_ascii=False),
    )
    quotes = "\n".join(
        f"[{q.id}] {_clip(q.text)}" + (f" (p. {q.page})" if q.page else "") for q in data.quotes
    )
    summary = f"\n{data.summary_short}" if data.summary_short else ""
    return [SystemMessage(content=rules), HumanMessage(content=_human(data, quotes, summary))]


def _human(data: CardQuestionInput, quotes: str, summary: str) -> str:
    labels = ("Concepto", "Citas") if data.language == "es" else ("Concept", "Quotes")
    final = FINAL.get(data.language, FINAL["en"]).format(language=language_name(data.language))
    # The reminder goes last, where a small model weighs it most.
    return f"{labels[0]}: {data.title}\n{data.concept}{summary}\n{labels[1]}:\n{quotes}\n{final}"
