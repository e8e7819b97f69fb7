"""Semantic drift: how the contexts of the term move between years, authors or documents.

Each occurrence's context (CONTEXT_TOKENS words on each side) is embedded; a group's use of
the term is the centroid of its contexts, and the distance between two uses is the cosine
distance between centroids. Groups are years when the documents have two or more years
(periods of 5, 10, 25... years when there are more than MAX_YEAR_GROUPS), else authors when
there are two or more, else the documents themselves. A group's distinctive
words (log-odds against the other groups, over the words near the term) say in words what
the distances say in numbers.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, Field

from zettelgraph.experiments.models import Citation, ToolOutput
from zettelgraph.experiments.registry import Document, ToolContext
from zettelgraph.experiments.text import TermMatcher, cite, evenly, folded_passages
from zettelgraph.llm.embeddings import is_semantic
from zettelgraph.models import Quote
from zettelgraph.text.normalize import words_of
from zettelgraph.text.stopwords import STOPWORDS

Grouping = Literal["year", "author", "document"]
CONTEXT_TOKENS = 25
WORD_WINDOW = 8  # the distinctive words are counted this close to the term
# Contexts embedded per group, and in all: the embedder is the slow part (the default one
# took 5 to 9 s for 1,200 of these 50-word contexts on 2 cores), and 100 contexts already
# give a stable centroid.
MAX_PER_GROUP = 200
MIN_PER_GROUP = 10  # x MAX_GROUPS stays within MAX_CONTEXTS
MAX_CONTEXTS = 1200
# More distinct years than this are grouped into periods of equal width (5, 10, 25... years):
# ninety one-book years say less than a dozen periods, and cost more contexts.
MAX_YEAR_GROUPS = 12
PERIOD_WIDTHS = (5, 10, 25, 50, 100, 250, 500, 1000)
NEAREST_WORDS = 8
MAX_GROUPS = 100
MAX_CITATIONS = 10
UNKNOWN = "unknown"
PRIOR = 0.5  # additive smoothing of the log-odds


class DriftGroup(BaseModel):
    group: str
    documents: int = 0
    occurrences: int = Field(default=0, description="All occurrences of the term in the group.")
    contexts: int = Field(default=0, description="Contexts embedded (a spread sample).")
    distance_to_previous: float | None = None
    distance_to_overall: float = 0.0
    distance_to_definition: float | None = None
    nearest_words: list[str] = Field(default_factory=list, max_length=NEAREST_WORDS)
    typical_passage_id: str | None = Field(
        default=None, description="The passage whose context is nearest the group's centroid."
    )


class SemanticDriftOutput(ToolOutput):
    grouping: Grouping = "document"
    period_years: int = Field(default=1, description="Years per group when grouped by year.")
    groups: list[DriftGroup] = Field(default_factory=list, max_length=MAX_GROUPS)
    groups_without_term: list[str] = Field(default_factory=list, max_length=MAX_GROUPS)
    embedder: str = ""
    semantic: bool = Field(default=True, description="False: the embedder measures word overlap.")


@dataclass
class _Group:
    name: str
    documents: list[Document] = field(default_factory=list)
    contexts: list[tuple[str, Document, Quote]] = field(default_factory=list)
    words: Counter[str] = field(default_factory=Counter)


def period_width(years: set[int]) -> int:
    """1 when there are few enough distinct years, else the narrowest period width that
    leaves at most MAX_YEAR_GROUPS periods."""
    if len(years) <= MAX_YEAR_GROUPS:
        return 1
    for width in PERIOD_WIDTHS:
        if len({year // width for year in years}) <= MAX_YEAR_GROUPS:
            return width
    return PERIOD_WIDTHS[-1]


def _year_key(year: int | None, width: int) -> str:
    if year is None:
        return UNKNOWN
    if width == 1:
        return str(year)
    start = year // width * width
    return f"{start}–{start + width - 1}"


def _groups(documents: Sequence[Document]) -> tuple[Grouping, int, list[_Group]]:
    """The grouping, the years per group, and the groups in order (years ascending, unknown
    last)."""
    years = {d.info.year for d in documents if d.info.year is not None}
    authors = {d.info.author for d in documents if d.info.author}
    groups: dict[str, _Group] = {}
    width = 1
    if len(years) >= 2:
        grouping: Grouping = "year"
        width = period_width(years)
        for d in sorted(documents, key=lambda d: (d.info.year is None, d.info.year or 0)):
            key = _year_key(d.info.year, width)
            groups.setdefault(key, _Group(key)).documents.append(d)
    elif len(authors) >= 2:
        grouping = "author"
        first_year = {
            a: min((d.info.year or 10_000 for d in documents if d.info.author == a), default=0)
            for a in authors
        }
        ordered = sorted(
            documents,
            key=lambda d: (
                not d.info.author,
                first_year.get(d.info.author or "", 0),
                (d.info.author or "").casefold(),
            ),
        )
        for d in ordered:
            key = d.info.author or UNKNOWN
            groups.setdefault(key, _Group(key)).documents.append(d)
    else:
        grouping = "document"
        titles = Counter(d.info.title for d in documents)
        for d in documents:
            key = d.info.title if titles[d.info.title] == 1 else f"{d.info.title} ({d.info.id})"
            groups.setdefault(key, _Group(key)).documents.append(d)
    return grouping, width, list(groups.values())


def _read(group: _Group, matcher: TermMatcher, surface: dict[str, str]) -> int:
    """Fill the group's contexts and nearby words; the number of occurrences."""
    size = len(matcher.keys)
    occurrences = 0
    for document in group.documents:
        for passage, folded in folded_passages(document):
            keys = matcher.keys_of(folded)
            starts = matcher.token_matches(keys)
            if not starts:
                continue
            found = words_of(folded.folded)
            words = [t.text for t in found]
            for start in starts:
                occurrences += 1
                first = found[max(0, start - CONTEXT_TOKENS)]
                last = found[min(len(found), start + size + CONTEXT_TOKENS) - 1]
                left, right = folded.original(first.start, last.end)
                group.contexts.append((folded.text[left:right], document, passage))
                low, high = max(0, start - WORD_WINDOW), start + size + WORD_WINDOW
                for position in range(low, min(len(found), high)):
                    word = words[position]
                    if start <= position < start + size or not _content(
                        word, keys[position], matcher
                    ):
                        continue
                    group.words[word] += 1
                    if word not in surface:
                        token = found[position]
                        surface[word] = folded.surface(token.start, token.end).lower()
    return occurrences


