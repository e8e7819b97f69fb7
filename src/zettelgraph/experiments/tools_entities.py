"""Named entities without spaCy: capitalised word sequences, typed from the graph.

spaCy has no usable pipeline for this project (the only Spanish one on the package index needs
an old spaCy and pydantic 1; there is no English one), so names are found by rule
(docs/design.md, "Named entities without spaCy"):

- a name is a run of capitalised words, with lower-case particles inside ("Miguel de
  Cervantes", "Ludwig van Beethoven"); a title before it ("don", "Sir", "rey") is a cue, not
  part of the name; "Ortega y Gasset" is one name only when the store knows it so;
- at the start of a sentence a capital says nothing: a function word there ("El", "The") is
  dropped, and so is any other first word that is never capitalised mid-sentence in the
  document ("Después Juan" -> "Juan"), unless the store knows the whole run;
- the type comes from the graph when the store knows the name (a Person -> PER, an entity ->
  its type), else from cues: a title before it -> PER, a place preposition ("en", "in",
  "desde", "from") before at least half of its occurrences -> LOC; otherwise MISC.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from pydantic import BaseModel, Field

from zettelgraph.experiments.models import Citation, ToolOutput
from zettelgraph.experiments.registry import Document, ToolContext
from zettelgraph.experiments.text import TermMatcher, cite, fold, fold_text
from zettelgraph.text.normalize import normalize_name
from zettelgraph.text.stopwords import STOPWORDS

METHOD = (
    "fallback: capitalised sequences, typed from the graph (no spaCy pipeline installs "
    "alongside pydantic 2)"
)
MAX_ENTITIES = 50
LOOKUPS = 20  # store look-ups per document for names the rules would cut
MAX_CITATIONS = 10

_UPPER = "".join(re.escape(ch) for ch in map(chr, range(0x0530)) if ch.isupper())
_CAP_WORD = rf"[{_UPPER}]\w*(?:[-'’][{_UPPER}]\w*)*"
# Lower-case words allowed inside a name, between capitalised ones.
PARTICLES = ("de", "del", "la", "las", "los", "da", "das", "do", "dos", "di", "du", "van",
             "von", "der", "den", "ten", "of")  # fmt: skip
_NAME = re.compile(rf"(?<!\w){_CAP_WORD}(?:(?:\s+(?:{'|'.join(PARTICLES)}))*\s+{_CAP_WORD})*(?!\w)")
_WORD = re.compile(r"[\w'’-]+")
# Before a name: a title says it is a person; in a name's first word it is dropped.
TITLES = frozenset(
    fold(t)
    for t in """don doña dona señor señora señorita sr sra srta mr mrs ms dr doctor doctora
    sir lady lord fray sor rey reina king queen príncipe princesa prince princess conde
    condesa duque duquesa marqués marquesa emperador emperatriz papa""".split()  # noqa: SIM905
)
# Saints keep their title: it is part of the name ("San Juan", "Santa Teresa").
SAINTS = frozenset({"san", "santa", "santo", "saint", "st"})
_NAME_STARTS = TITLES | SAINTS
PLACE_CUES = frozenset({"en", "in", "desde", "hacia", "from"})
_SENTENCE_START = frozenset('.!?¿¡:;"«»“”—–…(\n')
_ROMAN = re.compile(r"^[IVXLCDM]+$")
# English months and days are capitalised mid-sentence without being names.
_CALENDAR = frozenset(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday""".split()  # noqa: SIM905
)
_TYPE_LABELS = {"Person": "PER", "Place": "LOC", "Location": "LOC", "Group": "ORG",
                "Organization": "ORG", "Organisation": "ORG"}  # fmt: skip


class NamedEntity(BaseModel):
    name: str
    label: str = Field(description="PER, LOC, ORG, a pack type such as WORK, or MISC.")
    count: int
    passage_ids: list[str] = Field(default_factory=list, max_length=5)
    near_term: int = Field(default=0, description="Occurrences in passages with the term.")
    typed_by: str = Field(default="", description="'graph', 'cue' or '' (not typed: MISC).")


class NamedEntitiesOutput(ToolOutput):
    entities: list[NamedEntity] = Field(default_factory=list, max_length=MAX_ENTITIES)
    method: str = METHOD


