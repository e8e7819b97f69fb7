"""The filter a reader writes (`--content`, `--kind`, `--author`, `--where`) as a
`PassageFilter`, checked against the library so a typo is an error, not an empty result.

`--where` names a stretch of a source as UNIT=RANGE[,RANGE...]:

    pages=12-40     p. 12-40     pp. 3-4      page=7       pages=100-   (open end)
    slides=3-5      slide=2
    turns=4-9                                  (chat and transcript turns)
    time=00:10:00-00:20:00      time=10:00-12:30      time=-5:00   (seconds, MM:SS or HH:MM:SS)

A passage is inside when its own span overlaps the range; ranges after commas
(`pages=1-3,8`), clauses after ";" (`pages=1-3; slides=2`, and `time=1:00-2:00; time=5:00-6:00`
since a time may write its fraction after a comma) or several `--where` widen the filter (any
of them), while the other criteria narrow it (all of them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from zettelgraph.models import Content, PassageFilter, PlaceRange, PlaceUnit
from zettelgraph.store.base import GraphStore
from zettelgraph.store.scope import seconds
from zettelgraph.text.normalize import normalize_name

WHERE_HELP = "pages=12-40, p. 12-40, slides=3-5, turns=2-6 or time=00:10:00-00:20:00"
_UNITS: dict[str, PlaceUnit] = {
    "p": "page",
    "pp": "page",
    "pg": "page",
    "page": "page",
    "pages": "page",
    "slide": "slide",
    "slides": "slide",
    "turn": "turn",
    "turns": "turn",
    "time": "time",
    "t": "time",
}
# A unit (letters), then "=", ":", "." or a space, then the ranges.
_WHERE = re.compile(r"^\s*([A-Za-z]+)\s*(?:[=:.]|\s)\s*(.*?)\s*$")
_DASH = re.compile(r"\s*[-–—]\s*")
# Shortest id prefix taken for a content (ids are UUIDs; listings print the first 8).
_MIN_PREFIX = 4


class FilterError(ValueError):
    """A filter that cannot be used; the message says what to write instead."""


def parse_where(text: str) -> tuple[PlaceRange, ...]:
    """The ranges of one `--where` value; FilterError with the accepted forms otherwise."""
    clauses = [clause for clause in text.split(";") if clause.strip()]
    if len(clauses) > 1:
        return tuple(place for clause in clauses for place in parse_where(clause))
    match = _WHERE.match(clauses[0] if clauses else text)
    if match is None or not match.group(2):
        raise FilterError(f"--where {text!r}: write UNIT=RANGE, e.g. {WHERE_HELP}")
    name, ranges = match.groups()
    unit = _UNITS.get(name.casefold())
    if unit is None:
        raise FilterError(f"--where {text!r}: unknown unit {name!r}; write {WHERE_HELP}")
    # In a time a comma is SRT's decimal mark (00:01:02,500): time ranges are listed with ";".
    parts = [ranges] if unit == "time" else ranges.split(",")
    return tuple(_range(text, unit, part) for part in parts)


def _range(text: str, unit: PlaceUnit, part: str) -> PlaceRange:
    pieces = _DASH.split(part.strip())
    if len(pieces) > 2 or not any(pieces):
        raise FilterError(f"--where {text!r}: {part.strip()!r} is not a range like 12-40")
    first = _value(text, unit, pieces[0])
    last = first if len(pieces) == 1 else _value(text, unit, pieces[1])
    if first is not None and last is not None and first > last:
        raise FilterError(f"--where {text!r}: the range {part.strip()!r} ends before it starts")
    return PlaceRange(unit=unit, start=first, end=last)


def _value(text: str, unit: PlaceUnit, piece: str) -> float | None:
    if not piece:
        return None  # an open end: "100-" or "-5:00"
    if unit == "time":
        value = seconds(piece)
        if value is None:
            raise FilterError(f"--where {text!r}: {piece!r} is not a time like 00:10:00")
        return value
    if not piece.isdigit():
        raise FilterError(f"--where {text!r}: {piece!r} is not a {unit} number")
    return float(piece)


def where_text(place: PlaceRange) -> str:
    """A range written back in `--where` syntax (to show a stored filter, or refill a form)."""
    unit = {"page": "pages", "slide": "slides", "turn": "turns", "time": "time"}[place.unit]

    def side(value: float | None) -> str:
        if value is None:
            return ""
        if place.unit != "time":
            return str(int(value))
        whole = int(value)
        clock = f"{whole // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d}"
        return clock + (f"{value - whole:.3f}"[1:] if value != whole else "")

    start, end = side(place.start), side(place.end)
    return f"{unit}={start}" if start == end else f"{unit}={start}-{end}"


def resolve_contents(given: Iterable[str], contents: Sequence[Content]) -> tuple[str, ...]:
    """Content ids for what the reader named: an id, a unique id prefix, or a title (case
    and accents ignored; every Content of that title)."""
    out: list[str] = []
    ids = [c.id for c in contents]
    for name in given:
        name = name.strip()
        if not name:
            continue
        if name in ids:
            out.append(name)
            continue
        titled = [c.id for c in contents if normalize_name(c.title) == normalize_name(name)]
        prefixed = [i for i in ids if len(name) >= _MIN_PREFIX and i.startswith(name)]
        if titled:
            out.extend(titled)
        elif len(prefixed) == 1:
            out.extend(prefixed)
        elif prefixed:
            raise FilterError(f"--content {name!r} matches {len(prefixed)} contents; give more")
        else:
            raise FilterError(
                f"--content {name!r}: no content with that id or title "
                "(`zettelgraph contents` lists them)"
            )
    return tuple(dict.fromkeys(out))


def build_filter(
    store: GraphStore,
    *,
    contents: Iterable[str] = (),
    kinds: Iterable[str] = (),
    authors: Iterable[str] = (),
    where: Iterable[str] = (),
) -> PassageFilter | None:
    """The PassageFilter for what was given (None when nothing was): contents resolved to
    ids, kinds and authors checked against the library, `where` parsed."""
    given_contents = [c for c in contents if c.strip()]
    given_kinds = [k.strip() for k in kinds if k.strip()]
    given_authors = [a.strip() for a in authors if a.strip()]
    places = tuple(place for text in where if text.strip() for place in parse_where(text))
    if not (given_contents or given_kinds or given_authors or places):
        return None
    library = store.list_contents() if given_contents or given_kinds else []
    known_kinds = sorted({c.kind.casefold() for c in library})
    for kind in given_kinds:
        if kind.casefold() not in known_kinds:
            listed = ", ".join(known_kinds) or "none yet"
            raise FilterError(f"--kind {kind!r}: no content of that kind (yours: {listed})")
    for name in given_authors:
        if store.find_person(name) is None:
            raise FilterError(f"--author {name!r}: no author of that name in your library")
    return PassageFilter(
        content_ids=resolve_contents(given_contents, library),
        kinds=tuple(given_kinds),
        authors=tuple(given_authors),
        places=places,
    )


def filter_fields(passages: PassageFilter | None) -> dict[str, str]:
    """A filter as the web form's fields (one content, kind and author; every place)."""
    if passages is None:
        return {"content": "", "kind": "", "author": "", "where": ""}
    return {
        "content": passages.content_ids[0] if passages.content_ids else "",
        "kind": passages.kinds[0] if passages.kinds else "",
        "author": passages.authors[0] if passages.authors else "",
        "where": "; ".join(where_text(place) for place in passages.places),
    }
