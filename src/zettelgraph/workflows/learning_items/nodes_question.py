"""Step 2: the one LLM call per concept (a `Send` branch) that gives its flashcard question,
answer and cloze words. The checks come later, on every branch's result at once."""

from __future__ import annotations

from types import ModuleType
from typing import TypeVar

from pydantic import BaseModel

from zettelgraph.context import Services
from zettelgraph.guards.cards import repeats_example
from zettelgraph.prompts import card_question
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.workflows.calls import Asked, ask
from zettelgraph.workflows.learning_items.state import (
    GenerationState,
    QuestionPayload,
    QuestionResult,
    Target,
)

T = TypeVar("T", bound=BaseModel)


def ask_card(
    services: Services, call: ModuleType, data: BaseModel, response_model: type[T], subject: str
) -> Asked[T]:
    """One card-writing call (`call` a prompts module: its NAME, messages, SAMPLING and the
    worked example it shows, EXAMPLE_ANSWER), on the fast model: a card is a short answer,
    asked once per concept or passage. An answer that copies the example counts as a failed
    call: the cards that need no answer are still made from the text."""
    asked = ask(
        services,
        name=call.NAME,
        messages=call.messages(data),
        response_model=response_model,
        sampling=call.SAMPLING,
        subject=subject,
        fast=True,
    )
    if asked.answer is not None:
        copied = repeats_example(asked.answer.model_dump(), call.EXAMPLE_ANSWER)
        if copied is not None:
            return Asked(None, asked.record, CopiedExampleError(copied))
    return asked


class CopiedExampleError(ValueError):
    """The model answered with the prompt's worked example."""


def write_question(payload: QuestionPayload, services: Services) -> GenerationState:
    target: Target = payload["target"]
    shown = target["quotes"][: card_question.MAX_QUOTES]
    qmap = LocalIds("q", (q["id"] for q in shown))
    data = card_question.CardQuestionInput(
        title=target["title"],
        concept=target["concept"],
        summary_short=target["summary_short"],
        quotes=[
            card_question.PromptQuote(id=qmap.local(q["id"]), text=q["text"], page=q["page"])
            for q in shown
        ],
        language=services.settings.concept_language,
    )
    where = f"{card_question.NAME} ({target['title']!r})"
    failed = QuestionResult(
        concept_id=target["id"],
        question="",
        answer="",
        quote_id=None,
        cloze_words="",
        failed=True,
        wrong_answers=[],
        code_blank="",
    )
    asked = ask_card(services, card_question, data, card_question.CardQuestion, target["id"])
    if asked.answer is None:
        # The cloze can still be made from the quote alone; the flashcard cannot.
        return asked.failed(GenerationState(questions=[failed]), f"{where} failed, no flashcard")
    result = asked.answer
    warnings = []
    quote_id = qmap.real(result.quote)
    if quote_id is None:
        # Constrained decoding keeps the id's shape, not its range: q3 of two quotes.
        quote_id = shown[0]["id"]
        warnings.append(f"{where}: cited {result.quote!r}, not a quote it was shown; took q1")
    return {
        "questions": [
            QuestionResult(
                concept_id=target["id"],
                question=result.question.strip(),
                answer=result.answer.strip(),
                quote_id=quote_id,
                cloze_words=result.cloze_words.strip(),
                failed=False,
                wrong_answers=[],
                code_blank="",
            )
        ],
        "warnings": warnings,
        "llm_calls": [asked.record],
    }
