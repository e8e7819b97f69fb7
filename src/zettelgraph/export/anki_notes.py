"""Anki note types for zettelgraph's cards, and the note each card becomes.

Anki recognises a note type by its id and a note by its GUID. Both are fixed here: the note
type ids are derived from a fixed name (`anki_id`) and never change, and a note's GUID is
`genanki.guid_for(item.id)`; so importing a newer export of the same cards updates them
(keeping their review history) instead of adding copies. Anki does not simply update an
existing note type whose fields changed (depending on its version it imports a copy or asks to
merge), so a note type whose fields change must get a new name, and with it a new id.

Everything taken from the graph is HTML-escaped: a quote containing `<script>` or `{{c2::...}}`
is shown as text, never run or turned into another cloze.
"""

from __future__ import annotations

import hashlib
import html
import re

import genanki

from zettelgraph.models import ItemType
from zettelgraph.provenance.card_sources import CardSources, tag_slug

# Anki ids are 64-bit; genanki suggests ids in [2^30, 2^31), clear of Anki's own
# millisecond-timestamp ids.
_ID_FLOOR = 1 << 30


def anki_id(name: str) -> int:
    """A fixed id for a note type or deck called `name`: the first four bytes of
    sha256("zettelgraph:" + name), folded into [2^30, 2^31)."""
    digest = hashlib.sha256(f"zettelgraph:{name}".encode()).digest()
    return _ID_FLOOR + int.from_bytes(digest[:4], "big") % _ID_FLOOR


BASIC_NAME = "zettelgraph basic"
CLOZE_NAME = "zettelgraph cloze"
MCQ_NAME = "zettelgraph multiple choice"

_CSS = """\
.card { font-family: system-ui, sans-serif; font-size: 20px; text-align: left;
  color: #1f2328; background: #fff; max-width: 40em; margin: 0 auto; }
.nightMode .card { color: #e6edf3; background: #0d1117; }
blockquote { margin: .8em 0; padding-left: .8em; border-left: 3px solid #8c959f; }
cite { display: block; font-size: .8em; font-style: normal; color: #57606a; }
.zg-source, .zg-concept { font-size: .8em; color: #57606a; }
.zg-explanation { margin-top: .6em; }
.zg-code { font-family: ui-monospace, monospace; font-size: .85em; white-space: pre-wrap; }
.cloze { font-weight: bold; color: #0969da; }
.zg-options li { margin: .2em 0; }
.zg-revealed .zg-correct { font-weight: bold; color: #1a7f37; }
.zg-revealed .zg-correct::after { content: " \\2713"; }
"""

_SOURCES = (
    "{{#Quote}}{{Quote}}{{/Quote}}"
    '{{#Source}}<div class="zg-source">{{Source}}</div>{{/Source}}'
    '{{#Concept}}<div class="zg-concept">{{Concept}}</div>{{/Concept}}'
)

BASIC_MODEL = genanki.Model(
    anki_id(BASIC_NAME),
    BASIC_NAME,
    fields=[{"name": n} for n in ("Front", "Back", "Quote", "Source", "Concept")],
    templates=[
        {
            "name": "Card",
            "qfmt": "{{Front}}",
            "afmt": '{{FrontSide}}<hr id="answer">{{Back}}' + _SOURCES,
        }
    ],
    css=_CSS,
)

CLOZE_MODEL = genanki.Model(
    anki_id(CLOZE_NAME),
    CLOZE_NAME,
    model_type=genanki.Model.CLOZE,
    fields=[{"name": "Text"}, {"name": "Extra"}],
    templates=[
        {
            "name": "Cloze",
            "qfmt": "{{cloze:Text}}",
            "afmt": "{{cloze:Text}}{{#Extra}}<hr>{{Extra}}{{/Extra}}",
        }
    ],
    css=_CSS,
)

# The options are listed on both sides; the back marks the right one (CSS on .zg-revealed)
# and states it again under the line, with why the others are wrong.
MCQ_MODEL = genanki.Model(
    anki_id(MCQ_NAME),
    MCQ_NAME,
    fields=[
        {"name": n}
        for n in ("Question", "Options", "Answer", "Explanation", "Quote", "Source", "Concept")
    ],
    templates=[
        {
            "name": "Multiple choice",
            "qfmt": '{{Question}}<div class="zg-options">{{Options}}</div>',
            "afmt": (
                '{{Question}}<div class="zg-options zg-revealed">{{Options}}</div>'
                '<hr id="answer"><div class="zg-answer">{{Answer}}</div>'
                '{{#Explanation}}<div class="zg-explanation">{{Explanation}}</div>{{/Explanation}}'
                + _SOURCES
            ),
        }
    ],
    css=_CSS,
)

MODELS = {BASIC_NAME: BASIC_MODEL, CLOZE_NAME: CLOZE_MODEL, MCQ_NAME: MCQ_MODEL}

_CLOZE = re.compile(r"\{\{c([1-9]\d*)::(.+?)(?:::(.*?))?\}\}", re.DOTALL)
_LETTERS = "ABCDEF"
_RESERVED_TAGS = {"concept", "difficulty", "type"}


