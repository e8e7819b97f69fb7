"""Step 4 (no LLM): every card faces the checks of guards/cards.py before it is proposed.

Flashcards: the question must not give its answer away, both must be in the graph's language,
and the answer must be what its quote says (cosine of answer and quote, default embedder; a
card whose answer fits the concept's other shown quote better cites that one instead). Cloze:
the model's words must be a short content phrase of the quote; when they are not, the content
word closest to the concept is hidden instead (among the model's words when they are in the
quote but too many), with a warning on the card. Multiple
choice: exactly one right option, distinct options, two wrong ones at least. What a check
drops is reported with the check's name and its reason; a flashcard a check drops is also
written, as dropped, so its concept is not asked again on the next run (`set_aside`).
"""

from __future__ import annotations

from typing import Any

from zettelgraph.context import Services
from zettelgraph.guards.cards import (
    about_the_text,
    answer_similarities,
    cloze_candidates,
    cloze_problem,
    find_words,
    leaked_answer,
    mcq_problem,
    off_language,
    pick_cloze_word,
    unsupported_answer,
)
from zettelgraph.guards.grounding import concept_text, cosine
from zettelgraph.llm.embeddings import is_semantic
from zettelgraph.models import Difficulty, ItemStatus, ItemType, LearningItem
from zettelgraph.prompts import card_question, passage_card
from zettelgraph.workflows.learning_items.items import (
    card,
    card_record,
    cloze_card,
    excerpt,
    wording,
)
from zettelgraph.workflows.learning_items.nodes_passages import passage_outcomes
from zettelgraph.workflows.learning_items.state import (
    DroppedItem,
    GenerationState,
    QuestionResult,
    Target,
)
from zettelgraph.workflows.learning_items.targets import (
    Outcome,
    dropped_item,
    idea,
    made_for,
    tested,
)


def check_items(state: GenerationState, services: Services) -> GenerationState:
    results = {r["concept_id"]: r for r in state.get("questions", [])}
    models = {c["subject"]: c["model"] for c in state.get("llm_calls", [])}
    kept: list[LearningItem] = []
    rejected: list[LearningItem] = []
    dropped: list[DroppedItem] = []
    for target in state.get("targets", []):
        result = results.get(target["id"])
        base = {
            "generator": "llm",
            "model": models.get(target["id"]),
            "calls": 1,
            "call": passage_card.NAME if target["passage_kind"] else card_question.NAME,
            "generation": state["generation_id"],
        }
        outcomes = []
        for kind in ("flashcard", "diagram"):
            if kind in target["make"] and result is not None:
                outcomes.append(flashcard(target, result, services, base, ItemType(kind)))
        if "cloze" in target["make"] and target["quotes"]:
            outcomes.append(cloze(target, result, services, base))
        if target["passage_kind"]:
            outcomes.extend(passage_outcomes(target, result, services, base))
        for item, drop in outcomes:
            if drop is not None:
                dropped.append(drop)
                if item is not None:
                    rejected.append(set_aside(item, drop))
            elif item is not None:
                kept.append(item)
    for dump in state.get("graph_items", []):
        item = LearningItem.model_validate(dump)
        problem = (
            mcq_problem(item.options, item.correct, item.back, item.front)
            if item.item_type == ItemType.MCQ
            else None
        )
        if problem is None:
            kept.append(item)
        else:
            drop = dropped_item(item.front, item.item_type, "mcq", problem, item.concept_ids)
            dropped.append(drop)
    return {
        "items": [card_record(i) for i in kept],
        "rejected": [card_record(i) for i in rejected],
        "dropped": dropped,
    }


def set_aside(item: LearningItem, drop: DroppedItem) -> LearningItem:
    """A card a check dropped, kept in the store as dropped with the check's reason: the LLM
    call that wrote it is not made again for its concept on the next run, and a reader who
    finds the check wrong can still approve it."""
    return item.model_copy(
        update={
            "status": ItemStatus.DROPPED,
            "warnings": [*item.warnings, f"check {drop['guard']}: {drop['reason']}"],
            "provenance": {**item.provenance, "dropped_by": drop["guard"]},
        }
    )