@dataclass(slots=True)
class _Raw:
    """A capitalised run as found, before the sentence-start rule."""

    passage: int
    words: list[str]
    initial: bool
    previous: str  # the folded word before it ("" at the start)
    joins_next: bool  # followed by " y " / " e " and another run


@dataclass(slots=True)
class _Tally:
    surfaces: Counter[str]
    count: int = 0
    near_term: int = 0
    person_cues: int = 0
    place_cues: int = 0
    passages: list[int] | None = None


@lru_cache(maxsize=8192)
def _fold_word(word: str) -> str:
    # Names and the words before them repeat through a book: fold each spelling once.
    return fold(word)


@lru_cache(maxsize=8192)
def _key(name: str) -> str:
    return normalize_name(name)


def _before(text: str, start: int) -> tuple[str, bool]:
    """The folded word before `start`, and whether `start` begins a sentence."""
    head = text[max(0, start - 40) : start]
    stripped = head.rstrip()
    if not stripped:
        return "", True
    last = stripped.rsplit(maxsplit=1)[-1]
    previous = _fold_word(last.rstrip("."))
    if last.endswith(".") and previous in TITLES:
        return previous, False  # "Sr. Pérez": the period closes the title, not a sentence
    newline = "\n" in head[len(stripped) :]
    return previous, newline or (stripped[-1] in _SENTENCE_START)


def _scan(document: Document, matcher: TermMatcher) -> tuple[list[_Raw], set[str], list[bool]]:
    """Every capitalised run, the words seen capitalised mid-sentence, passages with the term."""
    raws: list[_Raw] = []
    mid: set[str] = set()
    with_term: list[bool] = []
    for index, passage in enumerate(document.passages):
        text = passage.text
        with_term.append(matcher.found_in(fold_text(text)))
        found = list(_NAME.finditer(text))
        for position, match in enumerate(found):
            previous, initial = _before(text, match.start())
            words = _WORD.findall(match.group())
            following = found[position + 1] if position + 1 < len(found) else None
            joins = following is not None and text[match.end() : following.start()] in (
                " y ",
                " e ",
            )
            raws.append(_Raw(index, words, initial, previous, joins))
            if not initial:
                mid.update(_fold_word(w) for w in words if w[:1].isupper())
            else:
                mid.update(_fold_word(w) for w in words[1:] if w[:1].isupper())
    return raws, mid, with_term


def _name(raw: _Raw, mid: set[str], known: set[str]) -> tuple[list[str], bool]:
    """The name's words after the sentence-start and title rules, and whether a title led.
    `known`: folded runs the store knows, kept whole even at a sentence start."""
    words = list(raw.words)
    titled = False
    if raw.initial and words and normalize_name(" ".join(words)) not in known:
        first = _fold_word(words[0])
        if first in STOPWORDS or (first not in mid and first not in _NAME_STARTS):
            words = words[1:]
    if words and _fold_word(words[0]) in TITLES:
        words, titled = words[1:], True
    while words and words[0].islower():
        words = words[1:]
    return words, titled


def _keep(words: list[str]) -> bool:
    if not words:
        return False
    if all(_fold_word(w) in STOPWORDS or _fold_word(w) in TITLES for w in words):
        return False
    if len(words) == 1:
        word = words[0]
        return len(word) > 1 and not _ROMAN.match(word) and _fold_word(word) not in _CALENDAR
    return True


def _graph_label(ctx: ToolContext, name: str) -> str | None:
    if ctx.store.find_person(name) is not None:
        return "PER"
    entities = ctx.store.find_entities(name)
    if entities:
        kind = entities[0].entity_type
        return _TYPE_LABELS.get(kind, kind.upper())
    return None


def _known(ctx: ToolContext, name: str) -> bool:
    return ctx.store.find_person(name) is not None or bool(ctx.store.find_entities(name))


