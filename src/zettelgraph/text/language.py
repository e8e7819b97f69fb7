"""Which language a text is written in: a cheap guess from its function words, made for
every passage written and every query searched (`detect_language`), and a real detector
(lingua) over a few candidate languages, for the guards that judge what a model wrote."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Protocol

from zettelgraph.text.normalize import normalize_name, words
from zettelgraph.text.stopwords import STOPWORDS_BY_LANGUAGE

# Text with no function word of either language (a title, a two-word query) is taken to be
# in the default concept language, at index and query time alike, so both sides agree.
DEFAULT_LANGUAGE = "es"
# Function words of one language only ("a", "no", "he" are both and count for neither).
_ONLY = {
    language: own
    - frozenset().union(*(o for k, o in STOPWORDS_BY_LANGUAGE.items() if k != language))
    for language, own in STOPWORDS_BY_LANGUAGE.items()
}


def detect_language(text: str, default: str = DEFAULT_LANGUAGE) -> str:
    """Spanish or English from function words; `default` when neither shows.

    Cheap enough to run on every passage written and every query searched.
    """
    return language_of([normalize_name(token) for token in words(text)], text, default)


def language_of(folded: Sequence[str], text: str, default: str = DEFAULT_LANGUAGE) -> str:
    """`detect_language(text)` for a text whose folded words (`normalize_name` of each) are
    at hand already, as the experiment tools have them: the same guess without folding the
    text twice."""
    spanish = sum(map(_ONLY["es"].__contains__, folded))
    english = sum(map(_ONLY["en"].__contains__, folded))
    if text.lstrip().startswith(("¿", "¡")) or spanish > english:
        return "es"
    return "en" if english > spanish else default


class DetectLanguage(Protocol):
    """A language detector: an ISO 639-1 code, or None when a text is too short or too mixed
    to say; and how confident it is that a text is in a given language (0 to 1)."""

    def __call__(self, text: str) -> str | None: ...

    def confidence(self, text: str, language: str) -> float: ...


# Languages a reader's notes are likely to mix with the graph's one; the configured language is
# always added. Fewer candidates make short texts more reliable and the detector smaller.
CANDIDATES = ("es", "en", "fr", "de", "it", "pt", "ca", "la")
# Under this many words a language guess is a coin toss ("Dormir" reads as Portuguese too).
MIN_WORDS = 4


class LinguaDetector:
    """lingua's detector over a few candidate languages, built on first use (half a second)."""

    def __init__(self, languages: tuple[str, ...] = CANDIDATES) -> None:
        self._codes = tuple(dict.fromkeys(code.lower() for code in languages))
        self._detector: Any = None
        self._lock = threading.Lock()

    def _build(self) -> Any:
        from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

        languages = []
        for code in self._codes:
            try:
                languages.append(Language.from_iso_code_639_1(getattr(IsoCode639_1, code.upper())))
            except (AttributeError, ValueError):
                continue  # a code lingua does not know is never detected, so never flagged
        return LanguageDetectorBuilder.from_languages(*languages).build()

    def _get(self) -> Any:
        with self._lock:
            if self._detector is None:
                self._detector = self._build()
            return self._detector

    def __call__(self, text: str) -> str | None:
        if len(text.split()) < MIN_WORDS:
            return None
        language = self._get().detect_language_of(text)
        return None if language is None else str(language.iso_code_639_1.name).lower()

    def confidence(self, text: str, language: str) -> float:
        from lingua import IsoCode639_1, Language

        try:
            wanted = Language.from_iso_code_639_1(getattr(IsoCode639_1, language.upper()))
        except (AttributeError, ValueError):
            return 1.0  # a language lingua does not know is never flagged
        return float(self._get().compute_language_confidence(text, wanted))


@lru_cache(maxsize=8)
def detector_for(language: str) -> LinguaDetector:
    """A detector that knows the graph's language besides the usual candidates: one per
    language and process, shared by every Services opened in it (it is thread-safe), so a
    web app, an MCP server or a benchmark builds it once. Its first detection loads lingua's
    models: 3 s and about 200 MB on this machine (idle), 5-9 s under load."""
    return LinguaDetector((language, *CANDIDATES))


def reads_as(text: str, language: str, detect: DetectLanguage) -> bool:
    """Whether `text` is detected as `language` (an undecidable text does not)."""
    return detect(text) == language