def flashcard(
    target: Target,
    result: QuestionResult,
    services: Services,
    base: dict[str, Any],
    item_type: ItemType = ItemType.FLASHCARD,
) -> Outcome:
    """The question-and-answer card of one concept or passage (a diagram card: the question
    about a figure), and why a check dropped it (if it did)."""
    ids = tested(target)
    if result["failed"]:
        reason = f"the {base['call']} call failed"
        return None, dropped_item(target["title"], item_type, "llm", reason, ids)
    question, answer = result["question"], result["answer"]
    settings = services.settings
    shown = target["quotes"][: card_question.MAX_QUOTES]
    quote = next((q for q in shown if q["id"] == result["quote_id"]), shown[0])
    warnings: list[str] = []
    checks: dict[str, float] = {}
    problem: tuple[str, str] | None = None
    leak = leaked_answer(question, answer)
    if leak is None and target["passage_kind"] == "text":
        leak = about_the_text(question)
    foreign = None
    if leak is None:
        language = settings.concept_language
        foreign = off_language(question, answer, language, services.detect_language)
    if leak is not None:
        problem = ("leak", leak)
    elif foreign is not None:
        problem = ("language", foreign)
    elif is_semantic(services.embedder):
        similarities = answer_similarities(services.embedder, answer, [q["text"] for q in shown])
        scores = {q["id"]: similarities[i] for i, q in enumerate(shown)}
        threshold = services.thresholds.card_answer
        best = max(shown, key=lambda q: scores[q["id"]])
        if scores[quote["id"]] < threshold <= scores[best["id"]]:
            # The answer is right but the model named the other quote.
            warnings.append(
                "grounding: the answer rests on the concept's other quote, cited instead"
            )
            quote = best
        checks["grounding"] = round(scores[quote["id"]], 4)
        unsupported = unsupported_answer(scores[quote["id"]], threshold)
        problem = ("grounding", unsupported) if unsupported is not None else None
    made = made_for(target, quote, services, {**base, "checks": checks}, warnings)
    front = question
    if item_type == ItemType.DIAGRAM:
        front = f"{wording(settings.concept_language)['figure'].format(place=target['place'])}"
        front += f"\n\n{question}"
    item = card(item_type, Difficulty.EASY, front, answer, made, explanation=idea(target, services))
    if problem is None:
        return item, None
    return item, dropped_item(question, item_type, problem[0], problem[1], ids)


def cloze(
    target: Target, result: QuestionResult | None, services: Services, base: dict[str, Any]
) -> Outcome:
    """The cloze on the concept's quote (the one the answer cites, else the closest): the
    model's words when they pass, else the quote's content word closest to the concept."""
    usable = result is not None and not result["failed"]
    quote = target["quotes"][0]
    if usable and result is not None:
        quote = next((q for q in target["quotes"] if q["id"] == result["quote_id"]), quote)
    words = result["cloze_words"] if usable and result is not None else ""
    problem = cloze_problem(words, quote["text"]) if words else "the model gave no words"
    span = find_words(words, quote["text"]) if problem is None else None
    warnings: list[str] = []
    provenance = dict(base)
    if span is None:
        candidates = cloze_candidates(quote["text"])
        # Words of the quote but too many (small models copy the whole sentence): the model
        # still pointed at where the idea is, so the pick is made among them when it can be.
        pointed = find_words(words, quote["text"]) if words else None
        inside = [
            c for c in candidates if pointed and pointed.start <= c.start and c.end <= pointed.end
        ]
        candidates = inside or candidates
        if candidates:
            # A passage has no concept: the word closest to what the model answered, else
            # to the passage as a whole.
            about = concept_text(target)
            if target["passage_kind"]:
                about = result["answer"] if usable and result is not None else quote["text"]
            vectors = services.embedder.embed([about, *(c.text for c in candidates)])
            scores = [cosine(vectors[0], v) for v in vectors[1:]]
            span = pick_cloze_word(candidates, scores)
        if span is None:
            reason = f"{problem}; no word of the quote can be hidden instead"
            front = excerpt(quote["text"])
            return None, dropped_item(front, ItemType.CLOZE, "cloze", reason, tested(target))
        where = "of those words" if inside else "of the quote"
        near = "its answer" if target["passage_kind"] else "the concept"
        warnings.append(f"cloze: {problem}; hid «{span.text}», the word {where} closest to {near}")
        provenance.update(generator="graph", calls=0, model=None)
        provenance.pop("call", None)
    made = made_for(target, quote, services, provenance, warnings)
    return cloze_card(quote["text"], span, made, idea(target, services)), None
