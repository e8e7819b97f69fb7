"""Task `gloss`, call A: what one quote means, in plain modern words, before its idea is written.

The 1.5B model misreads older Spanish when asked straight for a general idea: period words
taken in their modern sense, similes and proverbs read literally, meaning inverted. Asked first
only to say what the quote means, the idea is then written from that reading (call B,
`extract_concepts` with the gloss under the quote). The workflow checks the gloss against the
quote with the embedder before it is used (`workflows/concept_extraction/small_tasks.py`).
"""

from __future__ import annotations

import json

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.llm.structured import Sampling
from zettelgraph.prompts.extract_concepts import COMPACT_STATEMENT_CHARS
from zettelgraph.prompts.quality import language_name
from zettelgraph.prompts.small_tasks import OLD_QUOTE_TEXT, OLD_STATEMENTS

NAME = "gloss_quote"
# One or two sentences; the retry, for a gloss too far from its quote, is a fresh sample.
SAMPLING = Sampling(max_tokens=200, temperature=0.1)
RETRY_SAMPLING = Sampling(max_tokens=200, temperature=0.7)


class GlossInput(BaseModel):
    title: str
    author: str | None
    quote: str
    language: str = "es"


class QuoteGloss(BaseModel):
    gloss: str = Field(min_length=1, max_length=COMPACT_STATEMENT_CHARS)


RULES = {
    "es": """Lees citas de libros, a menudo antiguos, y dices en español actual y sencillo qué
significan.
Reglas:
- gloss: una o dos frases que digan lo que quiere decir la cita.
- Explica sus palabras anticuadas con palabras de hoy.
- Una comparación sigue siendo una comparación y una ironía una ironía: no las leas al pie de
  la letra ni les des la vuelta.
- No añadas nada que la cita no diga. Una cita en otro idioma: di su sentido en español.
Ejemplo (de otro libro: no lo copies).
Cita: {quote}
Respuesta: {answer}""",
    "en": """You read quotes from books, often old ones, and say in plain modern {language}
what they mean.
Rules:
- gloss: one or two sentences saying what the quote means.
- Explain its old words with today's.
- A simile stays a simile and irony stays irony: do not read them literally or invert them.
- Add nothing the quote does not say. A quote in another language: give its meaning in
  {language}.""",
}
# The book, the quote and the ask, last, where a small model weighs it most.
ASK = {
    "es": "Fuente: {source}\nCita: {quote}\nEscribe gloss: lo que quiere decir la cita, en "
    "español actual.",
    "en": "Source: {source}\nQuote: {quote}\nWrite gloss: what the quote means, in plain "
    "modern {language}.",
}


def messages(data: GlossInput) -> list[BaseMessage]:
    table = "es" if data.language == "es" else "en"
    name = language_name(data.language)
    answer = json.dumps({"gloss": OLD_STATEMENTS["meaning"]}, ensure_ascii=False)
    by = {"es": ", de ", "en": ", by "}[table]
    source = data.title + (f"{by}{data.author}" if data.author else "")
    return [
        SystemMessage(
            content=RULES[table].format(quote=OLD_QUOTE_TEXT, answer=answer, language=name)
        ),
        HumanMessage(content=ASK[table].format(source=source, quote=data.quote, language=name)),
    ]
