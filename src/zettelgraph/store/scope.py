"""Which passages a `PassageFilter` admits: the checks every backend shares, as pure functions.

Content criteria (ids, kinds, authors) go into each backend's own queries. Where a passage
is (its pages, slides, turns or time span) lives in its record's `location`, and for a
book-note quote in its `page` text; no backend indexes those, so `in_places` checks them over
the passages of the filter's contents (docs/design.md, "Filtered search").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from zettelgraph.models import NodeLabel, PassageFilter, PlaceRange, PlaceUnit
from zettelgraph.text.normalize import normalize_name

# A book-note page as people write it: "12", "12-13", "p. 12", "pp. 3–4" (not "loc 142").
_PAGE_TEXT = re.compile(r"^(?:pp?\.?\s*)?(\d+)(?:\s*[-–]\s*(\d+))?$")
# [[HH:]MM:]SS with an optional fraction after "." or "," (SRT writes 00:01:02,500).
_CLOCK = re.compile(r"^(?:(?:(\d+):)?(\d+):)?(\d+(?:[.,]\d+)?)$")


def seconds(value: Any) -> float | None:
    """A time as seconds: "01:02:03", "02:03", "75", "00:00:01,500" or a number; None when
    it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if not isinstance(value, str):
        return None
    match = _CLOCK.match(value.strip())
    if match is None:
        return None
    hours, minutes, secs = match.groups()
    return int(hours or 0) * 3600 + int(minutes or 0) * 60 + float(secs.replace(",", "."))


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and value.strip().isdigit():
        return float(value.strip())
    return None


def passage_span(
    location: Mapping[str, Any], page: str | None, unit: PlaceUnit
) -> tuple[float, float] | None:
    """The first and last page (slide, turn, second) a passage covers; None if unknown.

    Numbered places are `key` .. `key_end` in a location (`locations.merge_locations`);
    a transcript passage runs from `start` to `end` ("HH:MM:SS"); a book-note quote without
    a location page has its `page` text."""
    if unit == "time":
        first, last = seconds(location.get("start")), seconds(location.get("end"))
    else:
        first, last = _number(location.get(unit)), _number(location.get(f"{unit}_end"))
        if first is None and unit == "page" and page:
            match = _PAGE_TEXT.match(page.strip().casefold())
            if match:
                first = float(match.group(1))
                last = float(match.group(2)) if match.group(2) else None
    if first is None:
        return None
    return first, max(first, last) if last is not None else first


def in_places(location: Mapping[str, Any], page: str | None, places: Sequence[PlaceRange]) -> bool:
    """Whether a passage overlaps any of the ranges (True when none is given)."""
    if not places:
        return True
    for place in places:
        span = passage_span(location, page, place.unit)
        if span is None:
            continue
        low = place.start if place.start is not None else float("-inf")
        high = place.end if place.end is not None else float("inf")
        if span[0] <= high and span[1] >= low:
            return True
    return False


def author_keys(passages: PassageFilter) -> list[str]:
    """The filter's author names as stored `Person.name_key`s."""
    return sorted({normalize_name(name) for name in passages.authors if name.strip()})


def kind_keys(passages: PassageFilter) -> list[str]:
    """The filter's content kinds, folded (compared with the stored kind folded too)."""
    return sorted({kind.strip().casefold() for kind in passages.kinds if kind.strip()})


def admits(
    passages: PassageFilter,
    *,
    content_id: str,
    kind: str,
    author: str | None,
    location: Mapping[str, Any],
    page: str | None,
) -> bool:
    """The whole filter over one passage whose Content and author are known (the retriever
    checks passages reached through concepts with it; stores use their own queries)."""
    if passages.content_ids and content_id not in passages.content_ids:
        return False
    kinds = kind_keys(passages)
    if kinds and kind.casefold() not in kinds:
        return False
    authors = author_keys(passages)
    if authors and (author is None or normalize_name(author) not in authors):
        return False
    return in_places(location, page, passages.places)


def active_filter(
    label: NodeLabel | str | None, passages: PassageFilter | None
) -> PassageFilter | None:
    """The filter a search applies (None for none or an empty one); a filter on a label
    other than Quote is refused, since only passages have Contents and places."""
    if passages is None or not passages.active:
        return None
    if label is not None and NodeLabel(label) != NodeLabel.QUOTE:
        raise ValueError(f"a passage filter applies to Quotes only, not to {label}")
    return passages