def _content(word: str, key: str, matcher: TermMatcher) -> bool:
    return (
        len(word) >= 3
        and not word.isdigit()
        and word not in STOPWORDS
        and not matcher.is_term_word(key)
    )


def _distinctive(group: _Group, total: Counter[str], surface: dict[str, str]) -> list[str]:
    """The group's words most over-represented against the other groups (smoothed log-odds)."""
    n_group = sum(group.words.values())
    n_other = sum(total.values()) - n_group
    vocabulary = len(total)
    scored: list[tuple[float, str]] = []
    for word, count in group.words.items():
        if count < 2:
            continue
        other = total[word] - count
        mine = math.log((count + PRIOR) / (n_group + PRIOR * vocabulary))
        theirs = math.log((other + PRIOR) / (n_other + PRIOR * vocabulary))
        scored.append((-(mine - theirs), word))
    scored.sort()
    return [surface[word] for _, word in scored[:NEAREST_WORDS]]


def _unit(vectors: NDArray[np.float32]) -> NDArray[np.float32]:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    out: NDArray[np.float32] = np.divide(
        vectors, norms, out=np.zeros_like(vectors), where=norms > 0
    )
    return out


def _distance(a: NDArray[np.float32], b: NDArray[np.float32]) -> float:
    return round(float(1.0 - np.dot(a, b)), 4)


