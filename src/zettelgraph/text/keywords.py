"""The key words of a text: what a reader would name it by, as written there."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from zettelgraph.text.language import DEFAULT_LANGUAGE, detect_language
from zettelgraph.text.normalize import normalize_name
from zettelgraph.text.stemming import stems
from zettelgraph.text.stopwords import STOPWORDS_BY_LANGUAGE

_LETTERS = re.compile(r"[^\W\d_]+", re.UNICODE)
# Shorter words are mostly function words and particles the stopword lists miss ("dijo", "iba").
_KEY_WORD_MIN = 5


def key_words(
    texts: Sequence[str], limit: int = 5, only_language: str | None = None
) -> list[list[str]]:
    """For each text (a book's quotes), the words a reader would name it by, as written there:
    no function words, no numbers, at least five letters, one per stem; those the fewest other
    texts share first (what sets a quote apart from the book's others), then the longest; in
    the text's own order. With `only_language`, a text in another language gets none.

    A small model told to name a quote "with its key words" picks generic ones ("cambio de
    opinión"); shown these, its title keeps the quote's own subject, which is what the default
    embedder, and a reader scanning titles, recognise it by (docs/design.md, "Key words").
    """
    found: list[dict[str, tuple[str, int]]] = []
    for text in texts:
        language = detect_language(text, only_language or DEFAULT_LANGUAGE)
        own: dict[str, tuple[str, int]] = {}
        if only_language is None or language == only_language:
            stopwords = STOPWORDS_BY_LANGUAGE.get(language, frozenset())
            tokens = [
                (position, token)
                for position, token in enumerate(_LETTERS.findall(text))
                if len(token) >= _KEY_WORD_MIN and normalize_name(token) not in stopwords
            ]
            stemmed = stems([token.casefold() for _, token in tokens], language)
            for stem, (position, token) in zip(stemmed, tokens, strict=True):
                own.setdefault(stem, (token, position))
        found.append(own)
    shared = Counter(stem for own in found for stem in own)
    chosen = []
    for own in found:
        ranked = sorted(own, key=lambda stem: (shared[stem], -len(own[stem][0])))[:limit]
        chosen.append([own[stem][0] for stem in sorted(ranked, key=lambda stem: own[stem][1])])
    return chosen
