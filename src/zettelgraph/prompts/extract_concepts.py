"""Call 1.1a: candidate concepts from one batch of quotes, each citing the quotes it came from.

The instructions come first and never change within a run, so a server with a prompt cache
(llama.cpp) reads them once; the quotes come last. A short worked example in the graph's
language shows a small model the three things it gets wrong most: its own words instead of
the quote's, one idea per concept, and the graph's language whatever the quote's.
"""

from __future__ import annotations

import json

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.llm.structured import Sampling
from zettelgraph.prompts.ids import QuoteRef
from zettelgraph.prompts.quality import language_name

NAME = "extract_concepts"
# About 150 tokens per concept; a batch of 40 quotes rarely gives more than a dozen.
SAMPLING = Sampling(max_tokens=1800, temperature=0.1)


class PromptQuote(BaseModel):
    id: str  # local id, q1..
    text: str
    section: str | None = None
    page: str | None = None


class ExtractConceptsInput(BaseModel):
    title: str
    author: str | None
    quotes: list[PromptQuote]
    suggestions: str | None = None
    language: str = "es"
    compact: bool = False  # answer with CompactExtraction (small models)


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


class UnattributedQuote(BaseModel):
    """A quote the model found no idea in, and why: the reader sees the reason in the review
    (seed 000, step 2.1) instead of guessing whether the quote was skipped or read."""

    quote_id: QuoteRef
    reason: str = Field(default="", max_length=300, description="Why it gives no concept.")


class ExtractedConcepts(BaseModel):
    candidate_concepts: list[CandidateConcept] = Field(max_length=25)
    unattributed_quotes: list[UnattributedQuote] = Field(default_factory=list, max_length=60)
    extraction_notes: str = Field(
        default="", max_length=800, description="What the reader should know: doubts, choices."
    )


class CompactConcept(BaseModel):
    """The fields a reader reads first, and nothing else: what a small model is asked for."""

    title: str = Field(min_length=1, max_length=120)
    concept: str = Field(min_length=1, max_length=600)
    analysis: str = Field(max_length=400)
    summary_short: str = Field(min_length=1, max_length=260)
    source_quote_ids: list[QuoteRef] = Field(min_length=1, max_length=4)


class CompactExtraction(BaseModel):
    """One quote per call on small models: at most two ideas from it, no notes. Every token
    a 1.5B model writes costs about 80 ms on a laptop CPU."""

    candidate_concepts: list[CompactConcept] = Field(max_length=2)


COMPACT_SAMPLING = Sampling(max_tokens=450, temperature=0.1)


def response_model(compact: bool) -> type[ExtractedConcepts] | type[CompactExtraction]:
    return CompactExtraction if compact else ExtractedConcepts


# From no book a reader is likely to bring, so a small model has nothing to copy from it.
EXAMPLE_QUOTE = (
    "[q1] Quien no sabe esperar no verá crecer nada en su huerto. (p. 12)\n"
    "[q2] Llegaron a la venta al caer la tarde."
)
EXAMPLE_ANSWER = {
    "candidate_concepts": [
        {
            "title": "Sin saber esperar no crece nada",
            "concept": "Lo que vale la pena necesita tiempo: quien exige resultados inmediatos "
            "abandona antes de obtenerlos.",
            "analysis": "La imagen del huerto vale para cualquier aprendizaje lento.",
            "summary_short": "Sin paciencia no hay resultados que valgan la pena.",
            "source_quote_ids": ["q1"],
        }
    ],
    "unattributed_quotes": [{"quote_id": "q2", "reason": "Solo narra una llegada."}],
}

RULES = {
    "es": """Eres un experto en Zettelkasten. De las citas de un lector extraes las ideas
atómicas que contienen y dices de qué citas sale cada una.
Reglas:
- Un concepto es UNA idea, comprensible por sí sola, no un resumen de la cita.
- title: nombra en pocas palabras lo que dice la cita, con sus palabras clave.
- concept: la idea general que la cita ilustra, dicha con otras palabras y válida también
  fuera de este libro. No copies la cita.
- analysis y summary_short: una frase corta cada uno.
- source_quote_ids: solo las citas (q1, q2...) que expresan esa idea.
- Una cita que solo narra o describe no da concepto: {no_concept}.{notes_rule}
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
- title: name in a few words what the quote says, with its key words.
- concept: the general idea the quote illustrates, said in other words and true beyond this
  book. Do not copy the quote.
- analysis and summary_short: one short sentence each.
- source_quote_ids: only the quotes (q1, q2...) that express that idea.
- A quote that only narrates or describes gives no concept: {no_concept}.{notes_rule}
- Write everything in {language}, whatever the language of the quote.
Example (from another book, in Spanish: do not copy it; write yours in {language}).
Quotes:
{quotes}
Answer:
{answer}""",
}


NO_CONCEPT = {
    False: {
        "es": "ponla en unattributed_quotes y di por qué",
        "en": "list it in unattributed_quotes and say why",
    },
    True: {"es": "no escribas ninguno para ella", "en": "write none for it"},
}
# Only the full answer has notes: the compact one (small models) keeps to the concepts.
NOTES_RULE = {
    "es": "\n- extraction_notes: lo que el lector deba saber (dudas, decisiones), o nada.",
    "en": "\n- extraction_notes: what the reader should know (doubts, choices), or nothing.",
}
FINAL = {
    "es": "\nEscribe title, concept, analysis y summary_short en español, con tus palabras.",
    "en": "\nWrite title, concept, analysis and summary_short in {language}, in your own words.",
}


def messages(data: ExtractConceptsInput) -> list[BaseMessage]:
    quotes = "\n".join(
        f"[{q.id}] {q.text}" + (f" (p. {q.page})" if q.page else "") for q in data.quotes
    )
    example = dict(EXAMPLE_ANSWER)
    if data.compact:
        example.pop("unattributed_quotes")
    no_concept = NO_CONCEPT[data.compact].get(data.language, NO_CONCEPT[data.compact]["en"])
    rules = RULES.get(data.language, RULES["en"]).format(
        quotes=EXAMPLE_QUOTE,
        answer=json.dumps(example, ensure_ascii=False),
        language=language_name(data.language),
        no_concept=no_concept,
        notes_rule="" if data.compact else NOTES_RULE.get(data.language, NOTES_RULE["en"]),
    )
    # A blank line before them, as before the quotes.
    suggestions = suggestions_block(data.suggestions)
    suggestions = "\n" + suggestions if suggestions else ""
    return [
        SystemMessage(content=rules),
        HumanMessage(
            content=f"Source: {data.title}"
            + (f", by {data.author}" if data.author else "")
            + f"\nQuotes:\n{quotes}\n{suggestions}"
            # Last, where a small model weighs it most.
            + FINAL.get(data.language, FINAL["en"]).format(language=language_name(data.language))
        ),
    ]


def suggestions_block(suggestions: str | None, *, keep: bool = False, end: str = "") -> str:
    """The reader's suggestions as every proposal prompt shows them (extraction, critique,
    refinement), ending in a newline and `end`; empty without any. `keep`: the proposal
    already follows them, and a rewrite must not undo that."""
    if not suggestions or not suggestions.strip():
        return ""
    how = "keep following them; do not undo what they ask for" if keep else "follow them"
    return f"The reader's suggestions ({how}):\n{suggestions.strip()}\n{end}"