def _escape(text: str) -> str:
    escaped = html.escape(text.replace("\r\n", "\n"))
    # Braces as entities: no graph text can open a field reference or a cloze of its own.
    return escaped.replace("{", "&#123;").replace("}", "&#125;").replace("\n", "<br>")


def text_html(text: str) -> str:
    """Graph text as HTML: escaped, its line breaks kept, braces as entities."""
    return _escape(text.strip())


def cloze_html(cloze: str) -> str | None:
    """A cloze item's `{{c1::words}}` text with everything but the deletions escaped; None
    when it has no deletion (Anki would make no card of it)."""
    cloze = cloze.strip()
    parts: list[str] = []
    end = 0
    for match in _CLOZE.finditer(cloze):
        number, words, hint = match.groups()
        parts.append(_escape(cloze[end : match.start()]))
        parts.append(f"{{{{c{number}::{_escape(words)}")
        parts.append(f"::{_escape(hint)}}}}}" if hint else "}}")
        end = match.end()
    return "".join(parts) + _escape(cloze[end:]) if parts else None


def _quotes_html(card: CardSources) -> str:
    blocks = []
    for quote, place in zip(card.quotes, card.places(), strict=True):
        cite = f"<cite>{text_html(place)}</cite>" if place else ""
        blocks.append(f"<blockquote>{text_html(quote.text)}{cite}</blockquote>")
    return "".join(blocks)


def source_html(card: CardSources) -> str:
    """The book in italics and its author: "<i>Walden</i> — Henry David Thoreau"."""
    if card.book is None:
        return ""
    source = f"<i>{text_html(card.book.title)}</i>"
    return f"{source} — {text_html(card.author)}" if card.author else source


def concepts_html(card: CardSources) -> str:
    return " · ".join(text_html(concept.title) for concept in card.concepts)


def _explanation_html(text: str) -> str:
    return f'<div class="zg-explanation">{text_html(text)}</div>' if text.strip() else ""


def tags(card: CardSources) -> list[str]:
    """`zettelgraph::<book>`, `zettelgraph::concept::<concept>` for each concept,
    `zettelgraph::difficulty::<d>` and `zettelgraph::type::<t>`: all under one root, so they
    never mix with the reader's own tags."""
    found = []
    if card.book is not None:
        book = tag_slug(card.book.title, card.book.id[:8])
        # A book called "Type" must not become the parent of every type tag.
        found.append(f"zettelgraph::{book}{'-book' if book in _RESERVED_TAGS else ''}")
    found += [f"zettelgraph::concept::{tag_slug(c.title, c.id[:8])}" for c in card.concepts]
    found.append(f"zettelgraph::difficulty::{card.item.difficulty}")
    found.append(f"zettelgraph::type::{card.item.item_type}")
    return list(dict.fromkeys(found))


def note_for(card: CardSources, position: int) -> genanki.Note:
    """The Anki note of one card: its note type by item type, its GUID from the item's id,
    and `position` as its place in the deck's queue of new cards."""
    model, fields = _cloze_note(card) or _mcq_note(card) or _basic_note(card)
    return genanki.Note(
        model=model,
        fields=fields,
        guid=genanki.guid_for(card.item.id),
        tags=tags(card),
        due=position,
    )


def _cloze_note(card: CardSources) -> tuple[genanki.Model, list[str]] | None:
    item = card.item
    text = cloze_html(item.cloze) if item.item_type == ItemType.CLOZE else None
    if text is None:
        return None
    # The text is the quote itself: the back adds where it is from, not the quote again.
    places = "; ".join(text_html(p) for p in dict.fromkeys(card.places()) if p)
    source = ", ".join(part for part in (source_html(card), places) if part)
    extra = _explanation_html(item.explanation)
    if source:
        extra += f'<div class="zg-source">{source}</div>'
    if card.concepts:
        extra += f'<div class="zg-concept">{concepts_html(card)}</div>'
    return CLOZE_MODEL, [text, extra]


def _mcq_note(card: CardSources) -> tuple[genanki.Model, list[str]] | None:
    item = card.item
    correct = item.correct
    if item.item_type != ItemType.MCQ or correct is None or not 0 <= correct < len(item.options):
        return None
    options = "".join(
        f'<li class="zg-correct">{text_html(o)}</li>'
        if n == correct
        else f"<li>{text_html(o)}</li>"
        for n, o in enumerate(item.options)
    )
    return MCQ_MODEL, [
        text_html(item.front),
        f'<ol type="A">{options}</ol>',
        f"{_LETTERS[correct]}. {text_html(item.options[correct])}",
        text_html(item.explanation),
        _quotes_html(card),
        source_html(card),
        concepts_html(card),
    ]


def _basic_note(card: CardSources) -> tuple[genanki.Model, list[str]]:
    # Flashcards and relation items; also a cloze or MCQ item missing its parts, which is
    # still a question with an answer.
    item = card.item
    back = text_html(item.back) + _explanation_html(item.explanation)
    front = text_html(item.front)
    if item.item_type == ItemType.CODE_COMPLETION:
        # Code reads by its lines and indentation, which HTML would collapse.
        front = f'<div class="zg-code">{front}</div>'
    fields = [front, back, _quotes_html(card), source_html(card)]
    return BASIC_MODEL, [*fields, concepts_html(card)]
