"""Candidate concepts from one batch of quotes, each citing the quotes it came from.

The instructions come first and never change within a run, so a server with a prompt cache
(llama.cpp) reads them once; the quotes come last. A short worked example in the graph's
language shows a small model the three things it gets wrong most: its own words instead of
the quote's, one idea per concept, and the graph's language whatever the quote's.
"""

from __future__ import annotations

import json
from functools import partial
from itertools import groupby
from typing import Annotated, Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.llm.structured import Sampling
from zettelgraph.models.concepts import MAX_SYNONYMS
from zettelgraph.prompts.ids import QuoteRef
from zettelgraph.prompts.quality import language_name
from zettelgraph.prompts.small_tasks import (
    COMPACT_FINAL,
    EXAMPLE_GLOSS,
    OLD_KEY_WORDS,
    OLD_QUOTE_TEXT,
    OLD_STATEMENTS,
    OLD_TITLE,
    READING,
    STATEMENT_RULE,
)
from zettelgraph.prompts.source_reading import (
    HOW_TO_READ,
    PromptSection,
    SourceKind,
    section_header,
)
from zettelgraph.prompts.suggestions import suggestions_block
from zettelgraph.settings import SmallModelTask

NAME = "extract_concepts"
# About 150 tokens per concept; a batch of 40 quotes rarely gives more than a dozen.
SAMPLING = Sampling(max_tokens=1800, temperature=0.1)


class PromptQuote(BaseModel):
    id: str  # local id, q1..
    text: str
    section: str | None = None
    page: str | None = None
    # Shown to small models only (text.keywords.key_words); empty for a quote in another
    # language than the graph's, whose words would pull the title into that language.
    key_words: list[str] = Field(default_factory=list)
    # Shown under the quote when set: its modern gloss (task `gloss`) or its translation into
    # the graph's language (task `titles`, a quote in another language).
    reading: str = ""
    # The local id (s1..) of the document section it was cut from, when the call shows it.
    section_id: str | None = None


class ExtractConceptsInput(BaseModel):
    title: str
    author: str | None
    kind: SourceKind = "book"
    # A document's sections its passages were cut from, shown as context (never to small
    # models, whose every token counts); empty for book notes.
    sections: list[PromptSection] = Field(default_factory=list)
    quotes: list[PromptQuote]
    suggestions: str | None = None
    language: str = "es"
    compact: bool = False  # answer with CompactExtraction (small models)
    # What a small model writes for the quote (settings.small_model_task); compact answers only.
    task: SmallModelTask = "paraphrase"


class CandidateConcept(BaseModel):
    title: str = Field(min_length=1, max_length=120)
    concept: str = Field(min_length=1, max_length=1200, description="What the idea is.")
    analysis: str = Field(max_length=1500, description="Why it matters, how to read it.")
    summary_short: str = Field(min_length=1, max_length=260, description="At most 30 words.")
    source_quote_ids: list[QuoteRef] = Field(min_length=1, max_length=40)
    # Optional: the workflow fills a missing summary from the concept, so a small model can
    # spend its tokens on the fields a reader reads first.
    summary: str = Field(default="", max_length=900, description="At most 100 words.")
    rationale: str = Field(
        default="", max_length=600, description="Why these quotes form this concept."
    )
    synonyms: list[Annotated[str, Field(max_length=80)]] = Field(
        default_factory=list,
        max_length=MAX_SYNONYMS,
        description="Other names a reader may search this idea by.",
    )


class UnattributedQuote(BaseModel):
    """A quote the model found no idea in, and why: the reader sees the reason in the review
    instead of guessing whether the quote was skipped or read."""

    quote_id: QuoteRef
    reason: str = Field(default="", max_length=300, description="Why it gives no concept.")


class ExtractedConcepts(BaseModel):
    candidate_concepts: list[CandidateConcept] = Field(max_length=25)
    unattributed_quotes: list[UnattributedQuote] = Field(default_factory=list, max_length=60)
    extraction_notes: str = Field(
        default="", max_length=800, description="What the reader should know: doubts, choices."
    )


COMPACT_STATEMENT_CHARS = 320


