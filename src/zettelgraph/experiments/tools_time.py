"""Temporal expressions in Spanish and English: dates, years, centuries, month names and
relative expressions ("ayer", "last year"), each normalised where it can be.

Rules are deliberately cautious, because a wrong year misleads a report more than a missing
one. A bare number is a year only with a cue: a preceding "en", "año", "in", "since", "de"...
(4 digits, 1000-2099), or "año"/"year" or an era marker ("a. C.", "BC") for 3 digits; never
after a page, volume or chapter marker ("p. 1605", "cap. 1200"), never inside a range or a
number with separators ("1.605", "1201-1210"), and not when a lower-case content word follows
("de 2000 soldados" is a quantity). Expressions are matched in the folded text (no case, no
accents) and shown as written; English month names must be capitalised ("May", not "may").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from zettelgraph.experiments.models import Citation, ToolOutput
from zettelgraph.experiments.registry import Document, ToolContext
from zettelgraph.experiments.text import Folded, TermMatcher, cite, fold_text
from zettelgraph.text.stopwords import STOPWORDS

Kind = Literal["year", "century", "date", "month", "relative"]
MAX_EXPRESSIONS = 50
MAX_CITATIONS = 10

_ES_MONTHS = (  # noqa: SIM905
    "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre"
).split()
_EN_MONTHS = (  # noqa: SIM905
    "january february march april may june july august september october november december"
).split()
MONTHS = {name: n for names in (_ES_MONTHS, _EN_MONTHS) for n, name in enumerate(names, 1)}
MONTHS["setiembre"] = 9
_ES = "|".join([*_ES_MONTHS, "setiembre"])
_EN = "|".join(_EN_MONTHS)
_ALL = f"{_ES}|{_EN}"
_ORDINALS = {
    word: n
    for n, word in enumerate(
        (  # noqa: SIM905
            "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
            "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth "
            "twentieth twenty-first"
        ).split(),
        1,
    )
}
_NUMBERS = {"un": 1, "una": 1, "uno": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5,
            "seis": 6, "siete": 7, "ocho": 8, "nueve": 9, "diez": 10, "a": 1, "an": 1,
            "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10}  # fmt: skip
_UNITS = {"dia": "day", "dias": "day", "semana": "week", "semanas": "week", "mes": "month",
          "meses": "month", "ano": "year", "anos": "year", "siglo": "century",
          "siglos": "century", "day": "day", "days": "day", "week": "week", "weeks": "week",
          "month": "month", "months": "month", "year": "year", "years": "year",
          "century": "century", "centuries": "century"}  # fmt: skip
_PLURALS = {"day": "days", "week": "weeks", "month": "months", "year": "years",
            "century": "centuries"}  # fmt: skip
_RELATIVE = {"anteayer": "-2 days", "antier": "-2 days", "ayer": "yesterday", "anoche":
             "last night", "hoy en dia": "nowadays", "hoy dia": "nowadays", "hoy": "today",
             "pasado manana": "+2 days", "manana": "tomorrow", "the day before yesterday":
             "-2 days", "yesterday": "yesterday", "today": "today", "tomorrow": "tomorrow",
             "tonight": "tonight", "nowadays": "nowadays", "last night": "last night"}  # fmt: skip
_PERIOD = r"(semana|mes|ano|siglo|week|month|year|century)"
YEAR_CUES = frozenset(
    """en in ano anos year years desde hasta hacia since until till from de
    del circa ca c around by entre between""".split()  # noqa: SIM905
)
STRONG_CUES = frozenset({"ano", "anos", "year"})
# After these a number is as often a quantity as a year: "de 2000 soldados", "hasta 1500 km".
QUANTITY_CUES = frozenset(
    "de del entre between by around hasta until from desde circa".split()  # noqa: SIM905
)
PAGE_CUES = frozenset(
    """p pp pag pags pagina paginas page pages vol vols volumen volume tomo
    cap caps capitulo chapter no num n fol folio art articulo linea line lines nota note
    fig figura figure tabla table isbn""".split()  # noqa: SIM905
)
_ERA = re.compile(r"\s*(a\.?\s?c\.?|d\.?\s?c\.?|bce|bc|ce|ad)(?!\w)")
_PREVIOUS = re.compile(r"(\w+)\.?\s*\(?\s*$")
_NEXT = re.compile(r"\s+(\w+)")


def _roman(text: str) -> int | None:
    values = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
    total = 0
    for ch, after in zip(text, [*text[1:], ""], strict=True):
        value = values[ch]
        total += -value if after and values[after] > value else value
    return total if 1 <= total <= 21 else None


def _century(n: int | None) -> str | None:
    return f"{(n - 1) * 100 + 1}-{n * 100}" if n and 1 <= n <= 21 else None


def _date(year: str | None, month: str, day: str) -> str | None:
    m, d = MONTHS.get(month) or int(month), int(day)
    if not (1 <= m <= 12 and 1 <= d <= 31):
        return None
    return f"{int(year):04d}-{m:02d}-{d:02d}" if year else f"--{m:02d}-{d:02d}"


Trigger = Literal["digit", "siglo", "century", "month", "relative"]


@dataclass(frozen=True)
class _Rule:
    kind: Kind
    trigger: Trigger  # what a passage must hold for the rule to be tried at all
    pattern: re.Pattern[str]
    # The normalised value from the match, or None to reject the match.
    value: Callable[[re.Match[str], Folded], str | None]
    capitalised: tuple[int, ...] = ()  # groups naming an English month: capitalised only


def _english_month_ok(match: re.Match[str], folded: Folded, group: int) -> bool:
    start, end = match.span(group)
    if match.group(group) not in _EN_MONTHS:
        return True
    return folded.surface(start, end)[:1].isupper()


def _relative_value(m: re.Match[str], _: Folded) -> str | None:
    words = m.group().split()
    text = " ".join(words)
    if text in _RELATIVE:
        return _RELATIVE[text]
    if words[0] == "hace" or words[-1] == "ago":  # "hace tres años", "3 years ago"
        amount, unit = (words[1], words[2]) if words[0] == "hace" else words[:2]
        count = int(amount) if amount.isdigit() else _NUMBERS.get(amount)
        plural = _UNITS[unit] if count == 1 else _PLURALS[_UNITS[unit]]
        how_many = str(count) if count is not None else "some"
        return f"{how_many} {plural} ago"
    if words[0] in ("last", "next"):
        return f"{words[0]} {words[1]}"
    # "el año pasado", "la semana que viene", "el próximo siglo"
    unit = next(_UNITS[w] for w in words if w in _UNITS)
    ahead = "viene" in words or words[1].startswith("proxim")
    return f"{'next' if ahead else 'last'} {unit}"


def _year_value(m: re.Match[str], folded: Folded) -> str | None:
    digits = m.group(1)
    year = int(digits)
    head = folded.folded[max(0, m.start() - 30) : m.start()]
    previous = _PREVIOUS.search(head)
    word = previous.group(1) if previous else ""
    if word in PAGE_CUES:
        return None
    era = _ERA.match(folded.folded, m.end())
    if era:
        before_christ = era.group(1).replace(".", "").replace(" ", "") in ("ac", "bc", "bce")
        return f"-{year}" if before_christ else str(year)
    if len(digits) == 3:
        return str(year) if word in STRONG_CUES else None
    bracketed = head.rstrip().endswith("(") and folded.folded[m.end() : m.end() + 1] == ")"
    if not 1000 <= year <= 2099 or not (word in YEAR_CUES or bracketed):
        return None
    following = _NEXT.match(folded.folded, m.end())
    if word in QUANTITY_CUES and following:
        after = folded.surface(*following.span(1))
        if after[:1].islower() and following.group(1) not in STOPWORDS:
            return None  # "de 2000 soldados": a quantity
    return str(year)


def _century_value(m: re.Match[str], folded: Folded) -> str | None:
    numeral = m.group(1)
    if m.group().startswith("s.") and not folded.surface(*m.span(1)).isupper():
        return None  # "s. xvi" only as "s. XVI": a lone "s." is too common
    return _century(int(numeral) if numeral.isdigit() else _roman(numeral))


_ORDINAL = "|".join(_ORDINALS)
# Earlier rules win an overlap: a date's year is not counted again as a year.
_RULES: tuple[_Rule, ...] = (
    _Rule("date", "digit", re.compile(r"(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?![\w-])"),
          lambda m, _: _date(m.group(1), m.group(2), m.group(3))),
    _Rule("date", "digit", re.compile(
        rf"(?<!\w)(\d{{1,2}})\s+de\s+({_ES})(?:\s+del?\s+(\d{{3,4}}))?(?!\w)"),
          lambda m, _: _date(m.group(3), m.group(2), m.group(1))),
    _Rule("date", "digit", re.compile(
        rf"(?<!\w)({_EN})\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{3,4}}))?(?!\w)"),
          lambda m, _: _date(m.group(3), m.group(1), m.group(2)), (1,)),
    _Rule("date", "digit", re.compile(
        rf"(?<!\w)(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_EN})(?:,?\s+(\d{{3,4}}))?(?!\w)"),
          lambda m, _: _date(m.group(3), m.group(2), m.group(1)), (2,)),
    _Rule("month", "digit", re.compile(rf"(?<!\w)({_ES})\s+del?\s+(\d{{3,4}})(?!\w)"),
          lambda m, _: f"{int(m.group(2)):04d}-{MONTHS[m.group(1)]:02d}"),
    _Rule("month", "digit", re.compile(rf"(?<!\w)({_EN}),?\s+(?:of\s+)?(\d{{4}})(?!\w)"),
          lambda m, _: f"{int(m.group(2)):04d}-{MONTHS[m.group(1)]:02d}", (1,)),
    _Rule("century", "siglo", re.compile(
        r"(?<!\w)(?:siglos?\s+|s\.\s*)([ivxlc]+|\d{1,2})(?!\w)"),
          _century_value),
    _Rule("century", "century", re.compile(
        r"(?<!\w)(\d{1,2})(?:st|nd|rd|th)[\s-]+centur(?:y|ies)(?!\w)"),
          lambda m, _: _century(int(m.group(1)))),
    _Rule("century", "century", re.compile(
        rf"(?<!\w)({_ORDINAL})[\s-]+centur(?:y|ies)(?!\w)"),
          lambda m, _: _century(_ORDINALS[m.group(1)])),
    _Rule("year", "digit", re.compile(r"(?<![\w.,/-])(\d{3,4})(?![\w/-]|[.,]\d)"), _year_value),
    _Rule("month", "month", re.compile(rf"(?<!\w)({_ALL})(?!\w)"),
          lambda m, _: f"--{MONTHS[m.group(1)]:02d}", (1,)),
    _Rule("relative", "relative", re.compile(
        r"(?<!\w)(?:hace\s+(?:\d+|\w+)\s+(?:dias?|semanas?|mes(?:es)?|anos?|siglos?)"
        r"|(?:\d+|a|an|one|two|three|\w+)\s+(?:days?|weeks?|months?|years?|centur(?:y|ies))"
        r"\s+ago"
        rf"|(?:el|la)\s+{_PERIOD}\s+(?:pasad[oa]|que\s+viene)|(?:el|la)\s+proxim[oa]\s+{_PERIOD}"
        rf"|(?:last|next)\s+{_PERIOD}|the\s+day\s+before\s+yesterday|hoy\s+(?:en\s+)?dia"
        r"|pasado\s+manana|anteayer|antier|ayer|anoche|hoy|yesterday|today|tomorrow|tonight"
        r"|nowadays|last\s+night|(?<!la\s)(?<!una\s)(?<!cada\s)(?<!esta\s)manana)(?!\w)"),
          _relative_value),
)  # fmt: skip


class TemporalExpression(BaseModel):
    text: str = Field(description="As written (the most frequent spelling).")
    kind: Kind
    value: str | None = Field(
        default=None,
        description="Normalised: '1492', '1492-10-12', '--10-12' (no year), '1492-10', "
        "'--10' (a month), '1501-1600' (a century), '-711' (BC), 'yesterday', '3 years ago'.",
    )
    count: int
    passage_ids: list[str] = Field(default_factory=list, max_length=5)
    near_term: int = Field(default=0, description="Occurrences in passages with the term.")


class TemporalExpressionsOutput(ToolOutput):
    expressions: list[TemporalExpression] = Field(default_factory=list, max_length=MAX_EXPRESSIONS)


_DIGIT = re.compile(r"\d")
_RELATIVE_WORDS = ("ayer", "hoy", "manana", "anoche", "antier", "hace", "pasad", "viene",
                   "proxim", "yesterday", "today", "tomorrow", "tonight", "nowadays", "ago",
                   "last", "next")  # fmt: skip


def _triggers(text: str) -> set[Trigger]:
    """The rules worth trying on `text`: most passages hold no digit, month or time word, and
    a substring test is far cheaper than a regular expression that fails at every word."""
    found: set[Trigger] = set()
    if _DIGIT.search(text):
        found.add("digit")
    if "siglo" in text or "s." in text:
        found.add("siglo")
    if "centur" in text:
        found.add("century")
    if any(name in text for name in MONTHS):
        found.add("month")
    if any(word in text for word in _RELATIVE_WORDS):
        found.add("relative")
    return found


def _find(folded: Folded) -> list[tuple[Kind, str, str]]:
    """(kind, value, text as written) of every expression, earlier rules first, no overlaps."""
    taken: list[tuple[int, int]] = []
    found: list[tuple[int, Kind, str, str]] = []
    triggers = _triggers(folded.folded)
    if not triggers:
        return []
    for rule in _RULES:
        if rule.trigger not in triggers:
            continue
        for match in rule.pattern.finditer(folded.folded):
            start, end = match.span()
            if any(start < e and s < end for s, e in taken):
                continue
            if not all(_english_month_ok(match, folded, g) for g in rule.capitalised):
                continue
            value = rule.value(match, folded)
            if value is None:
                continue
            taken.append((start, end))
            found.append((start, rule.kind, value, " ".join(folded.surface(start, end).split())))
    return [(kind, value, text) for _, kind, value, text in sorted(found, key=lambda f: f[0])]


@dataclass
class _Tally:
    texts: Counter[str] = field(default_factory=Counter)
    count: int = 0
    near_term: int = 0
    passages: list[tuple[int, int]] = field(default_factory=list)


def temporal_expressions(
    ctx: ToolContext, documents: Sequence[Document]
) -> TemporalExpressionsOutput:
    """Years, centuries, dates, months and relative expressions, counted and cited."""
    matcher = TermMatcher(ctx.term.term, ctx.term.match)
    tallies: dict[tuple[Kind, str], _Tally] = {}  # (kind, normalised value) -> tally
    for d, document in enumerate(documents):
        for p, passage in enumerate(document.passages):
            folded = fold_text(passage.text)
            found = _find(folded)
            if not found:
                continue
            with_term = matcher.found_in(folded)
            for kind, value, text in found:
                tally = tallies.setdefault((kind, value), _Tally())
                tally.texts[text] += 1
                tally.count += 1
                tally.near_term += with_term
                if len(tally.passages) < 5 and (d, p) not in tally.passages:
                    tally.passages.append((d, p))
    ranked = sorted(tallies.items(), key=lambda item: (-item[1].count, item[0]))
    expressions = [
        TemporalExpression(
            text=tally.texts.most_common(1)[0][0],
            kind=kind,
            value=value,
            count=tally.count,
            passage_ids=[documents[d].passages[p].id for d, p in tally.passages],
            near_term=tally.near_term,
        )
        for (kind, value), tally in ranked[:MAX_EXPRESSIONS]
    ]
    citations: dict[str, Citation] = {}
    for _, tally in ranked:
        d, p = tally.passages[0]
        passage = documents[d].passages[p]
        citations.setdefault(passage.id, cite(documents[d], passage))
        if len(citations) >= MAX_CITATIONS:
            break
    total = sum(t.count for t in tallies.values())
    return TemporalExpressionsOutput(
        count=total,
        summary=_summary(ctx.term.term, documents, expressions, total),
        citations=list(citations.values()),
        expressions=expressions,
    )


def _summary(
    term: str, documents: Sequence[Document], expressions: list[TemporalExpression], total: int
) -> str:
    where = f" in {documents[0].info.title!r}" if len(documents) == 1 else ""
    if not expressions:
        return f"no temporal expressions{where}"
    parts: list[str] = []
    years = sorted(int(e.value) for e in expressions if e.kind == "year" and e.value)
    if years:
        span = f"{years[0]}" if years[0] == years[-1] else f"{years[0]}–{years[-1]}"
        parts.append(f"years {span}")
    for kind in ("century", "date", "month", "relative"):
        n = sum(e.count for e in expressions if e.kind == kind)
        if n:
            parts.append(f"{n} {kind if kind != 'century' else 'centuries'} mentions")
    near = sum(e.near_term for e in expressions)
    return (
        f"{total} temporal expressions{where} ({'; '.join(parts)}); "
        f"{near} in passages that mention {term}"
    )
