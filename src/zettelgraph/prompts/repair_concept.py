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
from zettelgraph.prompts.extract_concepts import COMPACT_STATEMENT_CHARS, KEY_WORDS
from zettelgraph.prompts.quality import language_name
from zettelgraph.settings import SmallModelTask

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
    # Small models: no summary_short asked for (cut from concept), and the quotes' key words
    # (text.keywords.key_words) shown for the title of a concept written afresh.
    compact: bool = False
    key_words: list[str] = Field(default_factory=list)
    # What the concept's statement is (settings.small_model_task): a rewrite keeps to it, so an
    # extractive statement is rewritten extractive, and a `titles` draft gets a new title only.
    task: SmallModelTask = "paraphrase"

    @property
    def kind(self) -> SmallModelTask:
        """The task a compact rewrite follows; `gloss` concepts are ideas, rewritten as such."""
        if not self.compact or self.task == "gloss":
            return "paraphrase"
        return self.task


# What a small model writes again, as at extraction: a title and the idea; the workflow cuts
# summary_short from the concept.
class CompactRepair(BaseModel):
    title: str = Field(min_length=1, max_length=120)
    concept: str = Field(min_length=1, max_length=COMPACT_STATEMENT_CHARS)


class RepairedConcept(CompactRepair):
    concept: str = Field(min_length=1, max_length=1200)
    analysis: str = Field(max_length=1500)
    summary_short: str = Field(min_length=1, max_length=260, description="At most 30 words.")


# Task `titles`: the statement is the reader's draft; a rewrite names it again.
class TitleRepair(BaseModel):
    title: str = Field(min_length=1, max_length=120)


def response_model(data: RepairInput) -> type[CompactRepair] | type[TitleRepair]:
    if data.kind == "titles":
        return TitleRepair
    return CompactRepair if data.compact else RepairedConcept


def _compact_fields(
    answer: dict[str, str], compact: bool, kind: SmallModelTask = "paraphrase"
) -> dict[str, str]:
    """The fields a compact answer has: title and concept (title only for `titles`)."""
    kept = ("title",) if kind == "titles" else ("title", "concept")
    return {k: v for k, v in answer.items() if not compact or k in kept}


EXAMPLE_FIX = {
    "title": "Each man is the son of his works",
    "concept": "Cada uno es hijo de sus obras.",
    "analysis": "The quote says people are their actions.",
    "summary_short": "People are their deeds.",
}
EXAMPLE_FIXED = {
    "title": "Las obras definen a la persona",
    "concept": "Lo que alguien es no lo decide su origen sino lo que hace: cada persona se "
    "construye con sus actos.",
    "analysis": "Cervantes pone el mérito por encima del linaje, una idea moderna en una "
    "sociedad de hidalgos.",
    "summary_short": "Somos lo que hacemos, no de dónde venimos.",
}


# The same fix for the statements that keep or explain the quote's words (the statement above
# is the quote pasted whole), and for a `titles` draft, whose title alone is rewritten.
TASK_FIXED = {
    "extractive": {"title": "Hijo de sus obras", "concept": "Cada persona es fruto de sus obras."},
    "meaning": {
        "title": "Hijo de sus obras",
        "concept": "Cada persona es el resultado de lo que hace, no de su origen.",
    },
    "titles": {"title": "Hijo de sus obras"},
}
TASK_PROBLEMS = {"extractive": "; pega la cita entera", "meaning": "; pega la cita entera"}


def example(language: str, compact: bool, kind: SmallModelTask = "paraphrase") -> str:
    """The worked fix, in Spanish only (other languages get none)."""
    if language != "es":
        return ""
    english = "title" if compact else "title, analysis, summary_short"
    fixed = TASK_FIXED.get(kind, EXAMPLE_FIXED)
    copy = TASK_PROBLEMS.get(kind, "" if kind == "titles" else "; copia la cita")
    return (
        "Cita: Cada uno es hijo de sus obras.\n"
        f"Concepto: {json.dumps(_compact_fields(EXAMPLE_FIX, compact, kind), ensure_ascii=False)}"
        f"\nProblemas: en inglés: {english}{copy}.\n"
        f"Respuesta: {json.dumps(_compact_fields(fixed, compact, kind), ensure_ascii=False)}"
    )


