"""Language-aware text analysis for full-text search, the same at index and query time on
every backend: lower-cased, Snowball-stemmed in the text's language, accent-folded.

So "gobernaba" and "gobernó" meet at "gobern", "ciudades" and "ciudad" come closer, and
the English rules never touch Spanish words. The original text is kept for display; only
the analysed copy is indexed. The language of a passage is guessed once, when it is
written, from its function words (`detect_language`); a question's the same way when it is
searched (docs/design.md, "Language-aware full-text search").
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from zettelgraph.models import normalize_name
from zettelgraph.retrieval.stopwords import STOPWORDS_BY_LANGUAGE

# Languages with a stemmer; any other text is folded but not stemmed.
STEMMERS = {"es": "spanish", "en": "english"}
# Text with no function word of either language (a title, a two-word query) is taken to be
# in the default concept language, at index and query time alike, so both sides agree.
DEFAULT_LANGUAGE = "es"
_WORD = re.compile(r"\w+", re.UNICODE)
_LETTERS = re.compile(r"[^\W\d_]+", re.UNICODE)
# What a user may type: a "quoted phrase", a prefix*, or a word.
_QUERY_PART = re.compile(r'"([^"]*)"|(\w+)\*|(\w+)', re.UNICODE)
_LOCK = threading.Lock()
# Stemming passes at most: Snowball's Spanish suffixes nest two deep (ciudad-es, ciudad-an-os).
_MAX_PASSES = 3
# Function words of one language only ("a", "no", "he" are both and count for neither).
_ONLY = {
    language: words
    - frozenset().union(*(o for k, o in STOPWORDS_BY_LANGUAGE.items() if k != language))
    for language, words in STOPWORDS_BY_LANGUAGE.items()
}


@lru_cache(maxsize=4)
def _stemmer(language: str) -> Any:
    import Stemmer  # PyStemmer: Snowball's C stemmers

    return Stemmer.Stemmer(STEMMERS[language])


def words(text: str) -> list[str]:
    """Lower-cased word tokens, accents kept (Snowball's Spanish rules need them)."""
    return _WORD.findall(text.casefold())


def detect_language(text: str, default: str = DEFAULT_LANGUAGE) -> str:
    """Spanish or English from function words; `default` when neither shows.

    Cheap enough to run on every passage written and every query searched.
    """
    folded = [normalize_name(token) for token in words(text)]
    spanish = sum(token in _ONLY["es"] for token in folded)
    english = sum(token in _ONLY["en"] for token in folded)
    if text.lstrip().startswith(("¿", "¡")) or spanish > english:
        return "es"
    return "en" if english > spanish else default


def stems(tokens: list[str], language: str | None) -> list[str]:
    """Each token stemmed in `language` (when it has a stemmer) until it no longer changes,
    then accent-folded.

    One Snowball pass is not idempotent: Spanish "ciudades" -> "ciudad" but "ciudad" ->
    "ciud", so the plural and the singular would never meet. Stemming to a fixed point
    (two or three passes at most) brings them together: "ciudades", "ciudad" -> "ciud".
    """
    if language in STEMMERS:
        stemmer = _stemmer(language)
        with _LOCK:  # a PyStemmer object is not safe to share between threads
            for _ in range(_MAX_PASSES):
                stemmed = stemmer.stemWords(tokens)
                if stemmed == tokens:
                    break
                tokens = stemmed
    return [normalize_name(token) for token in tokens]


def analyze(text: str, language: str | None) -> str:
    """The indexed copy of `text`: its stems, space-separated."""
    return " ".join(stems(words(text), language))


def analyze_query(query: str, language: str | None = None) -> list[str]:
    """The terms a full-text index is asked for, analysed as the indexed copy was.

    The query's language is detected when not given; its function words are dropped (all
    kept if the query has nothing else) and the rest stemmed. Each term is one of:
    - a stem ("ciudad");
    - a phrase, stems joined by one space ("ciudad de mexico"), from a "quoted phrase";
      nothing is dropped from it, as the index keeps every word;
    - a prefix ending in "*" ("gober*"), from a word typed with a trailing *: folded but not
      stemmed, so it matches every stem that starts with what was typed.
    Backends render them in their own syntax; the user's text is never read as syntax.
    """
    language = language or detect_language(query)
    stopwords = STOPWORDS_BY_LANGUAGE.get(language, frozenset())
    plain: list[str] = []
    terms: list[str] = []
    for phrase, prefix, word in _QUERY_PART.findall(query.casefold()):
        if prefix:
            terms.append(normalize_name(prefix) + "*")
        elif word:
            plain.append(word)
        elif phrase and (analysed := analyze(phrase, language)):
            terms.append(analysed)
    kept = [word for word in plain if normalize_name(word) not in stopwords] or plain
    terms.extend(stems(kept, language))
    return list(dict.fromkeys(terms))


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
