"""A book's cards as Markdown for the Obsidian Spaced Repetition plugin (st3v3nmw), and the
plugin's scheduling comments read back out of a file. Pure functions, no I/O.

The plugin's syntax (its default settings): a tag such as `#flashcards/walden` puts the cards
after it in a deck; a card is a paragraph (a blank line ends it); a line holding only `?`
separates a multi-line card's front from its back; `==words==` makes a cloze deletion. After a
review the plugin writes its schedule in an HTML comment right after the card
(`<!--SR:!2026-12-01,3,250-->`, on the next line or, with one setting, at the end of the last).

zettelgraph ends each card's last line with `<!--zg:ITEM_ID-->`, so a rewrite finds each card's
scheduling comment and puts it back after the same card. The marker is never at the start of a
line: the plugin skips a line that starts with `<!--` (and, up to version 1.12, the line after
it too), while a comment inside a line is only hidden by Obsidian.

Text from the graph is written so that it stays text: one line per field, and backslash
escapes or entities for what the plugin or Obsidian would read as syntax (`::` inline cards,
`==` clozes, `#` tags, `[[` links, `<!--` comments, a line of only `?`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import yaml

from zettelgraph.models import Content, ItemType
from zettelgraph.provenance.card_sources import CardSources, tag_slug
from zettelgraph.text.normalize import normalize_name

DECK_TAG = "#flashcards"
GENERATED_BY = "zettelgraph"
OWNED_KEYS = ("generated_by", "content_id")

_MARKER = re.compile(r"<!--zg:([^\s>]+?)-->")
_SCHEDULE = re.compile(r"<!--SR:.*?-->")
_CLOZE = re.compile(r"\{\{c[1-9]\d*::(.+?)(?:::.*?)?\}\}", re.DOTALL)
_ENTITY = re.compile(r"&(?=#?\w+;)")
_WHITESPACE = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f]")
_WORD = re.compile(r"\w+")
_DOUBLED = re.compile(r"([=:%~{}])(?=\1)")
_NUMBERED = re.compile(r"^\d+(?=[.)])")
_ONLY_QUESTION_MARKS = re.compile(r"^\?+$")
_SPECIAL = str.maketrans(
    {
        "\\": "\\\\",
        "*": "\\*",
        "`": "\\`",
        "$": "\\$",
        "#": "\\#",
        "[": "\\[",
        "]": "\\]",
        "<": "&lt;",
    }
)
_LETTERS = "ABCDEF"
# In a cloze card the link is shown on the front too: it must not give the answer away.
HIDDEN_LINK_TEXT = "↗"
# Note names keep these (safe_note_name removes only what breaks a file name or a wikilink),
# but in a card line the plugin would read them as a cloze or Obsidian as math or code.
_UNSAFE_IN_LINK = ("==", "{{", "}}", "$", "`", "%%", "~~")


@dataclass(frozen=True)
class Scheduling:
    """The plugin's scheduling comment of one card, and whether it sat on the card's last line
    (the plugin's "on the same line" setting) rather than on the line after it."""

    comment: str
    same_line: bool = False


@dataclass(frozen=True)
class NoteLink:
    """Where a concept's note is: its file stem and its path from the vault root ('/')."""

    name: str
    path: str

    def markdown(self, text: str | None = None) -> str:
        """`[[Name]]` (or `[[Name|text]]`); a name the card syntax would misread gets a
        Markdown link to the percent-encoded path instead, which Obsidian resolves too."""
        if not any(part in self.name for part in _UNSAFE_IN_LINK):
            return f"[[{self.name}|{text}]]" if text else f"[[{self.name}]]"
        return f"[{text or inline_text(self.name)}]({quote(self.path)})"


def card_marker(item_id: str) -> str:
    return f"<!--zg:{item_id}-->"


def inline_text(text: str) -> str:
    """Graph text as one line of Markdown that reads as the text itself, nothing more:
    whitespace runs (line breaks included) become one space, syntax characters are escaped."""
    return _escape(text).strip()


def _escape(text: str, *, every_equals: bool = False) -> str:
    # `every_equals` escapes each `=`, for text right next to a `==` cloze delimiter.
    line = _WHITESPACE.sub(" ", _CONTROL.sub("", text))
    line = _ENTITY.sub("&amp;", line).translate(_SPECIAL)
    line = line.replace("=", "\\=") if every_equals else line
    return _DOUBLED.sub(lambda m: m.group(1) + "\\", line)


def _line(text: str) -> str:
    """`inline_text` made safe as a whole line: never only question marks (a separator), never
    a quote, list or numbered item by accident."""
    return _literal_start(inline_text(text))


def _literal_start(line: str) -> str:
    if _ONLY_QUESTION_MARKS.match(line) or line[:1] in (">", "+", "-"):
        return "\\" + line
    numbered = _NUMBERED.match(line)
    return f"{line[: numbered.end()]}\\{line[numbered.end() :]}" if numbered else line


def cloze_line(cloze: str) -> str | None:
    """A `{{c1::words}}` text with each deletion as `==words==`; None without a deletion."""
    parts: list[str] = []
    end = 0
    for match in _CLOZE.finditer(cloze):
        parts.append(_escape(cloze[end : match.start()], every_equals=True))
        parts.append(f"=={_escape(match.group(1), every_equals=True).strip()}==")
        end = match.end()
    if not parts:
        return None
    parts.append(_escape(cloze[end:], every_equals=True))
    return _literal_start("".join(parts).strip())


def cloze_words(cloze: str) -> list[str]:
    return [match.group(1) for match in _CLOZE.finditer(cloze)]


def scheduling_comments(text: str) -> dict[str, Scheduling]:
    """Each card's scheduling comment in a file zettelgraph wrote, by item id: the plugin's
    comment after the card's marker on the same line, or alone on the next line."""
    found: dict[str, Scheduling] = {}
    lines = text.splitlines()
    for number, line in enumerate(lines):
        marker = _MARKER.search(line)
        if marker is None:
            continue
        same_line = _SCHEDULE.search(line, marker.end())
        following = lines[number + 1].strip() if number + 1 < len(lines) else ""
        if same_line is not None:
            found[marker.group(1)] = Scheduling(same_line.group(0), same_line=True)
        elif following.startswith("<!--SR:") and (comment := _SCHEDULE.match(following)):
            found[marker.group(1)] = Scheduling(comment.group(0))
    return found


def render_card_file(
    book: Content,
    cards: Sequence[CardSources],
    links: Mapping[str, NoteLink],
    schedules: Mapping[str, Scheduling] | None = None,
    front_matter: Mapping[str, Any] | None = None,
) -> str:
    """The cards file of one book: front matter (zettelgraph's keys, then `front_matter`'s
    other keys), the deck tag, then each card followed by its kept scheduling comment.

    `links` maps a concept id to its note; a concept without one is not linked.
    """
    schedules = schedules or {}
    keys = {"generated_by": GENERATED_BY, "content_id": book.id}
    keys.update({k: v for k, v in (front_matter or {}).items() if k not in OWNED_KEYS})
    dumped = yaml.safe_dump(keys, allow_unicode=True, sort_keys=False, width=1_000_000)
    blocks = [f"---\n{dumped}---\n{DECK_TAG}/{tag_slug(book.title, book.id[:8])}\n"]
    for card in cards:
        lines = card_lines(card, links)
        kept = schedules.get(card.item.id)
        if kept is not None and kept.same_line:
            lines[-1] += f" {kept.comment}"
        elif kept is not None:
            lines.append(kept.comment)
        blocks.append("".join(f"{line}\n" for line in lines))
    return "\n".join(blocks)


def card_lines(card: CardSources, links: Mapping[str, NoteLink]) -> list[str]:
    """One card's lines, the last ending with its marker. No line is empty: a blank line
    would end the card early."""
    item = card.item
    cloze = cloze_line(item.cloze) if item.item_type == ItemType.CLOZE else None
    if cloze is not None:
        # The text is the reader's quote: the line under it says where it is from.
        hide = [c.id for c in card.concepts if _gives_away(cloze_words(item.cloze), c.title)]
        places = [inline_text(p) for p in dict.fromkeys(card.places()) if p]
        lines = [cloze, _source_line(card, links, hidden=hide, places=places)]
    else:
        lines = _question_lines(card, links)
    lines = [line for line in lines if line]
    lines[-1] += " " + card_marker(item.id)
    return lines


def code_lines(text: str) -> list[str]:
    """Code as card lines: one a line (no empty one, which would end the card), its
    indentation kept as no-break spaces, which the line's Markdown escaping leaves alone."""
    out = []
    for line in text.splitlines():
        body = inline_text(line)
        if body:
            indent = len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())
            out.append("\u00a0" * indent + body)
    return out


