"""Small text rules shared by workflows (pure functions)."""

from __future__ import annotations

import re

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