def semantic_drift(ctx: ToolContext, documents: Sequence[Document]) -> SemanticDriftOutput:
    """Distances between the term's uses per year, author or document, and their words."""
    matcher = TermMatcher(ctx.term.term, ctx.term.match)
    grouping, width, groups = _groups(documents)
    surface: dict[str, str] = {}
    occurrences = {g.name: _read(g, matcher, surface) for g in groups}
    used = [g for g in groups if g.contexts][:MAX_GROUPS]
    missing = [g.name for g in groups if not g.contexts][:MAX_GROUPS]
    semantic = is_semantic(ctx.embedder)
    if not used:
        return SemanticDriftOutput(
            summary=f"{ctx.term.term} does not occur in the documents: no drift to measure",
            grouping=grouping,
            period_years=width,
            groups_without_term=missing,
            embedder=ctx.embedder.name,
            semantic=semantic,
        )
    cap = min(MAX_PER_GROUP, max(MIN_PER_GROUP, MAX_CONTEXTS // len(used)))
    samples = [evenly(g.contexts, cap) for g in used]
    texts = [text for sample in samples for text, _, _ in sample]
    vectors = _unit(np.asarray(ctx.embedder.embed(texts), dtype=np.float32))
    centroids: list[NDArray[np.float32]] = []
    typical: list[tuple[Document, Quote]] = []
    row = 0
    for sample in samples:
        block = vectors[row : row + len(sample)]
        row += len(sample)
        centroid = _unit(block.mean(axis=0))
        centroids.append(centroid)
        _, document, passage = sample[int(np.argmax(block @ centroid))]
        typical.append((document, passage))
    # Every group weighs the same in the overall use, however much it says.
    overall = _unit(np.mean(centroids, axis=0))
    definition = None
    if ctx.term.definition.strip():
        definition = _unit(np.asarray(ctx.embedder.embed([ctx.term.definition]))[0])
    total: Counter[str] = Counter()
    for g in used:
        total.update(g.words)
    out: list[DriftGroup] = []
    for i, g in enumerate(used):
        previous = None
        if i > 0 and g.name != UNKNOWN and grouping != "document":
            previous = _distance(centroids[i], centroids[i - 1])
        out.append(
            DriftGroup(
                group=g.name,
                documents=len(g.documents),
                occurrences=occurrences[g.name],
                contexts=len(samples[i]),
                distance_to_previous=previous,
                distance_to_overall=_distance(centroids[i], overall),
                distance_to_definition=None
                if definition is None
                else _distance(centroids[i], definition),
                nearest_words=_distinctive(g, total, surface),
                typical_passage_id=typical[i][1].id,
            )
        )
    citations: list[Citation] = [cite(d, p) for d, p in evenly(typical, MAX_CITATIONS)]
    return SemanticDriftOutput(
        count=len(texts),
        summary=_summary(ctx.term.term, f"{grouping}{_per(width)}", out, missing, semantic),
        citations=citations,
        grouping=grouping,
        period_years=width,
        groups=out,
        groups_without_term=missing,
        embedder=ctx.embedder.name,
        semantic=semantic,
    )


def _per(width: int) -> str:
    return f" (periods of {width} years)" if width > 1 else ""


def _summary(
    term: str, grouping: str, groups: list[DriftGroup], missing: list[str], semantic: bool
) -> str:
    contexts = sum(g.contexts for g in groups)
    parts = [f"{term} by {grouping}: {len(groups)} groups, {contexts} contexts"]
    if len(groups) < 2:
        parts.append(f"only {groups[0].group} uses it, nothing to compare")
    else:
        far = max(groups, key=lambda g: g.distance_to_overall)
        parts.append(f"furthest from the overall use: {far.group} ({far.distance_to_overall:.3f})")
        steps = [
            (g.distance_to_previous, i) for i, g in enumerate(groups) if g.distance_to_previous
        ]
        if steps:
            distance, i = max(steps)
            parts.append(
                f"largest change: {groups[i - 1].group} → {groups[i].group} ({distance:.3f})"
            )
    if missing:
        parts.append(f"{len(missing)} groups without it")
    if not semantic:
        parts.append("the embedder measures word overlap, not meaning")
    return "; ".join(parts)
