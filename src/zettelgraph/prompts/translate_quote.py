"""Task `titles`: a quote in another language than the graph's, translated faithfully, so the
draft statement the reader rewrites is in the graph's language (the title is asked apart)."""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.llm.structured import Sampling
from zettelgraph.prompts.quality import language_name

NAME = "translate_quote"
# A quote of a book note rarely passes 150 words; the bound stops a model that loops.
MAX_TRANSLATION_CHARS = 1500
SAMPLING = Sampling(max_tokens=500, temperature=0.1)


class TranslateInput(BaseModel):
    quote: str
    language: str = "es"


class QuoteTranslation(BaseModel):
    translation: str = Field(min_length=1, max_length=MAX_TRANSLATION_CHARS)


RULES = {
    "es": "Traduces citas al español con fidelidad: el mismo sentido y las mismas imágenes, sin "
    "añadir, quitar ni explicar nada.",
    "en": "You translate quotes into {language} faithfully: the same meaning and the same "
    "images, adding, leaving out and explaining nothing.",
}
ASK = {
    "es": "Cita: {quote}\nEscribe translation: la cita en español.",
    "en": "Quote: {quote}\nWrite translation: the quote in {language}.",
}


def messages(data: TranslateInput) -> list[BaseMessage]:
    table = "es" if data.language == "es" else "en"
    name = language_name(data.language)
    return [
        SystemMessage(content=RULES[table].format(language=name)),
        HumanMessage(content=ASK[table].format(quote=data.quote, language=name)),
    ]
