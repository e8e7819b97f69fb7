"""The passages cards are made from straight away (seed 004's Phase 1A), as targets of the
same Learning Item Graph: what kind of passage each is, and the cards it still lacks.

A passage is code when its content is a source file or it holds a fenced code block; a
figure when it is the OCR text of a picture (an image file, or one picture of a page or
slide: its location names the `image`) or a caption; text otherwise. Text gets a flashcard,
a cloze and a multiple choice; code a flashcard, a code-completion card and a multiple
choice; a figure a diagram card and a multiple choice. A passage that has a card of some
kind (proposed or approved) gets no other of that kind, as a concept does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from zettelgraph.models import Content, Quote
from zettelgraph.models.locations import quote_place
from zettelgraph.store.base import GraphStore
from zettelgraph.workflows.learning_items.reading import quote_view
from zettelgraph.workflows.learning_items.state import Kind, Target

PASSAGE_KINDS: tuple[Kind, ...] = ("flashcard", "cloze", "mcq", "code_completion", "diagram")
KINDS_BY_PASSAGE: dict[str, tuple[Kind, ...]] = {
    "text": ("flashcard", "cloze", "mcq"),
    "code": ("flashcard", "code_completion", "mcq"),
    "figure": ("diagram", "mcq"),
}
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})[^\n]*\n(.*?)^ {0,3}\1", re.MULTILINE | re.DOTALL)


@dataclass
class PassageTargets:
    targets: list[Target] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # kind -> passages that have it
    covered: int = 0  # passages that have every card of their kind already


def passage_kind(quote: Quote, content: Content | None) -> str:
    """ "code", "figure" or "text" (see the module's docstring)."""
    kind = content.kind if content is not None else ""
    if kind == "code" or _FENCE.search(quote.text):
        return "code"
    location = quote.location
    if kind == "image" or location.get("caption") or (location.get("ocr") and "image" in location):
        return "figure"
    return "text"


def code_of(text: str) -> str:
    """The code a passage holds: its fenced blocks when it has any, else all of it."""
    blocks = [m.group(2).rstrip("\n") for m in _FENCE.finditer(text)]
    return "\n".join(blocks) if blocks else text


def passage_targets(
    store: GraphStore, quote_ids: Sequence[str], had: set[tuple[Kind, str]]
) -> PassageTargets:
    """A target per passage (in the order given) with the kinds of card it lacks."""
    out = PassageTargets()
    contents: dict[str, Content | None] = {}
    for quote in store.get_quotes(list(dict.fromkeys(quote_ids))):
        if quote.content_id not in contents:
            contents[quote.content_id] = store.get_content(quote.content_id)
        content = contents[quote.content_id]
        kind = passage_kind(quote, content)
        wanted = KINDS_BY_PASSAGE[kind]
        make = [k for k in wanted if (k, quote.id) not in had]
        for k in wanted:
            out.skipped[k] = out.skipped.get(k, 0) + (k not in make)
        if not make:
            out.covered += 1
            continue
        out.targets.append(
            Target(
                id=quote.id,
                title=content.title if content is not None else "",
                concept="",
                summary_short="",
                content_ids=[quote.content_id],
                quotes=[quote_view(quote)],
                make=make,
                passage_kind=kind,
                place=quote_place(quote),
            )
        )
    return out