# What a small model is asked for: a title and the idea, nothing else (docs/design.md,
# "Compact answers"). No analysis: the 1.5B model restated its concept there ("La frase
# sugiere que ..."), and it was a third of what it wrote. No summary_short: it wrote its concept
# there again, word for word; the workflow cuts it from the concept (`text.short_summary`). No
# quote ids when the call shows one quote: every concept is that quote's. Comments, not
# docstrings: a docstring would be the schema's description, read by the model in every prompt.
class OneQuoteConcept(BaseModel):
    title: str = Field(min_length=1, max_length=120)
    # Two or three sentences; the bound stops a model that loops, and the workflow drops the
    # sentence it cut (`text.tidy_statement`).
    concept: str = Field(min_length=1, max_length=COMPACT_STATEMENT_CHARS)


class CompactConcept(OneQuoteConcept):
    source_quote_ids: list[QuoteRef] = Field(min_length=1, max_length=4)


# One quote per call on small models: one idea from it (asked for two, the 1.5B model wrote the
# same statement under two titles), no notes. Every token it writes costs about 0.1 s on a
# laptop CPU.
class OneQuoteExtraction(BaseModel):
    candidate_concepts: list[OneQuoteConcept] = Field(max_length=1)


class CompactExtraction(BaseModel):
    candidate_concepts: list[CompactConcept] = Field(max_length=2)


# Task `titles`: a name for the quote and nothing else; the statement is the quote itself (or
# its translation), left for the reader to rewrite. Always one: a draft for every quote.
class OneQuoteTitle(BaseModel):
    title: str = Field(min_length=1, max_length=120)


class TitleExtraction(BaseModel):
    candidate_concepts: list[OneQuoteTitle] = Field(min_length=1, max_length=1)


COMPACT_SAMPLING = Sampling(max_tokens=450, temperature=0.1)
TITLE_SAMPLING = Sampling(max_tokens=60, temperature=0.1)


def task_of(data: ExtractConceptsInput) -> SmallModelTask:
    """The task the call is asked: the configured one on compact answers; `gloss` and `titles`
    work one quote at a time, so a call showing several paraphrases."""
    if not data.compact:
        return "paraphrase"
    if data.task in ("gloss", "titles") and len(data.quotes) != 1:
        return "paraphrase"
    return data.task


def sampling(data: ExtractConceptsInput) -> Sampling:
    if not data.compact:
        return SAMPLING
    return TITLE_SAMPLING if task_of(data) == "titles" else COMPACT_SAMPLING


def response_model(
    data: ExtractConceptsInput,
) -> (
    type[ExtractedConcepts]
    | type[CompactExtraction]
    | type[OneQuoteExtraction]
    | type[TitleExtraction]
):
    if not data.compact:
        return ExtractedConcepts
    if task_of(data) == "titles":
        return TitleExtraction
    return OneQuoteExtraction if len(data.quotes) == 1 else CompactExtraction


# From no book a reader is likely to bring, so a small model has nothing to copy from it.
EXAMPLE_QUOTES = [
    PromptQuote(
        id="q1",
        text="Quien no sabe esperar no verá crecer nada en su huerto.",
        page="12",
        key_words=["esperar", "crecer", "huerto"],
    ),
    PromptQuote(
        id="q2", text="Llegaron a la venta al caer la tarde.", key_words=["venta", "tarde"]
    ),
]
EXAMPLE_ANSWER: dict[str, list[dict[str, Any]]] = {
    "candidate_concepts": [
        {
            "title": "Sin saber esperar no crece nada",
            "concept": "Lo que vale la pena necesita tiempo: quien exige resultados inmediatos "
            "abandona antes de obtenerlos.",
            "analysis": "La imagen del huerto vale para cualquier aprendizaje lento.",
            "summary_short": "Sin paciencia no hay resultados que valgan la pena.",
            "source_quote_ids": ["q1"],
            "synonyms": ["Paciencia"],
        }
    ],
    "unattributed_quotes": [{"quote_id": "q2", "reason": "Solo narra una llegada."}],
}
OLD_QUOTE = PromptQuote(id="q1", text=OLD_QUOTE_TEXT, page="40", key_words=OLD_KEY_WORDS)

