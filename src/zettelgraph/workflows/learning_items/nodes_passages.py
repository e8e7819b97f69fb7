"""Cards straight from passages: the one passage_card call per passage (a `Send` branch),
and the two cards only a passage gets, checked like every other card.

- Multiple choice: the question, the model's answer among its wrong answers. Checked as a
  concept's (one option marked right, distinct options, two wrong ones at least, a right
  option that does not echo the question) and, since no graph vouches for the wrong
  options here, none may be something the passage itself says (`option_in_passage`).
- Code completion: the code with one expression or line hidden. The model's blank must be
  copied from the code, once, and short (`code_blank_problem`); when it is not, the value
  of the last assignment or return is hidden instead, with a warning on the card.

The flashcard, the cloze and the diagram card (a flashcard about a figure) are made by
`nodes_checks.py` with the concept cards' own checks.
"""

from __future__ import annotations

from typing import Any

from zettelgraph.context import Services
from zettelgraph.guards.cards import (
    about_the_text,
    code_blank_problem,
    leaked_answer,
    mcq_problem,
    option_in_passage,
    pick_code_blank,
)
from zettelgraph.models import Difficulty, ItemType
from zettelgraph.prompts import passage_card
from zettelgraph.text.normalize import Span
from zettelgraph.workflows.learning_items.items import card, shuffled, window, wording
from zettelgraph.workflows.learning_items.nodes_question import ask_card
from zettelgraph.workflows.learning_items.passages import code_of
from zettelgraph.workflows.learning_items.state import (
    GenerationState,
    QuestionPayload,
    QuestionResult,
    Target,
)
from zettelgraph.workflows.learning_items.targets import Outcome, dropped_item, idea, made_for

# What a code card shows in place of the hidden code: "[...]" is valid code in some languages.
CODE_GAP = "____"


def write_passage_question(payload: QuestionPayload, services: Services) -> GenerationState:
    target: Target = payload["target"]
    passage = target["quotes"][0]
    data = passage_card.PassageCardInput(
        title=target["title"],
        place=target["place"],
        text=passage["text"],
        kind=target["passage_kind"],
        language=services.settings.concept_language,
    )
    asked = ask_card(services, passage_card, data, passage_card.PassageCard, target["id"])
    result = _result(target["id"], passage["id"], asked.answer)
    if asked.answer is None:
        where = f"{passage_card.NAME} ({target['title']!r}, {target['place'] or 'passage'})"
        # The cloze and the code card can still be made from the passage alone.
        return asked.failed(GenerationState(questions=[result]), f"{where} failed")
    return {"questions": [result], "llm_calls": [asked.record]}


def _result(
    target_id: str, passage_id: str, answer: passage_card.PassageCard | None
) -> QuestionResult:
    """What the call gave, as the checks read it (`failed` with empty fields: nothing)."""
    return QuestionResult(
        concept_id=target_id,
        question=answer.question.strip() if answer else "",
        answer=answer.answer.strip() if answer else "",
        quote_id=passage_id,
        cloze_words=answer.cloze_words.strip() if answer else "",
        failed=answer is None,
        wrong_answers=[w.strip() for w in answer.wrong_answers if w.strip()] if answer else [],
        code_blank=answer.code_blank.strip() if answer else "",
    )


def passage_outcomes(
    target: Target, result: QuestionResult | None, services: Services, base: dict[str, Any]
) -> list[Outcome]:
    """The multiple choice and code-completion cards of one passage, as its kinds ask."""
    out: list[Outcome] = []
    usable = result is not None and not result["failed"]
    if "mcq" in target["make"] and usable and result is not None:
        out.append(multiple_choice(target, result, services, base))
    if "code_completion" in target["make"]:
        out.append(code_completion(target, result if usable else None, services, base))
    return out


def multiple_choice(
    target: Target, result: QuestionResult, services: Services, base: dict[str, Any]
) -> Outcome:
    passage = target["quotes"][0]
    question, right = result["question"], result["answer"]
    options = shuffled([right, *result["wrong_answers"]], target["id"])
    problem = (
        leaked_answer(question, right)
        or about_the_text(question)
        or mcq_problem(options, options.index(right), right, question)
    )
    if problem is None:
        problem = next(
            (p for w in result["wrong_answers"] if (p := option_in_passage(w, passage["text"]))),
            None,
        )
    item = card(
        ItemType.MCQ,
        Difficulty.MEDIUM,
        question,
        right,
        made_for(target, passage, services, dict(base), []),
        options=options,
        correct=options.index(right),
        explanation=idea(target, services),
    )
    if problem is None:
        return item, None
    # Kept as dropped, like a flashcard a check drops: the call is not paid for again.
    return item, dropped_item(question, ItemType.MCQ, "mcq", problem, [])


def code_completion(
    target: Target, result: QuestionResult | None, services: Services, base: dict[str, Any]
) -> Outcome:
    """The passage's code with the model's blank hidden, or the last assignment's value."""
    passage = target["quotes"][0]
    code = code_of(passage["text"])
    blank = result["code_blank"] if result is not None else ""
    problem = code_blank_problem(blank, code) if blank else "the model gave no code to blank"
    warnings: list[str] = []
    provenance = dict(base)
    span: Span | None = None
    if problem is None:
        start = code.index(blank)
        span = Span(start, start + len(blank), blank)
    else:
        span = pick_code_blank(code)
        if span is None:
            reason = f"{problem}; no other part of the code can be hidden"
            return None, dropped_item(code[:80], ItemType.CODE_COMPLETION, "code", reason, [])
        warnings.append(f"code: {problem}; hid «{span.text}» (the last value set or returned)")
        provenance.update(generator="graph", calls=0, model=None)
        provenance.pop("call", None)
    lo, hi = window(code, span.start, span.end)
    shown = (
        ("…" if lo > 0 else "")
        + code[lo : span.start]
        + CODE_GAP
        + code[span.end : hi]
        + ("…" if hi < len(code) else "")
    )
    words = wording(services.settings.concept_language)
    item = card(
        ItemType.CODE_COMPLETION,
        Difficulty.MEDIUM,
        f"{words['code']}\n\n{shown}",
        span.text,
        made_for(target, passage, services, provenance, warnings),
        explanation=idea(target, services),
    )
    return item, None
