"""Proposal check repair: rewrite one concept that is in the wrong language or pastes its quote.

A focused call instead of a new extraction: the model sees one concept, the quotes it cites and
what is wrong, and writes only the reader-facing fields again. Small models do this well where
they fail at the whole extraction at once.
"""

from __future__ import annotations

import json

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.llm.structured import Sampling
from zettelgraph.prompts.quality import language_name

NAME = "repair_concept"
# A little warmer than extraction: a rewrite that repeats the first answer is no rewrite.
SAMPLING = Sampling(max_tokens=400, temperature=0.3)
# The later tries, for a rewrite that still copies, is still in another language or is still
# off its quotes: from the quotes alone and warmer still, since the first try's context led to
# the same answer. Each try is a fresh sample; the workflow keeps the one with fewest flaws.
RETRY_SAMPLING = Sampling(max_tokens=400, temperature=0.7)
# Four in all: a drop loses the quote too when no other concept cites it, and each extra try
# costs one call (about 11 s on the 1.5B model) only for a concept that would be dropped.
TRIES = (SAMPLING, RETRY_SAMPLING, RETRY_SAMPLING, RETRY_SAMPLING)


class RepairInput(BaseModel):
    title: str
    concept: str
    analysis: str
    summary_short: str
    quotes: list[str]  # the texts of the quotes it cites
    wrong_language: list[str] = Field(default_factory=list)  # field names
    copies_quote: bool = False
    long_title: bool = False  # the title is a sentence, not a name
    off_topic: bool = False  # it does not say what its quotes say
    retry: bool = False  # the first rewrite still had a flaw: write it afresh from the quotes
    language: str = "es"


class RepairedConcept(BaseModel):
    title: str = Field(min_length=1, max_length=120)
    concept: str = Field(min_length=1, max_length=1200)
    analysis: str = Field(max_length=1500)
    summary_short: str = Field(min_length=1, max_length=260, description="At most 30 words.")


EXAMPLE = {
    "es": (
        "Cita: Cada uno es hijo de sus obras.\n"
        'Concepto: {"title": "Each man is the son of his works", "concept": "Cada uno es hijo '
        'de sus obras.", "analysis": "The quote says people are their actions.", '
        '"summary_short": "People are their deeds."}\n'
        "Problemas: en inglés: title, analysis, summary_short; copia la cita.\n"
        "Respuesta: "
        + json.dumps(
            {
                "title": "Las obras definen a la persona",
                "concept": "Lo que alguien es no lo decide su origen sino lo que hace: cada "
                "persona se construye con sus actos.",
                "analysis": "Cervantes pone el mérito por encima del linaje, una idea "
                "moderna en una sociedad de hidalgos.",
                "summary_short": "Somos lo que hacemos, no de dónde venimos.",
            },
            ensure_ascii=False,
        )
    ),
}

RULES = {
    "es": "Corriges un concepto de Zettelkasten. Escribe de nuevo title, concept, analysis y "
    "summary_short: todo en español y con tus propias palabras, sin copiar la cita, "
    "conservando la idea.\nEjemplo.\n{example}",
    "en": "You fix one Zettelkasten concept. Write title, concept, analysis and summary_short "
    "again: all in {language}, in your own words, without copying the quote, keeping the idea.",
}


# For a concept that missed its quotes: the system prompt differs (nothing to keep), and the
# ask comes last, where a small model weighs it most. The worked example turns a quote that
# only narrates into the lesson it shows (those are the quotes a small model copies or misses);
# it sits in the system message, the stable prefix llama.cpp serves from its prompt cache.
FRESH_EXAMPLE = (
    "Ejemplo (de otro libro: no lo copies).\n"
    "Citas:\n- Llegó a la posada cuando ya habían cerrado, y durmió en el pajar sin quejarse, "
    "contento de tener un techo.\nRespuesta: "
    + json.dumps(
        {
            "title": "Conformarse con lo que hay",
            "concept": "Quien acepta lo que encuentra, en vez de exigir lo que esperaba, sufre "
            "menos y sabe agradecer lo poco.",
            "analysis": "Una escena menor muestra una actitud: la gratitud ante lo disponible.",
            "summary_short": "Aceptar lo disponible evita sufrir por lo que falta.",
        },
        ensure_ascii=False,
    )
)
FRESH_RULES = {
    "es": "Eres un experto en Zettelkasten: lees citas y escribes en español la idea que expresan."
    "\n" + FRESH_EXAMPLE,
    "en": "You are a Zettelkasten expert: you read quotes and write the idea they express.",
}
FRESH = {
    "es": "Escribe la idea que expresan estas citas, en español aunque las citas estén en otro "
    "idioma: title nombra en pocas palabras lo que dicen, con sus palabras clave; concept es "
    "la idea general, con otras palabras; analysis y summary_short, una frase cada uno.",
    "en": "Write the idea these quotes express, in {language}: title names in a few words what "
    "they say, with their key words; concept is the general idea, in other words; analysis "
    "and summary_short, one sentence each.",
}
# Added to the fresh ask when an earlier answer pasted the quote.
NO_COPY = {
    "es": " No repitas la frase de la cita: di qué enseña, sin sus nombres ni su escena.",
    "en": " Do not repeat the quote's sentence: say what it teaches, without its names or scene.",
}


# In the graph's language: a small model answers in the language it is spoken to.
PROBLEMS = {
    "es": {
        "language": "no está en español: ",
        "copy": "copia la cita: escribe la lección general de la cita, sin sus nombres, lugares "
        "ni escena, con otras palabras",
        "title": "title es una frase larga: nombra la idea en pocas palabras",
        "ask": "Escríbelo de nuevo, en español.",
    },
    "en": {
        "language": "not in {language}: ",
        "copy": "it copies its quote: write the general lesson of the quote, without its "
        "names, places or scene, in other words",
        "title": "title is a long sentence: name the idea in a few words",
        "ask": "Write it again, in {language}.",
    },
}


def messages(data: RepairInput) -> list[BaseMessage]:
    rules = RULES.get(data.language, RULES["en"]).format(
        example=EXAMPLE.get(data.language, ""), language=language_name(data.language)
    )
    words = PROBLEMS.get(data.language, PROBLEMS["en"])
    problems = []
    if data.wrong_language:
        problems.append(
            words["language"].format(language=language_name(data.language))
            + ", ".join(data.wrong_language)
        )
    if data.copies_quote:
        problems.append(words["copy"])
    if data.long_title:
        problems.append(words["title"])
    current = {
        "title": data.title,
        "concept": data.concept,
        "analysis": data.analysis,
        "summary_short": data.summary_short,
    }
    quotes = "\n".join(f"- {q}" for q in data.quotes)
    if data.off_topic or data.retry:
        # Showing the concept that missed its quote (or a rewrite that kept the flaw) anchors a
        # small model to the same answer: it writes the idea again from the quotes alone.
        ask = FRESH.get(data.language, FRESH["en"]).format(language=language_name(data.language))
        if data.retry and data.copies_quote:
            ask += NO_COPY.get(data.language, NO_COPY["en"])
        fresh = FRESH_RULES.get(data.language, FRESH_RULES["en"])
        return [SystemMessage(content=fresh), HumanMessage(content=f"Quotes:\n{quotes}\n{ask}")]
    return [
        SystemMessage(content=rules),
        HumanMessage(
            content=f"Quotes:\n{quotes}\nConcept: {json.dumps(current, ensure_ascii=False)}\n"
            f"Problems: {'; '.join(problems)}\n"
            + words["ask"].format(language=language_name(data.language))
        ),
    ]