FIELDS = {False: "title, concept, analysis y summary_short", True: "title y concept"}
FIELDS_EN = {
    False: "title, concept, analysis and summary_short",
    True: "title and concept",
}
RULES = {
    "es": "Corriges un concepto de Zettelkasten. Escribe de nuevo {fields}: todo en español y "
    "con tus propias palabras, sin copiar la cita, conservando la idea.\nEjemplo.\n{example}",
    "en": "You fix one Zettelkasten concept. Write {fields} again: all in {language}, in your "
    "own words, without copying the quote, keeping the idea.",
}
# What the statement is when it keeps or explains the quote's words (extraction's rule).
TASK_STATEMENT = {
    "extractive": {
        "es": "concept dice lo que afirma la cita, en una o dos frases de español actual, con "
        "sus palabras que sigan vigentes y sin añadir nada",
        "en": "concept says what the quote states, in one or two sentences of plain modern "
        "{language}, with its words that are still current, adding nothing",
    },
    "meaning": {
        "es": "concept dice lo que quiere decir la cita, en una o dos frases de español actual, "
        "explicando sus palabras anticuadas y sin añadir nada",
        "en": "concept says what the quote means, in one or two sentences of plain modern "
        "{language}, explaining its old words, adding nothing",
    },
    "titles": {
        "es": "concept no se toca: es el borrador del lector",
        "en": "concept stays: it is the reader's draft",
    },
}
TASK_RULES = {
    "es": "Corriges un concepto de Zettelkasten. Escribe de nuevo {fields}, todo en español "
    "actual: title nombra la idea en pocas palabras; {statement}.\nEjemplo.\n{example}",
    "en": "You fix one Zettelkasten concept. Write {fields} again, all in plain modern "
    "{language}: title names the idea in a few words; {statement}.",
}


# For a concept that missed its quotes: the system prompt differs (nothing to keep), and the
# ask comes last, where a small model weighs it most. The worked example turns a quote that
# only narrates into the lesson it shows (those are the quotes a small model copies or misses),
# its title naming it with two of the quote's key words, as the extraction prompt's does; it
# sits in the system message, the stable prefix llama.cpp serves from its prompt cache.
FRESH_QUOTE = (
    "Llegó a la posada cuando ya habían cerrado, y durmió en el pajar sin quejarse, contento "
    "de tener un techo."
)
FRESH_KEY_WORDS = ["posada", "cerrado", "pajar", "quejarse", "contento", "techo"]
FRESH_ANSWER = {
    "title": "Contento con tener un techo",
    "concept": "Quien acepta lo que encuentra, en vez de exigir lo que esperaba, sufre menos y "
    "sabe agradecer lo poco.",
    "analysis": "Una escena menor muestra una actitud: la gratitud ante lo disponible.",
    "summary_short": "Aceptar lo disponible evita sufrir por lo que falta.",
}


FRESH_TASK_ANSWERS = {
    "extractive": {
        "title": "Contento con tener un techo",
        "concept": "Durmió en el pajar sin quejarse, contento de tener al menos un techo.",
    },
    "meaning": {
        "title": "Contento con tener un techo",
        "concept": "Aunque llegó tarde y solo pudo dormir en el pajar, no se quejó: le bastaba "
        "con tener un techo.",
    },
    "titles": {"title": "Contento con tener un techo"},
}


def fresh_rules(language: str, compact: bool, kind: SmallModelTask = "paraphrase") -> str:
    if language != "es":
        return "You are a Zettelkasten expert: you read quotes and write the idea they express."
    key_words = f"{KEY_WORDS['es']}: {', '.join(FRESH_KEY_WORDS)}\n" if compact else ""
    fresh = FRESH_TASK_ANSWERS.get(kind, FRESH_ANSWER)
    answer = json.dumps(_compact_fields(fresh, compact, kind), ensure_ascii=False)
    return (
        "Eres un experto en Zettelkasten: lees citas y escribes en español la idea que expresan."
        "\nEjemplo (de otro libro: no lo copies).\n"
        f"Citas:\n- {FRESH_QUOTE}\n{key_words}Respuesta: {answer}"
    )


