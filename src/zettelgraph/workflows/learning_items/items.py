"""How each kind of card is made from the graph, in the reader's language (pure functions).

Difficulty comes from the graph, not from the model: recall from one concept and its quote is
easy (flashcard, cloze), telling one idea from its neighbours or saying how two linked ideas
relate is medium (multiple choice, relation), following a chain of two relations is hard.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from zettelgraph.models import (
    Difficulty,
    ItemType,
    LearningItem,
    learning_item_id,
)
from zettelgraph.packs.relations import DEFAULT_VOCABULARY, RelationVocabulary
from zettelgraph.text.normalize import Span
from zettelgraph.workflows.learning_items.state import CardRecord
from zettelgraph.workflows.records import as_record

# A card shows a quote whole up to this length; a longer passage shows the part around the
# words that matter, so a card stays readable (and within LearningItem's 2,000 characters).
MAX_CARD_QUOTE_CHARS = 600
FIELD_LIMIT = 2000
GAP = "[...]"

WORDING: dict[str, dict[str, str]] = {
    "es": {
        "mcq": "¿Qué idea expresa esta cita?",
        "relation": "¿Cómo se relaciona «{a}» con «{b}»?",
        "chain": "¿Qué cadena de ideas lleva de «{a}» a «{c}»?",
        "right": "La cita expresa «{a}».",
        "neighbour": "«{b}» es una idea vecina: {summary}",
        "idea": "«{title}»: {summary}",
        "passage": "De «{title}», {place}.",
        "figure": "Figura de {place}:",
        "code": "Completa el código:",
    },
    "en": {
        "mcq": "Which idea does this quote express?",
        "relation": "How does «{a}» relate to «{b}»?",
        "chain": "What chain of ideas leads from «{a}» to «{c}»?",
        "right": "The quote expresses «{a}».",
        "neighbour": "«{b}» is a neighbouring idea: {summary}",
        "idea": "«{title}»: {summary}",
        "passage": "From «{title}», {place}.",
        "figure": "Figure at {place}:",
        "code": "Complete the code:",
    },
}


def wording(language: str) -> dict[str, str]:
    """Spanish for a Spanish graph; English for every other language (the fallback the
    prompts use too)."""
    return WORDING.get(language, WORDING["en"])


def relation_words(edge: Edge, language: str) -> str:
    """The edge's type as a verb from its source to its target, in the packs' words."""
    return edge.vocabulary.phrase(edge.type, language)


@dataclass(frozen=True)
class Edge:
    """A reviewed relation seen from `source`: its type read from source to target."""

    source: str
    target: str
    type: str
    explanation: str
    confidence: float
    given: bool  # False for the reverse the store added automatically
    # Where the type's words come from (the active packs'); not part of what the edge is.
    vocabulary: RelationVocabulary = field(default=DEFAULT_VOCABULARY, compare=False, repr=False)


@dataclass(frozen=True)
class Made:
    """What every card records besides its text: what it tests and cites, and how it was made."""

    concept_ids: list[str]
    quote_ids: list[str]
    content_ids: list[str]
    language: str
    provenance: dict[str, Any]
    warnings: tuple[str, ...] = ()


def _clip(text: str, limit: int = FIELD_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def card(
    item_type: ItemType,
    difficulty: Difficulty,
    front: str,
    back: str,
    made: Made,
    **fields: Any,
) -> LearningItem:
    """A proposed card with its deterministic id (same type, concepts and front: same card)."""
    front, back = _clip(front.strip()), _clip(back.strip())
    return LearningItem(
        id=learning_item_id(str(item_type), made.concept_ids, front),
        item_type=item_type,
        difficulty=difficulty,
        front=front,
        back=back,
        concept_ids=made.concept_ids[:3],
        quote_ids=list(dict.fromkeys(made.quote_ids))[:6],
        content_ids=list(dict.fromkeys(made.content_ids))[:6],
        language=made.language,
        provenance=made.provenance,
        warnings=list(made.warnings),
        **fields,
    )


def window(text: str, start: int, end: int, limit: int = MAX_CARD_QUOTE_CHARS) -> tuple[int, int]:
    """Bounds of at most `limit` characters of `text` around [start, end), on word breaks."""
    if len(text) <= limit:
        return 0, len(text)
    room = max(0, limit - (end - start))
    lo = max(0, start - room // 2)
    hi = min(len(text), lo + max(limit, end - lo))
    lo = max(0, min(lo, hi - limit))
    if lo > 0:
        space = text.find(" ", lo, start)
        lo = space + 1 if space != -1 else lo
    if hi < len(text):
        space = text.rfind(" ", end, hi)
        hi = space if space != -1 else hi
    return lo, hi


def excerpt(text: str, start: int = 0, end: int = 0) -> str:
    """The quote as a card shows it: whole, or the part around [start, end) with "…"."""
    lo, hi = window(text, start, end)
    return ("…" if lo > 0 else "") + text[lo:hi] + ("…" if hi < len(text) else "")


def cloze_card(quote: str, span: Span, made: Made, explanation: str) -> LearningItem:
    """The reader's quote with `span`'s words hidden: front with [...], back the words, and
    `cloze` in Anki's {{c1::words}} syntax."""
    lo, hi = window(quote, span.start, span.end)
    before = ("…" if lo > 0 else "") + quote[lo : span.start]
    after = quote[span.end : hi] + ("…" if hi < len(quote) else "")
    words = quote[span.start : span.end]
    return card(
        ItemType.CLOZE,
        Difficulty.EASY,
        before + GAP + after,
        words,
        made,
        cloze=_clip(before + "{{c1::" + words + "}}" + after),
        explanation=_clip(explanation),
    )


