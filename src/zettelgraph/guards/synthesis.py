"""Checks on an experiment's synthesis before the reader sees it (precision over volume).

A small model pads a synthesis by saying the same sentence again: in every finding, or as
the usage of every group. And it writes a group's usage from another group's passages. Each
check here is a pure function; the synthesis node drops what fails and lists why.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from zettelgraph.guards.language import MIN_WORDS, DetectLanguage
from zettelgraph.guards.relations import explanation_key
from zettelgraph.text import copied_share

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
# A sentence whose distinct words are this much in an earlier one says nothing new.
REPEAT_SHARE = 0.8
# Under this confidence in the report's language a statement is taken as written in another
# ("Honour matters more than money" scores about 0.0003 for Spanish, an English sentence
# naming Marcus Aurelius 0.43 for English).
MIN_CONFIDENCE = 0.1


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if s.strip()]


def new_sentences(text: str, said: Sequence[str]) -> list[str]:
    """The sentences of `text` that say something not already said: a sentence whose words
    are (nearly) all in one sentence of `said`, or of `text` before it, is a repeat."""
    fresh: list[str] = []
    earlier = list(said)
    for sentence in sentences(text):
        if any(copied_share(sentence, before) >= REPEAT_SHARE for before in earlier):
            continue
        earlier.append(sentence)
        fresh.append(sentence)
    return fresh


def off_language(text: str, language: str, detect: DetectLanguage) -> bool:
    """Whether `text` is plainly not in `language`. Lenient on purpose: a synthesis names
    people and works ("Marcus Aurelius' Meditations" reads as Latin to a detector), so only a
    text the detector finds very unlikely to be in the language is off."""
    if len(text.split()) < MIN_WORDS:
        return False
    return detect.confidence(text, language) < MIN_CONFIDENCE


def sentence_key(sentence: str) -> str:
    """A sentence up to case, accents, punctuation and word order."""
    return explanation_key(sentence)


def repeated_across_groups(usages: Mapping[str, str]) -> set[str]:
    """Groups whose usage says word for word what another group's says: with one sentence
    for several groups, which one it describes cannot be told."""
    keys = {group: sentence_key(text) for group, text in usages.items()}
    counts = Counter(keys.values())
    return {group for group, key in keys.items() if counts[key] > 1}