FRESH = {
    "es": "Escribe la idea que expresan estas citas, en español aunque las citas estén en otro "
    "idioma: title nombra en pocas palabras lo que dicen, con {title_words}; concept es "
    "la idea general, con otras palabras{short}.",
    "en": "Write the idea these quotes express, in {language}: title names in a few words what "
    "they say, with {title_words}; concept is the general idea, in other words{short}.",
}
FRESH_SHORT = {
    "es": {False: "; analysis y summary_short, una frase cada uno", True: ""},
    "en": {False: "; analysis and summary_short, one sentence each", True: ""},
}
TITLE_WORDS = {
    "es": {False: "sus palabras clave", True: "una o dos de sus palabras clave"},
    "en": {False: "their key words", True: "one or two of their key words"},
}
FRESH_TASK = {
    "es": "Escribe la idea que expresan estas citas, en español aunque las citas estén en otro "
    "idioma: title nombra en pocas palabras lo que dicen, con {title_words}; {statement}.",
    "en": "Write the idea these quotes express, in {language}: title names in a few words what "
    "they say, with {title_words}; {statement}.",
}
FRESH_TITLE = {
    "es": "Nombra en español la idea de estas citas: title, de 2 a 6 palabras, con {title_words}.",
    "en": "Name the idea of these quotes in {language}: title, 2 to 6 words, with {title_words}.",
}
# Added to the fresh ask when an earlier answer pasted the quote.
NO_COPY = {
    "es": " No repitas la frase de la cita: di qué enseña, sin sus nombres ni su escena.",
    "en": " Do not repeat the quote's sentence: say what it teaches, without its names or scene.",
}
NO_WHOLE_COPY = {
    "es": " No pegues la cita entera: di solo lo esencial, en español actual.",
    "en": " Do not paste the whole quote: say only what matters, in plain modern {language}.",
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
# The copy problem of a statement that keeps its quote's words: only a paste of the whole quote.
WHOLE_COPY = {
    "es": "pega la cita entera: di en una o dos frases de español actual lo esencial",
    "en": "it pastes the whole quote: say what matters in one or two sentences of plain "
    "modern {language}",
}


def messages(data: RepairInput) -> list[BaseMessage]:
    language, compact, kind = data.language, data.compact, data.kind
    name = language_name(language)
    table = "es" if language == "es" else "en"
    statement = TASK_STATEMENT[kind][table].format(language=name) if kind in TASK_STATEMENT else ""
    quotes = "\n".join(f"- {q}" for q in data.quotes)
    if data.off_topic or data.retry:
        # Showing the concept that missed its quote (or a rewrite that kept the flaw) anchors a
        # small model to the same answer: it writes the idea again from the quotes alone.
        fresh = {"paraphrase": FRESH, "titles": FRESH_TITLE}.get(kind, FRESH_TASK)
        ask = fresh[table].format(
            language=name,
            title_words=TITLE_WORDS[table][compact and bool(data.key_words)],
            short=FRESH_SHORT[table][compact],
            statement=statement,
        )
        if data.retry and data.copies_quote:
            ask += (NO_COPY if kind == "paraphrase" else NO_WHOLE_COPY)[table].format(language=name)
        if compact and data.key_words:
            quotes += f"\n{KEY_WORDS[table]}: {', '.join(data.key_words)}"
        return [
            SystemMessage(content=fresh_rules(language, compact, kind)),
            HumanMessage(content=f"Quotes:\n{quotes}\n{ask}"),
        ]
    words = PROBLEMS.get(language, PROBLEMS["en"])
    problems = []
    if data.wrong_language:
        # A compact answer has a title and a concept: its short summary is cut from the concept.
        shown = ("title",) if kind == "titles" else ("title", "concept")
        wrong = [f for f in data.wrong_language if not compact or f in shown]
        problems.append(words["language"].format(language=name) + ", ".join(wrong or [shown[-1]]))
    if data.copies_quote:
        copy = words["copy"] if kind == "paraphrase" else WHOLE_COPY[table]
        problems.append(copy.format(language=name))
    if data.long_title:
        problems.append(words["title"])
    current = {
        "title": data.title,
        "concept": data.concept,
        "analysis": data.analysis,
        "summary_short": data.summary_short,
    }
    fields = (FIELDS if language == "es" else FIELDS_EN)[compact]
    table_rules = RULES if kind == "paraphrase" else TASK_RULES
    rules = table_rules.get(language, table_rules["en"])
    rules = rules.format(
        example=example(language, compact, kind),
        language=name,
        fields="title" if kind == "titles" else fields,
        statement=statement,
    )
    return [
        SystemMessage(content=rules),
        HumanMessage(
            content=f"Quotes:\n{quotes}\n"
            f"Concept: {json.dumps(_compact_fields(current, compact, kind), ensure_ascii=False)}\n"
            f"Problems: {'; '.join(problems)}\n" + words["ask"].format(language=name)
        ),
    ]
