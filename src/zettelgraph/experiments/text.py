"""The text rules every experiment tool shares: folding, word tokens, finding the term, and
citing a passage.

Matching rule: the term is found as full-text search finds it (`text.stemming`), so an
experiment on "gobierno" and a search for it agree. Text and term are cut into word tokens
(`\\w+`), each token is stemmed in its passage's language (guessed from its function words,
as when the passage is indexed) and accent-folded; a word of the term matches a token with
the same stem ("gobierno" finds "gobiernos" and "Gobierno", "nación" finds "naciones", "law"
finds "laws"). A term of several words matches those tokens in a row, each by the same rule
("rey católico" finds "reyes católicos"), whatever punctuation or spacing lies between them.

`match="exact"` (a term's `match`) is the exact concordance: a token matches only the very
word, case and accents aside ("gobierno" finds "Gobierno" but not "gobiernos"), for a
reader who counts one word form.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

from zettelgraph.experiments.models import Citation, TermMatch
from zettelgraph.experiments.registry import Document
from zettelgraph.models import Quote
from zettelgraph.text.language import detect_language, language_of
from zettelgraph.text.normalize import normalize_name
from zettelgraph.text.stemming import remembered_stems

T = TypeVar("T")

TOKEN = re.compile(r"\w+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# Folding one character at a time (cached) is what makes offsets in the folded text point
# back into the original: a KWIC line or an entity is shown as the reader wrote it.
_FOLDS: dict[str, str] = {}
# Characters whose fold is not one character ("ß" -> "ss", a combining accent -> ""): a text
# holding one of them needs an offset map.
_UNEVEN: set[str] = set()
# Characters that are a word character and fold to a non-word one, or the other way round: a
# text holding one of them cuts into other words once folded.
_RETYPED: set[str] = set()
CITATION_CHARS = 800


def _fold_char(ch: str) -> str:
    folded = _FOLDS.get(ch)
    if folded is None:
        folded = " " if ch.isspace() else normalize_name(ch).lower()
        if len(folded) != 1:
            _UNEVEN.add(ch)
        elif (TOKEN.match(ch) is None) != (TOKEN.match(folded) is None):
            _RETYPED.add(ch)
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
    # Whether the original's word tokens are the folded text's, one for one, at the same
    # offsets: they can then be read from the original in one pass.
    aligned: bool = False

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
        return Folded(text, text.lower(), aligned=True)
    folded = _NON_ASCII.sub(_fold_match, text).lower()
    if _UNEVEN.isdisjoint(text):
        return Folded(text, folded, aligned=_RETYPED.isdisjoint(text))
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


class TermMatcher:
    """Finds a term (one or several words) in folded text by the module's matching rule."""

    def __init__(self, term: str, match: TermMatch = "stems") -> None:
        folded = fold_text(term)
        self.match = match
        # The term is analysed as search analyses a query: in the language its words show.
        self.keys: tuple[str, ...] = tuple(self._keys(folded, detect_language(term)))
        if not self.keys:
            raise ValueError(f"the term {term!r} has no word to look for")
        self.term = term
        self.own: frozenset[str] = frozenset(self.keys)

    def _keys(self, folded: Folded, language: str | None = None) -> list[str]:
        found = TOKEN.findall(folded.folded)
        if self.match == "exact":
            return found
        language = language or language_of(found, folded.text)
        # Snowball reads accents ("-ación"), so each token is stemmed as written.
        if folded.aligned:
            surfaces = TOKEN.findall(folded.text)
        else:
            surfaces = [folded.surface(*m.span()) for m in TOKEN.finditer(folded.folded)]
        return remembered_stems(list(map(str.casefold, surfaces)), language)

    def keys_of(self, folded: Folded) -> list[str]:
        """What each word token of a passage is compared by (its stem, or its folded word
        in exact mode), in the order of `words_of(folded.folded)`."""
        return self._keys(folded)

    def token_matches(self, keys: Sequence[str]) -> list[int]:
        """Start indices of the term in a passage's keys (`keys_of`), left to right, not
        overlapping."""
        first = self.keys[0]
        if first not in keys:  # most passages: one pass in C
            return []
        size = len(self.keys)
        rest = list(self.keys[1:])
        out: list[int] = []
        index = keys.index(first)
        last = len(keys) - size
        while 0 <= index <= last:
            if list(keys[index + 1 : index + size]) == rest:
                out.append(index)
                index += size
            else:
                index += 1
            index = _next(keys, first, index)
        return out

    def spans(self, folded: Folded) -> list[tuple[int, int]]:
        """Folded offsets of every match, left to right, not overlapping."""
        starts = self.token_matches(self.keys_of(folded))
        if not starts:
            return []
        spans = [m.span() for m in TOKEN.finditer(folded.folded)]
        size = len(self.keys)
        return [(spans[start][0], spans[start + size - 1][1]) for start in starts]

    def count(self, folded: Folded) -> int:
        return len(self.token_matches(self.keys_of(folded)))

    def found_in(self, folded: Folded) -> bool:
        return bool(self.token_matches(self.keys_of(folded)))

    def is_term_word(self, key: str) -> bool:
        """Whether a token with this key is one of the term's own words (not its company)."""
        return key in self.own


def _next(keys: Sequence[str], key: str, start: int) -> int:
    """The index of `key` in `keys` from `start` on, or -1."""
    try:
        return keys.index(key, start)
    except ValueError:
        return -1


def passages_with_term(
    passages: Sequence[Quote], term: str, match: TermMatch = "stems"
) -> list[Quote]:
    """The passages that mention `term` (none when the term has no word)."""
    try:
        matcher = TermMatcher(term, match)
    except ValueError:
        return []
    return [p for p in passages if matcher.found_in(fold_text(p.text))]


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
