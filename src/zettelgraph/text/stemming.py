"""Language-aware text analysis for full-text search, the same at index and query time on
every backend: lower-cased, Snowball-stemmed in the text's language, accent-folded.

So "gobernaba" and "gobernó" meet at "gobern", "ciudades" and "ciudad" come closer, and
the English rules never touch Spanish words. The original text is kept for display; only
the analysed copy is indexed. The language of a passage is guessed once, when it is
written, from its function words (`text.language.detect_language`); a question's the same
way when it is searched (docs/design.md, "Language-aware full-text search").
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import Any

from zettelgraph.text.language import detect_language
from zettelgraph.text.normalize import normalize_name, words
from zettelgraph.text.stopwords import STOPWORDS_BY_LANGUAGE

# Languages with a stemmer; any other text is folded but not stemmed.
STEMMERS = {"es": "spanish", "en": "english"}
# What a user may type: a "quoted phrase", a prefix*, or a word.
_QUERY_PART = re.compile(r'"([^"]*)"|(\w+)\*|(\w+)', re.UNICODE)
_LOCK = threading.Lock()
# Stemming passes at most: Snowball's Spanish suffixes nest two deep (ciudad-es, ciudad-an-os).
_MAX_PASSES = 3
# Stems remembered per language (`remembered_stems`): a large vocabulary, a few megabytes.
_REMEMBERED: dict[str | None, dict[str, str]] = {}
_REMEMBER_AT_MOST = 200_000


@lru_cache(maxsize=4)
def _stemmer(language: str) -> Any:
    import Stemmer  # PyStemmer: Snowball's C stemmers

    return Stemmer.Stemmer(STEMMERS[language])


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


def remembered_stems(tokens: list[str], language: str | None) -> list[str]:
    """`stems(tokens, language)`, each distinct word stemmed once and remembered: a book
    repeats its words, so a reader of every token (the experiment tools) pays for its
    vocabulary, not its length."""
    with _LOCK:
        known = _REMEMBERED.get(language)
        if known is None or len(known) > _REMEMBER_AT_MOST:
            # Replaced, never cleared: a thread reading the old one still finds its words.
            known = _REMEMBERED[language] = {}
        new = list(set(tokens).difference(known))
    if new:
        learnt = dict(zip(new, stems(new, language), strict=True))
        with _LOCK:
            known.update(learnt)
    return list(map(known.__getitem__, tokens))


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
