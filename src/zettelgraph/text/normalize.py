"""Folding text into keys: case-, accent- and spacing-insensitive names, whitespace-normalised
quotes, and the folded words of a text (pure functions)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass


def normalize_name(text: str) -> str:
    """Case-, accent- and spacing-insensitive key ("José  Ortega" == "jose ortega").

    Uses Unicode decomposition rather than an ASCII filter so Spanish letters such as
    "ñ" keep their base letter instead of disappearing.
    """
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(stripped.casefold().split())


def normalize_text(text: str) -> str:
    """Whitespace-normalised text, used for quote identity (case and accents kept)."""
    return " ".join(unicodedata.normalize("NFC", text).split())


_WORD = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> list[str]:
    """Lower-cased word tokens, accents kept (Snowball's Spanish rules need them)."""
    return _WORD.findall(text.casefold())


@dataclass(frozen=True, slots=True)
class Span:
    """Where some words sit in a text: `text[start:end]`."""

    start: int
    end: int
    text: str


def words_of(text: str) -> list[Span]:
    """The words of `text` with their places (letters and digits; punctuation between), as
    they are written: the cloze checks cut a card's words from its quote, the experiment tools
    the words of a folded passage."""
    return [Span(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]


def word_sequence(text: str) -> list[str]:
    """The words of `text` in order, case- and accent-folded (so "Él" and "el" are one)."""
    return _WORD.findall(normalize_name(text))


def word_set(text: str) -> set[str]:
    """The distinct words of `text`, case- and accent-folded."""
    return set(word_sequence(text))


def copied_share(body: str, source: str) -> float:
    """The share of `body`'s distinct words that also occur in `source` (0 for an empty body).

    A concept whose body is 80% the words of its quote restates the quote instead of
    distilling it; a paraphrase with its own words scores far lower.
    """
    words = word_set(body)
    if not words:
        return 0.0
    return len(words & word_set(source)) / len(words)
