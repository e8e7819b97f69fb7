"""Summaries and statements as stored: clipped to their word limits, a model's loops and
unfinished sentences taken out (pure functions)."""

from __future__ import annotations

import re

from zettelgraph.text.normalize import normalize_name

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


def short_summary(text: str) -> str:
    """A one-sentence summary cut from a longer text: its first sentence, within the short
    summary's word limit. What a small model is not asked to write (it restated its concept
    there word for word, at about 80 ms a token) is made from what it wrote."""
    text = " ".join(text.split())
    end = _SENTENCE_END.search(text)
    return clip_words(text[: end.end()] if end else text, SHORT_SUMMARY_WORDS)


# "(p. 12)", "(p. 7-8)", or "(p." cut by the length bound: how the prompts show a quote's page,
# which a model that keeps the quote's words (extractive statements) copies after it.
_PAGE_REFERENCE = re.compile(r"\s*\(p\.(?:\s*[\d][\d\s,\-–]*)?\)?")


def tidy_statement(text: str) -> str:
    """A model's statement without the sentences it repeated and without a last sentence it did
    not finish (cut by its length bound), when a finished one comes before it.

    A small model sometimes loops ("La iglesia es un lugar donde ... . La iglesia es un lugar
    donde ...") until the field's bound stops it mid-word; what is left is what it said once.
    A page reference it copied from the quote's line ("... razón. (p. 12)") is not its words."""
    text = " ".join(_PAGE_REFERENCE.sub("", text).split())
    cuts = [m.end() for m in _SENTENCE_END.finditer(text)]
    sentences = [text[a:b].strip() for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    sentences = [s for s in sentences if s]
    if len(sentences) > 1 and not _SENTENCE_END.search(sentences[-1][-1:]):
        sentences.pop()  # unfinished: the bound cut it
    kept: list[str] = []
    for sentence in map(_without_repeated_clauses, sentences):
        if normalize_name(sentence) not in {normalize_name(k) for k in kept}:
            kept.append(sentence)
    return " ".join(kept)


def _without_repeated_clauses(sentence: str) -> str:
    """A sentence without the clauses (between commas, two words or more) it already said:
    "La vida es un esparcimiento, es un esparcimiento, es un esparcimiento." says it once."""
    end = sentence[-1] if _SENTENCE_END.search(sentence[-1:]) else ""
    clauses = sentence[: len(sentence) - len(end)].split(", ")
    kept = clauses[:1]
    for clause in clauses[1:]:
        key = normalize_name(clause).strip()
        said = any(key in normalize_name(k) for k in kept)
        if not (said and len(key.split()) >= 2):
            kept.append(clause)
    return ", ".join(kept) + end
