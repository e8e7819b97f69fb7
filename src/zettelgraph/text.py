"""Small text rules shared by workflows (pure functions)."""

from __future__ import annotations

import re

from zettelgraph.models import normalize_name

# The stored summaries' promises (Content, Person, Concept).
SUMMARY_WORDS = 100
SHORT_SUMMARY_WORDS = 30

_SENTENCE_END = re.compile(r"[.!?…](?=\s|$)")


def clip_words(text: str, max_words: int) -> str:
    """At most `max_words` words, cut at the last sentence end that fits when there is one.

    Models overshoot word limits often; clipping keeps the stored summary within its promise
    without spending another LLM call.
    """
    words = text.split()
    if len(words) <= max_words:
        return " ".join(words)
    clipped = " ".join(words[:max_words])
    ends = list(_SENTENCE_END.finditer(clipped))
    if ends and ends[-1].end() > len(clipped) // 2:
        return clipped[: ends[-1].end()]
    return clipped.rstrip(",;:") + "…"


_WORD = re.compile(r"\w+", re.UNICODE)


def word_set(text: str) -> set[str]:
    """The distinct words of `text`, case- and accent-folded (so "Él" and "el" are one)."""
    return set(_WORD.findall(normalize_name(text)))


def copied_share(body: str, source: str) -> float:
    """The share of `body`'s distinct words that also occur in `source` (0 for an empty body).

    A concept whose body is 80% the words of its quote restates the quote instead of
    distilling it; a paraphrase with its own words scores far lower.
    """
    words = word_set(body)
    if not words:
        return 0.0
    return len(words & word_set(source)) / len(words)