def shuffled(options: Sequence[str], seed: str) -> list[str]:
    """The options in an order fixed by `seed`: the same card always shows the same order,
    and the right answer is not always first."""
    order = list(options)
    random.Random(int(hashlib.sha256(seed.encode()).hexdigest()[:16], 16)).shuffle(order)
    return order


def mcq_card(
    right_title: str,
    quote: str,
    distractors: Sequence[tuple[str, str]],
    made: Made,
) -> LearningItem:
    """ "Which idea does this quote express?": the concept's title among its neighbours'.

    `distractors` are (title, why it is wrong) pairs."""
    words = wording(made.language)
    options = shuffled([right_title, *(title for title, _ in distractors)], made.concept_ids[0])
    explanation = "\n".join(
        [words["right"].format(a=right_title), *(why for _, why in distractors)]
    )
    return card(
        ItemType.MCQ,
        Difficulty.MEDIUM,
        f"{words['mcq']}\n\n{excerpt(quote)}",
        right_title,
        made,
        options=options,
        correct=options.index(right_title),
        explanation=_clip(explanation),
    )


def why_wrong(
    title: str,
    right_title: str,
    edge: Edge | None,
    summary: str,
    language: str,
) -> str:
    """Why a neighbouring concept is not what the quote says: how it relates to the right one
    (`edge`, read from it to the right one), or that it is a neighbouring idea."""
    if edge is not None:
        said = f"«{title}» {relation_words(edge, language)} «{right_title}»"
        return f"{said}: {edge.explanation}" if edge.explanation else said + "."
    return wording(language)["neighbour"].format(b=title, summary=summary)


def relation_sentence(edge: Edge, titles: Mapping[str, str], language: str) -> str:
    said = f"«{titles[edge.source]}» {relation_words(edge, language)} «{titles[edge.target]}»"
    return f"{said}: {edge.explanation}" if edge.explanation else said + "."


def relation_card(edge: Edge, titles: Mapping[str, str], made: Made) -> LearningItem:
    """ "How does A relate to B?" from one reviewed relation."""
    front = wording(made.language)["relation"].format(a=titles[edge.source], b=titles[edge.target])
    return card(
        ItemType.RELATION,
        Difficulty.MEDIUM,
        front,
        relation_sentence(edge, titles, made.language),
        made,
    )


def chain_card(first: Edge, second: Edge, titles: Mapping[str, str], made: Made) -> LearningItem:
    """ "What chain of ideas leads from A to C?": A -type-> B -type-> C, both explanations."""
    a, b, c = first.source, first.target, second.target
    front = wording(made.language)["chain"].format(a=titles[a], c=titles[c])
    path = (
        f"{titles[a]} —{relation_words(first, made.language)}→ {titles[b]} "
        f"—{relation_words(second, made.language)}→ {titles[c]}"
    )
    back = "\n".join(
        [path, *(relation_sentence(e, titles, made.language) for e in (first, second))]
    )
    return card(ItemType.RELATION, Difficulty.HARD, front, back, made)


def dedup_text(item: LearningItem) -> str:
    """What two cards are compared by: what they ask and answer, without the fixed wording
    every card of a kind shares (which would make all relation cards look alike)."""
    if item.item_type == ItemType.CLOZE:
        return item.front.replace(GAP, item.back)
    if item.item_type == ItemType.MCQ:
        asked = item.front.split("\n\n", 1)[-1]
        return f"{asked}\n{item.back}"
    if item.item_type == ItemType.RELATION:
        # A chain by its path (its first line), a relation by what it says of the pair.
        return item.back.split("\n", 1)[0] if item.difficulty == Difficulty.HARD else item.back
    return f"{item.front}\n{item.back}"


def card_record(item: LearningItem) -> CardRecord:
    """A card as the state keeps it between the nodes."""
    return as_record(CardRecord, item.model_dump(mode="json"))
