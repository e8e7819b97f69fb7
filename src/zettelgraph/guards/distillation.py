"""Distillation: a concept says the idea in its own words instead of pasting its quote."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from zettelgraph.text.normalize import copied_share, word_sequence

# A body whose distinct words are at least this share the quote's words is a copy (issue 11's
# measure); a real paraphrase of a one-sentence quote scores well under 0.6.
COPY_LIMIT = 0.8


def copied_quote(
    body: str,
    quotes: Mapping[str, str],
    limit: float = COPY_LIMIT,
    measure: Callable[[str, str], float] = copied_share,
) -> tuple[str, float] | None:
    """The quote id that `body` copies, with the share of copied words (`measure`, by default
    the share of the body's words that are the quote's); None if none."""
    best: tuple[str, float] | None = None
    for quote_id, text in quotes.items():
        share = measure(body, text)
        if share >= limit and (best is None or share > best[1]):
            best = (quote_id, share)
    return best


# An extractive statement keeps its quote's words where they are still current: that is the
# design, so sharing words is no copy. What adds nothing is the quote pasted whole: nearly all
# its words, in its order, inside the statement. Measured on the quote's side (what share of it
# the statement repeats in order), not the statement's: a faithful one-sentence restatement of
# a long quote repeats a fraction of it, a paste of a short one repeats all of it.
WHOLE_COPY_LIMIT = 0.9


def in_order_share(body: str, quote: str) -> float:
    """The share of `quote`'s words that `body` repeats in the same order (the longest common
    subsequence of their words, case and accents aside); 0 for an empty quote."""
    said, source = word_sequence(body), word_sequence(quote)
    if not source:
        return 0.0
    row = [0] * (len(said) + 1)
    for word in source:
        diagonal = 0
        for j, other in enumerate(said, 1):
            above = row[j]
            row[j] = diagonal + 1 if word == other else max(row[j], row[j - 1])
            diagonal = above
    return row[-1] / len(source)


def copied_whole_quote(
    body: str, quotes: Mapping[str, str], limit: float = WHOLE_COPY_LIMIT
) -> tuple[str, float] | None:
    """The quote id whose words `body` repeats nearly whole and in order, with the share
    repeated; None if none (the copy rule of statements that keep their quote's words)."""
    return copied_quote(body, quotes, limit, measure=in_order_share)


# A title names an idea in a few words; past this many it is a sentence, most often the quote's
# own, clipped at the field's limit, and it becomes the note's file name in the vault.
TITLE_MAX_WORDS = 12


def long_title(title: str, limit: int = TITLE_MAX_WORDS) -> bool:
    """Whether a title is a sentence rather than a name."""
    return len(title.split()) > limit


# A title cut to its first clause is kept only when the clause is a name of this many words.
CLAUSE_TITLE_WORDS = (2, 8)
_CLAUSE_END = re.compile(r"[,;:(—–]|\s-\s")


def clause_title(title: str) -> str | None:
    """A long title's first clause, when it is a short name on its own ("Comenzar el día
    diciendo a mí mismo" from a 21-word sentence); None when it is not.

    The last resort for a title still a sentence after its rewrites: it becomes the vault
    note's file name, and the first clause of the model's sentence is what it names."""
    clause = _CLAUSE_END.split(" ".join(title.split()), maxsplit=1)[0].strip(" .…")
    low, high = CLAUSE_TITLE_WORDS
    return clause if low <= len(clause.split()) <= high else None
