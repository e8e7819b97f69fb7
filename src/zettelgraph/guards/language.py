"""Which of a concept's fields are not in the graph's language, judged with a language
detector (`text.language`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from zettelgraph.text.language import DetectLanguage
from zettelgraph.text.normalize import normalize_name
from zettelgraph.text.stopwords import STOPWORDS_BY_LANGUAGE

# A title this sure to be in another language is flagged even over a body in the right one
# ("Men lead lives of quiet desperation" scores 0.09 for Spanish; "Vida deliberada", 0.29).
TITLE_MIN_CONFIDENCE = 0.1
# Read word by word, a title with this many words of another language in a row holds a phrase
# left untranslated ("los so-called comodidades"); one such word alone is a loanword ("El
# marketing de la atención") and passes.
FOREIGN_RUN = 2
# A word this unlikely to be in the graph's language is another language's ("called" scores
# 0.03 for Spanish; the least Spanish-looking Spanish words, "sin" or "en", over 0.1).
WORD_MIN_CONFIDENCE = 0.06
_WORD = re.compile(r"[^\W\d_]+")
# A field this long is judged on its own; a shorter one only when the whole body is off too.
CONFIDENT_WORDS = 8
# Fields a reader reads; the title is judged with the body, as titles are often too short.
CONCEPT_FIELDS = ("concept", "analysis", "summary", "summary_short")
# What a reader reads of a concept in the review and the vault: the body these must read as the
# graph's language together, whatever a long summary around them says.
READER_FIELDS = ("concept", "analysis", "summary_short")


def off_language_fields(
    concept: Mapping[str, Any], language: str, detect: DetectLanguage
) -> list[str]:
    """The fields of `concept` that are confidently in another language than `language`.

    A field is judged alone when it is long enough to be sure of (CONFIDENT_WORDS); a shorter
    one is judged with the whole body, since a short Spanish sentence can read as Portuguese
    or Catalan. A title over a body in another language goes with it; over a body in the
    right language it is flagged only when it is clearly in another one (TITLE_MIN_CONFIDENCE),
    as when a model keeps an English quote's words as the title.
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
    if not off:
        # Short fields each too short to judge, carried by a long summary in the right
        # language, can still read together as another language.
        texts = {name: str(concept.get(name) or "") for name in READER_FIELDS}
        reader_body = " ".join(texts.values())
        if len(reader_body.split()) >= CONFIDENT_WORDS and detect(reader_body) != language:
            off = [n for n, text in texts.items() if text and detect(text) != language]
            off = off or [n for n, text in texts.items() if text]
    title = str(concept.get("title") or "")
    if "concept" in off:
        found = detect(title)
        if found is None or found != language:
            off.insert(0, "title")
    else:
        # A title clearly in another language as a whole, or holding a phrase of one.
        whole = len(title.split()) >= 3
        unlike = whole and detect.confidence(title, language) < TITLE_MIN_CONFIDENCE
        if unlike or foreign_phrase(title, language, detect):
            off.insert(0, "title")
    return off


def foreign_phrase(title: str, language: str, detect: DetectLanguage) -> list[str]:
    """The first run of FOREIGN_RUN or more words of another language in `title`, read word
    by word (hyphenated words apart), or [] when there is none.

    A word is another language's when it is a function word of another language's list and
    not of `language`'s (`so`, `the`), or when the detector finds it very unlikely to be in
    `language`. A capitalised word after the first is a proper name and never counts; it
    ends a run, as does any word of `language`.
    """
    own = STOPWORDS_BY_LANGUAGE.get(language, frozenset())
    others = frozenset().union(
        *(words for code, words in STOPWORDS_BY_LANGUAGE.items() if code != language)
    )
    run: list[str] = []
    for index, word in enumerate(_WORD.findall(title)):
        if index > 0 and word[:1].isupper():
            run = []
            continue
        folded = normalize_name(word)
        foreign = folded not in own and (
            folded in others or detect.confidence(word, language) < WORD_MIN_CONFIDENCE
        )
        run = [*run, word] if foreign else []
        if len(run) >= FOREIGN_RUN:
            return run
    return []