def _gives_away(hidden: list[str], title: str) -> bool:
    """Whether a title shows a hidden word (or a longer form of it: "bosque", "Bosques")."""
    words = [w for phrase in hidden for w in normalize_name(phrase).split() if len(w) >= 3]
    return any(t.startswith(w) for w in words for t in _WORD.findall(normalize_name(title)))


def _question_lines(card: CardSources, links: Mapping[str, NoteLink]) -> list[str]:
    item = card.item
    front, back = [_line(item.front) or "…"], [_line(item.back) or "…"]
    if item.item_type == ItemType.CODE_COMPLETION:
        front = code_lines(item.front) or front
    correct = item.correct
    if item.item_type == ItemType.MCQ and correct is not None and correct < len(item.options):
        front += [f"{_LETTERS[n]}. {inline_text(o)}" for n, o in enumerate(item.options)]
        back = [f"{_LETTERS[correct]}. {inline_text(item.options[correct])}"]
    back += [_line(item.explanation), _source_line(card, links)]
    for quote_node, place in zip(card.quotes, card.places(), strict=True):
        where = f" — {inline_text(place)}" if place else ""
        back.append(f"> {inline_text(quote_node.text)}{where}")
    return [*front, "?", *back]


def _source_line(
    card: CardSources,
    links: Mapping[str, NoteLink],
    *,
    hidden: Sequence[str] = (),
    places: Sequence[str] = (),
) -> str:
    """`[[Concept]] — *Book*, Author[, p. 12]`; empty when there is nothing to say."""
    shown = [
        links[c.id].markdown(HIDDEN_LINK_TEXT if c.id in hidden else None)
        for c in card.concepts
        if c.id in links
    ]
    title = inline_text(card.book.title) if card.book is not None else ""
    # An empty title must not leave "**", which the plugin can read as a cloze.
    source = [f"*{title}*"] if title else []
    source += [inline_text(card.author)] if card.author and card.author.strip() else []
    source += places
    return " — ".join(part for part in (" · ".join(shown), ", ".join(source)) if part)
