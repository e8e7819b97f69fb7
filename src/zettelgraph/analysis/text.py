"""The text rules every experiment tool shares: folding, word tokens, finding the term, and
citing a passage.

Matching rule. Text and term are folded (case and accents, as `normalize_name`: "Nación" and
"nacion" are one word) and cut into word tokens (`\\w+`). A word of the term matches a token
equal to it or to it plus "s" or "es", the regular Spanish and English plurals ("honra" finds
"honras", "nación" finds "naciones", "law" finds "laws"). A term of several words matches
those tokens in a row, each word by the same rule ("rey católico" finds "reyes católicos"),
whatever punctuation or spacing lies between them. Irregular plurals ("luz"/"luces",
"man"/"men") and other inflections ("honrado") are not matched: they are other words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from zettelgraph.analysis.models import Citation
from zettelgraph.analysis.registry import Document
from zettelgraph.models import Quote
from zettelgraph.text.normalize import normalize_name

T = TypeVar("T")

TOKEN = re.compile(r"\w+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# Folding one character at a time (cached) is what makes offsets in the folded text point
# back into the original: a KWIC line or an entity is shown as the reader wrote it.
_FOLDS: dict[str, str] = {}
# Characters whose fold is not one character ("ß" -> "ss", a combining accent -> ""): a text
# holding one of them needs an offset map.
_UNEVEN: set[str] = set()
CITATION_CHARS = 800
PLURAL_SUFFIXES = ("s", "es")


def _fold_char(ch: str) -> str:
    folded = _FOLDS.get(ch)
    if folded is None:
        folded = " " if ch.isspace() else normalize_name(ch).lower()
        if len(folded) != 1:
            _UNEVEN.add(ch)
        _FOLDS[ch] = folded
    return folded


def _fold_match(match: re.Match[str]) -> str:
    return _fold_char(match.group())


@dataclass(frozen=True, slots=True)
class Folded:
    """A passage's text folded once, with the way back to the original's offsets."""

    text: str
    folded: str
    # The original index of each folded character; None when folding kept every length.
    offsets: tuple[int, ...] | None = None

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The original text's span for the folded span [start, end)."""
        if self.offsets is None:
            return start, end
        if start >= end:
            at = self.offsets[start] if start < len(self.offsets) else len(self.text)
            return at, at
        return self.offsets[start], self.offsets[end - 1] + 1

    def surface(self, start: int, end: int) -> str:
        """The original text of the folded span [start, end)."""
        first, last = self.original(start, end)
        return self.text[first:last]


def fold_text(text: str) -> Folded:
    """`text` folded (lower case, no accents), keeping the way back to its offsets."""
    if text.isascii():
        return Folded(text, text.lower())
    folded = _NON_ASCII.sub(_fold_match, text).lower()
    if _UNEVEN.isdisjoint(text):
        return Folded(text, folded)
    parts: list[str] = []
    offsets: list[int] = []
    for index, ch in enumerate(text):
        piece = ch.lower() if ch.isascii() else _fold_char(ch)
        parts.append(piece)
        offsets.extend([index] * len(piece))
    return Folded(text, "".join(parts), tuple(offsets))


def fold(text: str) -> str:
    """Case- and accent-folded text, character by character (spacing kept)."""
    return fold_text(text).folded


def words(text: str) -> list[str]:
    """The folded word tokens of `text`."""
    return TOKEN.findall(fold(text))


class TermMatcher:
    """Finds a term (one or several words) in folded text by the module's matching rule."""

    def __init__(self, term: str) -> None:
        found = words(term)
        if not found:
            raise ValueError(f"the term {term!r} has no word to look for")
        self.term = term
        self.words: tuple[str, ...] = tuple(found)
        # Every form a token may take at each position of the term.
        self.forms: tuple[frozenset[str], ...] = tuple(
            frozenset([w, *(w + s for s in PLURAL_SUFFIXES)]) for w in found
        )
        self.all_forms: frozenset[str] = frozenset().union(*self.forms)
        body = r"\W+".join(re.escape(w) + "(?:e?s)?" for w in found)
        self.pattern = re.compile(rf"(?<!\w){body}(?!\w)")

    def spans(self, folded: str) -> list[tuple[int, int]]:
        """Folded offsets of every match, left to right, not overlapping."""
        return [m.span() for m in self.pattern.finditer(folded)]

    def count(self, folded: str) -> int:
        return len(self.pattern.findall(folded))

    def found_in(self, folded: str) -> bool:
        return self.pattern.search(folded) is not None

    def token_matches(self, tokens: Sequence[str]) -> list[int]:
        """Start indices of the term in a token list (the same matches as `spans`)."""
        size = len(self.forms)
        first = self.forms[0]
        out: list[int] = []
        index = 0
        last = len(tokens) - size
        while index <= last:
            if tokens[index] in first and all(
                tokens[index + k] in self.forms[k] for k in range(1, size)
            ):
                out.append(index)
                index += size
            else:
                index += 1
        return out


@dataclass(frozen=True, slots=True)
class Token:
    """A word token: folded form and its span in the folded text."""

    word: str
    start: int
    end: int


def tokens(folded: str) -> list[Token]:
    return [Token(m.group(), m.start(), m.end()) for m in TOKEN.finditer(folded)]


def passages_with_term(passages: Sequence[Quote], term: str) -> list[Quote]:
    """The passages that mention `term` (none when the term has no word)."""
    try:
        matcher = TermMatcher(term)
    except ValueError:
        return []
    return [p for p in passages if matcher.found_in(fold(p.text))]


def folded_passages(document: Document) -> Iterator[tuple[Quote, Folded]]:
    """Each passage with its folded text, in reading order."""
    for passage in document.passages:
        yield passage, fold_text(passage.text)


def clip(text: str, limit: int) -> str:
    """`text` on one line, at most `limit` characters (an ellipsis marks a cut)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def cite(document: Document, passage: Quote) -> Citation:
    """The citation of a passage of `document`."""
    return Citation(
        passage_id=passage.id,
        content_id=document.info.id,
        title=document.info.title,
        location=document.location(passage),
        text=clip(passage.text, CITATION_CHARS),
    )


def evenly(items: Sequence[T], limit: int) -> list[T]:
    """At most `limit` of `items`, spread evenly from first to last (deterministic)."""
    if len(items) <= limit:
        return list(items)
    if limit <= 0:
        return []
    if limit == 1:
        return [items[0]]
    step = (len(items) - 1) / (limit - 1)
    return [items[round(i * step)] for i in range(limit)]


def per_10k(occurrences: int, words: int) -> float:
    """Occurrences per 10,000 words, rounded to 2 decimals (0 for no words)."""
    return round(occurrences * 10_000 / words, 2) if words else 0.0
