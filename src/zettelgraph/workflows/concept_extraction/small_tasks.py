"""Small-model tasks (`settings.small_model_task`, docs/design.md "Small-model tasks"): what a
one-quote extraction call is prepared with, and what a title-only answer's statement is.

- `gloss`: call A (`prompts/gloss_quote.py`) says what the quote means; the gloss is checked
  against the quote (the graph's language, and the embedder's cosine); one fresh retry, then the
  quote falls back to the `extractive` statement. Call B is the extraction with the gloss shown
  under the quote.
- `titles`: a quote in another language than the graph's is translated first (one call); the
  model then writes only a title, and the statement is the quote (or its translation) marked
  as a draft for the reader.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from zettelgraph.context import Services
from zettelgraph.guards.language import CONFIDENT_WORDS
from zettelgraph.llm.embeddings import is_semantic
from zettelgraph.prompts import extract_concepts, gloss_quote, translate_quote
from zettelgraph.text.language import detect_language
from zettelgraph.text.summaries import tidy_statement
from zettelgraph.workflows.calls import CallRecord, ask

# What the reader sees in a `titles` draft's analysis, in the review and the vault: the
# statement is not the model's, and needs their words.
DRAFT_NOTE = {
    "es": {
        False: "Borrador: el enunciado es la cita tal cual; escribe la idea con tus palabras.",
        True: "Borrador: el enunciado es la traducción de la cita; escribe la idea con tus "
        "palabras.",
    },
    "en": {
        False: "Draft: the statement is the quote itself; write the idea in your own words.",
        True: "Draft: the statement is the quote's translation; write the idea in your own words.",
    },
}
# Where a `gloss` concept came from, kept as its rationale (the review's "why").
GLOSS_LABEL = {"es": "Sentido de la cita: ", "en": "What the quote means: "}


@dataclass
class Prepared:
    """The extraction call's input after its task's first calls, and what they did."""

    data: extract_concepts.ExtractConceptsInput
    calls: list[CallRecord] = field(default_factory=list)  # in order
    warnings: list[str] = field(default_factory=list)
    gloss: str = ""


def prepare(
    data: extract_concepts.ExtractConceptsInput, services: Services, subject: str = ""
) -> Prepared:
    """The input of the extraction call: with the quote's gloss (`gloss`), its translation
    (`titles`, a quote in another language), or as it was. `subject`: what the calls'
    records say they were about."""
    task = extract_concepts.task_of(data)
    if task == "gloss":
        return _with_gloss(data, services, subject)
    if task == "titles":
        return _with_translation(data, services, subject)
    return Prepared(data)


def gloss_flaw(gloss: str, quote: str, language: str, services: Services) -> str | None:
    """Why a gloss cannot stand for its quote (in another language, or far from it); None if
    it can."""
    found = services.detect_language(gloss)
    if found is not None and found != language and len(gloss.split()) >= CONFIDENT_WORDS:
        return f"it is in another language ({found})"
    if not is_semantic(services.embedder):
        return None
    vectors = services.embedder.embed([gloss, quote])
    norms = float(np.linalg.norm(vectors[0]) * np.linalg.norm(vectors[1])) or 1.0
    similarity = float(vectors[0] @ vectors[1]) / norms
    # The embedder's `gloss` floor (USE: 0.5). Hand-written glosses of the development notes'
    # Bécquer quotes score 0.74-0.84 on USE, a generic line that fits any quote 0.00-0.30 (and
    # a gloss in English 0.61, which the language test catches). It catches filler and
    # off-topic glosses, not a meaning turned upside down (0.62 for "la poesía se ha agotado"
    # against "siempre habrá poesía"). Without a semantic embedder (the tests' `hash`) only
    # the language is checked.
    floor = services.thresholds.gloss
    if similarity < floor:
        return f"it is far from its quote (similarity {similarity:.2f} < {floor})"
    return None


def _with_gloss(
    data: extract_concepts.ExtractConceptsInput, services: Services, subject: str
) -> Prepared:
    quote = data.quotes[0]
    wanted = gloss_quote.GlossInput(
        title=data.title, author=data.author, quote=quote.text, language=data.language
    )
    prepared = Prepared(data)
    for sampling in (gloss_quote.SAMPLING, gloss_quote.RETRY_SAMPLING):
        asked = ask(
            services,
            name=gloss_quote.NAME,
            messages=gloss_quote.messages(wanted),
            response_model=gloss_quote.QuoteGloss,
            sampling=sampling,
            subject=subject,
        )
        prepared.calls.append(asked.record)
        if asked.answer is None:
            prepared.warnings.append(f"{gloss_quote.NAME} failed: {asked.error}")
            if isinstance(asked.error, TimeoutError | ConnectionError):
                break  # the model is unreachable: a retry would wait as long again
            continue
        gloss = tidy_statement(asked.answer.gloss)
        flaw = gloss_flaw(gloss, quote.text, data.language, services)
        if flaw is None:
            shown = quote.model_copy(update={"reading": gloss})
            prepared.data = data.model_copy(update={"quotes": [shown]})
            prepared.gloss = gloss
            return prepared
        prepared.warnings.append(f"{gloss_quote.NAME}: gloss {gloss[:60]!r} set aside: {flaw}")
    # No gloss to stand on: the statement is the quote's key claim, from the quote alone.
    prepared.warnings.append(
        f"{gloss_quote.NAME}: no usable gloss of quote {quote.id}; its statement is extractive"
    )
    prepared.data = data.model_copy(update={"task": "extractive"})
    return prepared


def _with_translation(
    data: extract_concepts.ExtractConceptsInput, services: Services, subject: str
) -> Prepared:
    quote = data.quotes[0]
    prepared = Prepared(data)
    # The same test as the key words': a quote in the graph's language is its own draft.
    if detect_language(quote.text, data.language) == data.language:
        return prepared
    asked = ask(
        services,
        name=translate_quote.NAME,
        messages=translate_quote.messages(
            translate_quote.TranslateInput(quote=quote.text, language=data.language)
        ),
        response_model=translate_quote.QuoteTranslation,
        sampling=translate_quote.SAMPLING,
        subject=subject,
    )
    prepared.calls.append(asked.record)
    if asked.answer is None:
        # The draft is then the quote in its own language; the language check judges it.
        prepared.warnings.append(
            f"{translate_quote.NAME} failed for quote {quote.id}: {asked.error}"
        )
        return prepared
    shown = quote.model_copy(update={"reading": asked.answer.translation.strip()})
    prepared.data = data.model_copy(update={"quotes": [shown]})
    return prepared


def draft_fields(quote: extract_concepts.PromptQuote, language: str) -> dict[str, str]:
    """The reader fields of a `titles` draft: the quote (or its translation) as the statement,
    marked as a draft in the analysis the review and the vault show."""
    statement = quote.reading or quote.text
    note = DRAFT_NOTE["es" if language == "es" else "en"][bool(quote.reading)]
    return {"concept": statement, "analysis": note}


def gloss_rationale(gloss: str, language: str) -> str:
    return GLOSS_LABEL["es" if language == "es" else "en"] + gloss if gloss else ""
