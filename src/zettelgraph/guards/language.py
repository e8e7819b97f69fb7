"""Which language a text is written in, with a real detector (lingua), and which of a
concept's fields are not in the graph's language."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

# A detector answers an ISO 639-1 code, or None when the text is too short or too mixed to say.
DetectLanguage = Callable[[str], str | None]

# Languages a reader's notes are likely to mix with the graph's one; the configured language is
# always added. Fewer candidates make short texts more reliable and the detector smaller.
CANDIDATES = ("es", "en", "fr", "de", "it", "pt", "ca", "la")
# Under this many words a language guess is a coin toss ("Dormir" reads as Portuguese too).
MIN_WORDS = 4
# A field this long is judged on its own; a shorter one only when the whole body is off too.
CONFIDENT_WORDS = 8
# Fields a reader reads; the title is judged with the body, as titles are often too short.
CONCEPT_FIELDS = ("concept", "analysis", "summary", "summary_short")


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

    def __call__(self, text: str) -> str | None:
        if len(text.split()) < MIN_WORDS:
            return None
        with self._lock:
            if self._detector is None:
                self._detector = self._build()
            detector = self._detector
        language = detector.detect_language_of(text)
        return None if language is None else str(language.iso_code_639_1.name).lower()


def detector_for(language: str) -> LinguaDetector:
    """A detector that knows the graph's language besides the usual candidates."""
    return LinguaDetector((language, *CANDIDATES))


def off_language_fields(
    concept: Mapping[str, Any], language: str, detect: DetectLanguage
) -> list[str]:
    """The fields of `concept` that are confidently in another language than `language`.

    A field is judged alone when it is long enough to be sure of (CONFIDENT_WORDS); a shorter
    one is judged with the whole body, since a short Spanish sentence can read as Portuguese
    or Catalan. The title joins the body's verdict: a title alone is too short to judge, but a
    title over an English body is English too.
    """
    body_language = detect(" ".join(str(concept.get(name) or "") for name in CONCEPT_FIELDS))
    off = []
    for name in CONCEPT_FIELDS:
        text = str(concept.get(name) or "")
        found = detect(text)
        if found is None or found == language:
            continue
        if len(text.split()) < CONFIDENT_WORDS and body_language == language:
            continue
        off.append(name)
    if "concept" in off:
        title = str(concept.get("title") or "")
        found = detect(title)
        if found is None or found != language:
            off.insert(0, "title")
    return off


def reads_as(text: str, language: str, detect: DetectLanguage) -> bool:
    """Whether `text` is detected as `language` (an undecidable text does not)."""
    return detect(text) == language