RULES = {
    "es": """Eres un experto en Zettelkasten. De las citas de un lector extraes las ideas
atómicas que contienen y dices de qué citas sale cada una.
Reglas:
- Un concepto es UNA idea, comprensible por sí sola, no un resumen de la cita.
- title: nombra en {title_words} lo que dice la cita, con sus palabras clave.{more_rules}
- Escribe todo en español, aunque la cita esté en otro idioma.
Ejemplo (de otro libro: no lo copies).
Citas:
{quotes}
Respuesta:
{answer}""",
    "en": """You are a Zettelkasten expert. From a reader's quotes you extract the atomic
ideas they contain and cite the quotes each comes from.
Rules:
- A concept is ONE idea, understandable on its own, not a summary of the quote.
- title: name in {title_words} what the quote says, with its key words.{more_rules}
- Write everything in {language}, whatever the language of the quote.
Example (from another book, in Spanish: do not copy it; write yours in {language}).
Quotes:
{quotes}
Answer:
{answer}""",
}


NO_CONCEPT_RULE = {
    True: "\n- Una cita que solo narra o describe no da concepto: {}.",
    False: "\n- A quote that only narrates or describes gives no concept: {}.",
}
NO_CONCEPT = {
    False: {
        "es": "ponla en unattributed_quotes y di por qué",
        "en": "list it in unattributed_quotes and say why",
    },
    True: {"es": "no escribas ninguno para ella", "en": "write none for it"},
}
# Only the full answer has notes and synonyms: the compact one (small models) keeps to the
# concepts.
NOTES_RULE = {
    "es": "\n- synonyms: otros nombres con que un lector buscaría la idea (pocos, o ninguno)."
    "\n- extraction_notes: lo que el lector deba saber (dudas, decisiones), o nada.",
    "en": "\n- synonyms: other names a reader would search the idea by (a few, or none)."
    "\n- extraction_notes: what the reader should know (doubts, choices), or nothing.",
}
# The compact answer (small models) has neither: the workflow cuts summary_short from concept.
SHORT_FIELDS = {
    False: {
        "es": "\n- analysis y summary_short: una frase corta cada uno.",
        "en": "\n- analysis and summary_short: one short sentence each.",
    },
    True: {"es": "", "en": ""},
}
# A small model wrote whole sentences as titles (twenty words, the quote's own), which became
# vault file names and cost a rewrite call each; a number it can count to keeps them names.
TITLE_WORDS = {
    False: {"es": "pocas palabras", "en": "a few words"},
    True: {"es": "2 a 6 palabras", "en": "2 to 6 words"},
}
KEY_WORDS = {"es": "Palabras clave", "en": "Key words"}
IDS_RULE = {
    "es": "\n- source_quote_ids: solo las citas (q1, q2...) que expresan esa idea.",
    "en": "\n- source_quote_ids: only the quotes (q1, q2...) that express that idea.",
}
FINAL = {
    False: {
        "es": "\nEscribe title, concept, analysis y summary_short en español, con tus palabras.",
        "en": "\nWrite title, concept, analysis and summary_short in {language}, in your own "
        "words.",
    },
    True: {
        "es": "\nEscribe title y concept en español, con tus palabras; title con una o dos "
        "palabras clave de la cita.",
        "en": "\nWrite title and concept in {language}, in your own words; title with one or "
        "two of the quote's key words.",
    },
}


def render_quotes(
    quotes: list[PromptQuote], language: str, key_words: bool, task: SmallModelTask = "paraphrase"
) -> str:
    """One quote a line, `[q1] text (p. 12)`, and under it its reading and its key words when
    asked for."""
    label = KEY_WORDS.get(language, KEY_WORDS["en"])
    reading = READING.get(task, {})
    lines = []
    for q in quotes:
        lines.append(f"[{q.id}] {q.text}" + (f" (p. {q.page})" if q.page else ""))
        if q.reading and reading:
            lines.append(f"     {reading.get(language, reading['en'])}: {q.reading}")
        if key_words and q.key_words:
            lines.append(f"     {label}: {', '.join(q.key_words)}")
    return "\n".join(lines)


