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
SAMPLING = Sampling(max_tokens=500, temperature=0.1)


class RepairInput(BaseModel):
    title: str
    concept: str
    analysis: str
    summary_short: str
    quotes: list[str]  # the texts of the quotes it cites
    wrong_language: list[str] = Field(default_factory=list)  # field names
    copies_quote: bool = False
    off_topic: bool = False  # it does not say what its quotes say
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


def messages(data: RepairInput) -> list[BaseMessage]:
    rules = RULES.get(data.language, RULES["en"]).format(
        example=EXAMPLE.get(data.language, ""), language=language_name(data.language)
    )
    problems = []
    if data.wrong_language:
        problems.append(f"not in {language_name(data.language)}: " + ", ".join(data.wrong_language))
    if data.off_topic:
        problems.append("it does not say what the quotes say: write the idea these quotes express")
    if data.copies_quote:
        problems.append("the concept copies its quote instead of explaining the idea")
    current = {
        "title": data.title,
        "concept": data.concept,
        "analysis": data.analysis,
        "summary_short": data.summary_short,
    }
    quotes = "\n".join(f"- {q}" for q in data.quotes)
    return [
        SystemMessage(content=rules),
        HumanMessage(
            content=f"Quotes:\n{quotes}\nConcept: {json.dumps(current, ensure_ascii=False)}\n"
            f"Problems: {'; '.join(problems)}"
        ),
    ]
