"""Distillation: a concept says the idea in its own words instead of pasting its quote."""

from __future__ import annotations

import re
from collections.abc import Mapping

from zettelgraph.text import copied_share

# A body whose distinct words are at least this share the quote's words is a copy (issue 11's
# measure); a real paraphrase of a one-sentence quote scores well under 0.6.
COPY_LIMIT = 0.8


def copied_quote(
    body: str, quotes: Mapping[str, str], limit: float = COPY_LIMIT
) -> tuple[str, float] | None:
    """The quote id that `body` copies, with the share of copied words; None if none."""
    best: tuple[str, float] | None = None
    for quote_id, text in quotes.items():
        share = copied_share(body, text)
        if share >= limit and (best is None or share > best[1]):
            best = (quote_id, share)
    return best


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