def render_passages(data: ExtractConceptsInput, task: SmallModelTask) -> str:
    """The call's quotes; a document's under the section each was cut from, in reading order."""
    render = partial(render_quotes, language=data.language, key_words=data.compact, task=task)
    sections = {s.id: s for s in data.sections}
    if not sections:
        return render(data.quotes)
    blocks = []
    for section_id, group in groupby(data.quotes, key=lambda q: q.section_id):
        shown = sections.get(section_id or "")
        quotes = render(list(group))
        blocks.append(f"{section_header(shown)}\n{quotes}" if shown else quotes)
    return "\n".join(blocks)


def worked_example(
    task: SmallModelTask, one_quote: bool
) -> tuple[list[PromptQuote], dict[str, list[dict[str, Any]]]]:
    """The example quotes and answer a call shows, before the compact answer's fields are cut:
    a quote in older Spanish for the tasks that keep or explain its words."""
    if task in ("paraphrase", "gloss"):
        quotes = EXAMPLE_QUOTES[:1] if one_quote else EXAMPLE_QUOTES
        if task == "gloss":
            quotes = [quotes[0].model_copy(update={"reading": EXAMPLE_GLOSS}), *quotes[1:]]
        return quotes, EXAMPLE_ANSWER
    answer: dict[str, Any] = {"title": OLD_TITLE, "source_quote_ids": ["q1"]}
    if task in OLD_STATEMENTS:
        answer["concept"] = OLD_STATEMENTS[task]
    quotes = [OLD_QUOTE] if one_quote else [OLD_QUOTE, EXAMPLE_QUOTES[1]]
    return quotes, {"candidate_concepts": [answer]}


def messages(data: ExtractConceptsInput) -> list[BaseMessage]:
    compact, language, task = data.compact, data.language, task_of(data)
    one_quote = compact and len(data.quotes) == 1
    examples, answer = worked_example(task, one_quote)
    example: dict[str, object] = dict(answer)
    if compact:
        # No short summary; no ids either when the call shows one quote (nor the example's
        # second quote, which its answer would have to tell apart by id).
        left_out = {"analysis", "summary_short", "synonyms"}
        left_out |= {"source_quote_ids"} if one_quote else set()
        example = {
            "candidate_concepts": [
                {k: v for k, v in c.items() if k not in left_out}
                for c in answer["candidate_concepts"]
            ]
        }

    def pick(table: dict[bool, dict[str, str]]) -> str:
        return table[compact].get(language, table[compact]["en"])

    def final() -> str:
        table = COMPACT_FINAL.get(task) if compact else None
        return table.get(language, table["en"]) if table else pick(FINAL)

    statement = STATEMENT_RULE[task]
    # What concept is, then the other fields, the ids, the quotes with no idea and the notes.
    more_rules = "".join(
        (
            statement.get(language, statement["en"]).format(language=language_name(language)),
            pick(SHORT_FIELDS),
            "" if one_quote else IDS_RULE.get(language, IDS_RULE["en"]),
            # Task `titles` drafts every quote: the reader judges what each holds.
            "" if task == "titles" else NO_CONCEPT_RULE[language == "es"].format(pick(NO_CONCEPT)),
            "" if compact else NOTES_RULE.get(language, NOTES_RULE["en"]),
        )
    )
    rules = RULES.get(language, RULES["en"]).format(
        quotes=render_quotes(examples, language, key_words=compact, task=task),
        more_rules=more_rules,
        answer=json.dumps(example, ensure_ascii=False),
        language=language_name(language),
        title_words=pick(TITLE_WORDS),
    )
    # A blank line before them, as before the quotes.
    suggestions = suggestions_block(data.suggestions)
    suggestions = "\n" + suggestions if suggestions else ""
    quotes = render_passages(data, task)
    return [
        SystemMessage(content=rules),
        HumanMessage(
            content=f"Source: {data.title}"
            + (f", by {data.author}" if data.author else "")
            + f"\nWhat it is: {HOW_TO_READ[data.kind]}."
            + f"\nQuotes:\n{quotes}\n{suggestions}"
            # Last, where a small model weighs it most.
            + final().format(language=language_name(language))
        ),
    ]