def _known_runs(ctx: ToolContext, raws: list[_Raw], mid: set[str]) -> tuple[set[str], set[str]]:
    """Names the sentence-start and "y" rules would cut, that the store knows whole: runs of
    two or more capitalised words at a sentence start ("Miguel de Cervantes escribió") and
    "X y Y" pairs ("Ortega y Gasset"), the LOOKUPS most frequent of each."""
    starts: Counter[str] = Counter()
    for raw in raws:
        if raw.initial and sum(1 for w in raw.words if w[:1].isupper()) >= 2:
            starts[" ".join(raw.words)] += 1
    known = {normalize_name(run) for run, _ in starts.most_common(LOOKUPS) if _known(ctx, run)}
    pairs: Counter[str] = Counter()
    for raw, following in pairwise(raws):
        if raw.joins_next:
            left, _ = _name(raw, mid, known)
            if left:
                pairs[" ".join([*left, "y", *following.words])] += 1
    joined = {normalize_name(pair) for pair, _ in pairs.most_common(LOOKUPS) if _known(ctx, pair)}
    return known, joined


def named_entities(ctx: ToolContext, documents: Sequence[Document]) -> NamedEntitiesOutput:
    """People, places and other names in the documents, counted, typed and cited."""
    matcher = TermMatcher(ctx.term.term, ctx.term.match)
    tallies: dict[str, _Tally] = {}
    where: dict[str, list[tuple[int, int]]] = {}  # key -> (document, passage) of the first ones
    for doc_index, document in enumerate(documents):
        raws, mid, with_term = _scan(document, matcher)
        known, joined = _known_runs(ctx, raws, mid)
        skip = False
        for position, raw in enumerate(raws):
            if skip:
                skip = False
                continue
            words, titled = _name(raw, mid, known)
            if raw.joins_next and joined and words:
                pair = " ".join([*words, "y", *raws[position + 1].words])
                if normalize_name(pair) in joined:
                    words, skip = pair.split(), True
            if not _keep(words):
                continue
            surface = " ".join(words)
            key = _key(surface)
            tally = tallies.setdefault(key, _Tally(Counter()))
            tally.surfaces[surface] += 1
            tally.count += 1
            tally.near_term += with_term[raw.passage]
            tally.person_cues += titled or raw.previous in TITLES
            tally.place_cues += raw.previous in PLACE_CUES
            seen = where.setdefault(key, [])
            if len(seen) < 5 and (doc_index, raw.passage) not in seen:
                seen.append((doc_index, raw.passage))
    top = sorted(tallies.items(), key=lambda item: (-item[1].count, item[0]))[:MAX_ENTITIES]
    entities: list[NamedEntity] = []
    for key, tally in top:
        name = tally.surfaces.most_common(1)[0][0]
        label, typed_by = _graph_label(ctx, name), "graph"
        if label is None:
            label, typed_by = _cue_label(tally)
        entities.append(
            NamedEntity(
                name=name,
                label=label,
                count=tally.count,
                passage_ids=[documents[d].passages[p].id for d, p in where[key]],
                near_term=tally.near_term,
                typed_by=typed_by,
            )
        )
    citations: dict[str, Citation] = {}
    for key, _ in top:
        d, p = where[key][0]
        if len(citations) < MAX_CITATIONS:
            passage = documents[d].passages[p]
            citations.setdefault(passage.id, cite(documents[d], passage))
    return NamedEntitiesOutput(
        count=len(tallies),
        summary=_summary(documents, entities, len(tallies)),
        citations=list(citations.values()),
        entities=entities,
    )


def _cue_label(tally: _Tally) -> tuple[str, str]:
    if tally.person_cues and tally.person_cues >= tally.place_cues:
        return "PER", "cue"
    if tally.place_cues * 2 >= tally.count:
        return "LOC", "cue"
    return "MISC", ""


def _summary(documents: Sequence[Document], entities: list[NamedEntity], total: int) -> str:
    where = f" in {documents[0].info.title!r}" if len(documents) == 1 else ""
    if not entities:
        return f"no names found{where} (capitalised-sequence fallback, no spaCy)"
    labels = Counter(e.label for e in entities)
    kinds = ", ".join(f"{n} {label}" for label, n in labels.most_common())
    top = ", ".join(f"{e.name} ({e.count})" for e in entities[:5])
    return (
        f"{total} names{where} ({kinds} among the first {len(entities)}); most frequent: "
        f"{top}; capitalised-sequence fallback, no spaCy"
    )
