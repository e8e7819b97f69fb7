"""Checks on an experiment's synthesis before the reader sees it (precision over volume).

A small model pads a synthesis by saying the same sentence again: in every finding, or as
the usage of every group. And it writes a group's usage from another group's passages. Each
check here is a pure function; the synthesis node drops what fails and lists why.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from zettelgraph.text.language import MIN_WORDS, DetectLanguage
from zettelgraph.text.normalize import copied_share, word_set
from zettelgraph.text.stopwords import STOPWORDS

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
# A sentence whose distinct words are this much in an earlier one says nothing new.
REPEAT_SHARE = 0.8
# Under this confidence in the report's language a statement is taken as written in another
# ("Honour matters more than money" scores about 0.0003 for Spanish, an English sentence
# naming Marcus Aurelius 0.43 for English).
MIN_CONFIDENCE = 0.1
# Words this short are mostly function words in Spanish and English; they say nothing about
# which passage a sentence comes from.
SOURCE_WORD_CHARS = 4


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


def _source_words(text: str, ignore: set[str]) -> set[str]:
    return {
        w
        for w in word_set(text)
        if len(w) >= SOURCE_WORD_CHARS and w not in STOPWORDS and w not in ignore
    }


def borrowed(sentence: str, own: str, others: str, ignore: set[str]) -> bool:
    """Whether a sentence about one group is made of another group's passages: two or more of
    its content words (not `ignore`: the term's) are in the others' passages and fewer are in
    the group's own (`own`). On the 1.5B model, Walden's row said that life "is what our
    thoughts make it", which is Marcus Aurelius."""
    words = _source_words(sentence, ignore)
    theirs = len(words & _source_words(others, ignore))
    return theirs >= 2 and theirs > len(words & _source_words(own, ignore))


def shared(rows: Mapping[str, Sequence[str]]) -> dict[str, set[int]]:
    """Per group, the sentences (by index) that another group's row says too (a sentence
    whose words are 80% one of the other's): said of both, it describes neither."""
    out: dict[str, set[int]] = {group: set() for group in rows}
    for group, mine in rows.items():
        for other, theirs in rows.items():
            if other == group:
                continue
            for i, sentence in enumerate(mine):
                if any(copied_share(sentence, t) >= REPEAT_SHARE for t in theirs):
                    out[group].add(i)
    return out
