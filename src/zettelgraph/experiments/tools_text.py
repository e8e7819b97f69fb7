"""Tools that read the words around the term: concordance (KWIC), term frequency by
document, year and author, and the words that keep the term company (PMI)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from zettelgraph.experiments.models import Citation, ToolOutput
from zettelgraph.experiments.registry import Document, ToolContext
from zettelgraph.experiments.text import (
    TOKEN,
    TermMatcher,
    cite,
    evenly,
    fold_text,
    folded_passages,
    per_10k,
)
from zettelgraph.models import Quote
from zettelgraph.text.normalize import words_of
from zettelgraph.text.stopwords import STOPWORDS

MAX_CITATIONS = 10


# --- concordance -------------------------------------------------------------------------

KWIC_LINES = 50
KWIC_CHARS = 60  # context shown on each side of a match


class KwicLine(BaseModel):
    left: str
    match: str
    right: str
    passage_id: str
    location: str = ""


class ConcordanceOutput(ToolOutput):
    lines: list[KwicLine] = Field(default_factory=list, max_length=KWIC_LINES)
    passages: int = Field(default=0, description="Passages that mention the term.")
    words: int = Field(default=0, description="Words in the documents read.")
    per_10k: float = 0.0


def _left(text: str, start: int) -> str:
    cut = max(0, start - KWIC_CHARS)
    left = text[cut:start]
    if cut > 0 and " " in left:  # do not show half a word
        left = "…" + left[left.index(" ") + 1 :]
    return " ".join(left.split()) + (" " if left[-1:].isspace() else "")


def _right(text: str, end: int) -> str:
    cut = min(len(text), end + KWIC_CHARS)
    right = text[end:cut]
    if cut < len(text) and " " in right:
        right = right[: right.rindex(" ")] + "…"
    return (" " if right[:1].isspace() else "") + " ".join(right.split())


def concordance(ctx: ToolContext, documents: Sequence[Document]) -> ConcordanceOutput:
    """Every occurrence of the term, counted; KWIC_LINES of them, spread evenly over the
    text, shown with their context."""
    matcher = TermMatcher(ctx.term.term, ctx.term.match)
    # (document index, passage, original start, original end) of every match.
    matches: list[tuple[int, Quote, int, int]] = []
    passages = words = 0
    for index, document in enumerate(documents):
        for passage, folded in folded_passages(document):
            words += len(TOKEN.findall(folded.folded))
            spans = matcher.spans(folded)
            if spans:
                passages += 1
                for start, end in spans:
                    first, last = folded.original(start, end)
                    matches.append((index, passage, first, last))
    shown = evenly(matches, KWIC_LINES)
    lines = [
        KwicLine(
            left=_left(passage.text, start),
            match=passage.text[start:end],
            right=_right(passage.text, end),
            passage_id=passage.id,
            location=documents[index].location(passage),
        )
        for index, passage, start, end in shown
    ]
    cited: dict[str, Citation] = {}
    for index, passage, _, _ in shown:
        cited.setdefault(passage.id, cite(documents[index], passage))
    rate = per_10k(len(matches), words)
    where = f" of {documents[0].info.title!r}" if len(documents) == 1 else ""
    return ConcordanceOutput(
        count=len(matches),
        summary=f"{ctx.term.term}: {len(matches)} times in {passages} passages{where}, "
        f"{rate:.1f} per 10,000 words",
        citations=evenly(list(cited.values()), MAX_CITATIONS),
        lines=lines,
        passages=passages,
        words=words,
        per_10k=rate,
    )


# --- term frequency ----------------------------------------------------------------------

UNKNOWN = "unknown"


class FrequencyRow(BaseModel):
    group_kind: Literal["document", "year", "author"]
    group: str
    occurrences: int
    passages: int
    words: int
    per_10k: float
    content_id: str | None = Field(default=None, description="For a document row.")


class TermFrequencyOutput(ToolOutput):
    rows: list[FrequencyRow] = Field(default_factory=list, max_length=1000)
    documents_without_year: int = 0


def _add(totals: dict[str, list[int]], key: str, counts: tuple[int, int, int]) -> None:
    row = totals.setdefault(key, [0, 0, 0])
    for i, value in enumerate(counts):
        row[i] += value


def _rows(kind: Literal["year", "author"], totals: dict[str, list[int]]) -> list[FrequencyRow]:
    # Known groups in order (years as numbers), "unknown" last.
    def order(key: str) -> tuple[bool, int, str]:
        return (key == UNKNOWN, int(key) if key.lstrip("-").isdigit() else 0, key.casefold())

    return [
        FrequencyRow(
            group_kind=kind,
            group=key,
            occurrences=o,
            passages=p,
            words=w,
            per_10k=per_10k(o, w),
        )
        for key, (o, p, w) in sorted(totals.items(), key=lambda item: order(item[0]))
    ]


def _best(rows: list[FrequencyRow]) -> str:
    known = [r for r in rows if r.group != UNKNOWN and r.words]
    if len(known) < 2:
        return ""
    top = max(known, key=lambda r: (r.per_10k, r.occurrences))
    return f"{top.group} ({top.per_10k:.1f})"


def term_frequency(ctx: ToolContext, documents: Sequence[Document]) -> TermFrequencyOutput:
    """Occurrences, passages and words per document, per year and per author."""
    matcher = TermMatcher(ctx.term.term, ctx.term.match)
    rows: list[FrequencyRow] = []
    by_year: dict[str, list[int]] = {}
    by_author: dict[str, list[int]] = {}
    citations: list[Citation] = []
    for document in documents:
        occurrences = passages = words = 0
        first: Quote | None = None
        for passage, folded in folded_passages(document):
            words += len(TOKEN.findall(folded.folded))
            found = matcher.count(folded)
            if found:
                occurrences += found
                passages += 1
                first = first or passage
        if first is not None and len(citations) < MAX_CITATIONS:
            citations.append(cite(document, first))
        info = document.info
        rows.append(
            FrequencyRow(
                group_kind="document",
                group=info.title,
                occurrences=occurrences,
                passages=passages,
                words=words,
                per_10k=per_10k(occurrences, words),
                content_id=info.id,
            )
        )
        counts = (occurrences, passages, words)
        _add(by_year, str(info.year) if info.year is not None else UNKNOWN, counts)
        _add(by_author, info.author or UNKNOWN, counts)
    year_rows, author_rows = _rows("year", by_year), _rows("author", by_author)
    total = sum(r.occurrences for r in rows)
    words = sum(r.words for r in rows)
    without_year = sum(1 for d in documents if d.info.year is None)
    parts = [
        f"{ctx.term.term}: {total} times in {len(documents)} documents "
        f"({per_10k(total, words):.1f} per 10,000 words)"
    ]
    if best := _best(year_rows):
        parts.append(f"highest by year: {best}")
    if best := _best(author_rows):
        parts.append(f"highest by author: {best}")
    if without_year:
        parts.append(f"{without_year} document(s) without a year grouped as '{UNKNOWN}'")
    return TermFrequencyOutput(
        count=total,
        summary="; ".join(parts),
        citations=citations,
        rows=[*rows, *year_rows, *author_rows],
        documents_without_year=without_year,
    )


# --- co-occurrence -----------------------------------------------------------------------

WINDOW = 8  # tokens on each side of an occurrence
MIN_TOGETHER = 2  # a word seen once near the term would top PMI by chance
TOP_TERMS = 20
MIN_WORD_CHARS = 3


class CooccurringTerm(BaseModel):
    term: str
    together: int = Field(description="Times within the window of an occurrence.")
    pmi: float = Field(description="log2(p(word | window) / p(word)).")
    occurrences: int = Field(default=0, description="Times in the documents read.")


class AnchorPresence(BaseModel):
    anchor: str
    together: int = Field(description="Occurrences of the term with the anchor in the window.")
    same_passage: int = Field(default=0, description="Passages holding both.")


class CooccurrenceOutput(ToolOutput):
    terms: list[CooccurringTerm] = Field(default_factory=list, max_length=TOP_TERMS)
    anchors: list[AnchorPresence] = Field(default_factory=list, max_length=12)
    window: int = WINDOW


def _window(starts: list[int], size: int, length: int) -> set[int]:
    """Token positions within WINDOW of any occurrence, the occurrences themselves left out."""
    inside: set[int] = set()
    for start in starts:
        inside.update(range(max(0, start - WINDOW), min(length, start + size + WINDOW)))
    for start in starts:
        inside.difference_update(range(start, start + size))
    return inside


def _near(start: int, size: int, hits: list[int]) -> bool:
    """Whether an anchor starts within WINDOW of the occurrence at `start` (not inside it)."""
    return any(
        start - WINDOW <= h < start + size + WINDOW and not start <= h < start + size for h in hits
    )


def cooccurrence(ctx: ToolContext, documents: Sequence[Document]) -> CooccurrenceOutput:
    """Content words within WINDOW tokens of the term, ranked by PMI, and the anchors."""
    matcher = TermMatcher(ctx.term.term, ctx.term.match)
    anchors = [
        (a, TermMatcher(a, ctx.term.match))
        for a in ctx.term.anchors
        if TOKEN.search(fold_text(a).folded)
    ]
    counts: Counter[str] = Counter()
    together: Counter[str] = Counter()
    surface: dict[str, str] = {}
    first_seen: dict[str, tuple[int, Quote]] = {}
    anchor_windows = [0] * len(anchors)
    anchor_passages = [0] * len(anchors)
    occurrences = window_total = 0
    size = len(matcher.keys)
    for index, document in enumerate(documents):
        for passage, folded in folded_passages(document):
            keys = matcher.keys_of(folded)
            starts = matcher.token_matches(keys)
            if not starts:
                counts.update(TOKEN.findall(folded.folded))
                continue
            found = words_of(folded.folded)
            words = [t.text for t in found]
            counts.update(words)
            occurrences += len(starts)
            inside = _window(starts, size, len(words))
            window_total += len(inside)
            for position in inside:
                token = found[position]
                if matcher.is_term_word(keys[position]):
                    continue  # the term's own words (another inflection) are not its company
                together[token.text] += 1
                if token.text not in surface:
                    surface[token.text] = folded.surface(token.start, token.end).lower()
                    first_seen[token.text] = (index, passage)
            for a, (_, anchor) in enumerate(anchors):
                hits = anchor.token_matches(keys)  # one mode: the same keys
                if hits:
                    anchor_passages[a] += 1
                    anchor_windows[a] += sum(1 for s in starts if _near(s, size, hits))
    total = sum(counts.values())
    ranked: list[tuple[float, int, str]] = []
    for word, n in together.items():
        if n < MIN_TOGETHER or len(word) < MIN_WORD_CHARS or word.isdigit() or word in STOPWORDS:
            continue
        pmi = round(math.log2((n / window_total) / (counts[word] / total)), 3)
        ranked.append((-pmi, -n, word))
    ranked.sort()
    top = [
        CooccurringTerm(term=surface[w], together=-n, pmi=-pmi, occurrences=counts[w])
        for pmi, n, w in ranked[:TOP_TERMS]
    ]
    cited: dict[str, Citation] = {}
    for _, _, word in ranked[:TOP_TERMS]:
        index, passage = first_seen[word]
        if len(cited) < MAX_CITATIONS:
            cited.setdefault(passage.id, cite(documents[index], passage))
    presence = [
        AnchorPresence(anchor=a, together=anchor_windows[i], same_passage=anchor_passages[i])
        for i, (a, _) in enumerate(anchors)
    ]
    parts = [f"{ctx.term.term}: {occurrences} occurrences"]
    if top:
        shown = ", ".join(f"{t.term} (PMI {t.pmi:.1f}, {t.together}×)" for t in top[:5])
        parts.append(f"words most bound to it (±{WINDOW} words): {shown}")
    else:
        parts.append(f"no word occurs near it {MIN_TOGETHER} or more times")
    if presence:
        parts.append("anchors near it: " + ", ".join(f"{p.anchor} {p.together}" for p in presence))
    return CooccurrenceOutput(
        count=occurrences,
        summary="; ".join(parts),
        citations=list(cited.values()),
        terms=top,
        anchors=presence,
    )
