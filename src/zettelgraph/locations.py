"""Where a passage is: merging the locations of the blocks it spans, and saying it in words.

A location is a small dict (see `ingest/parsed.py` for the keys a reader sets). A passage cut
from several blocks gets one location that covers them all: `{"page": 3, "page_end": 4}`,
`{"line_start": 10, "line_end": 31}`. The label is what a citation shows a reader.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zettelgraph.models import Quote

# Numbered places that a passage can span; the merged form is key (first) + key_end (last).
_RANGED = ("page", "slide", "turn", "paragraph")


def merge_locations(locations: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One location covering every given one, in reading order.

    Numbered places become a range when they differ; line ranges take the outer bounds;
    anything else (heading path, speaker, symbol) is taken from the first block, since a
    passage never spans two sections, speakers or definitions.
    """
    if not locations:
        return {}
    out: dict[str, Any] = {}
    for location in locations:
        for key, value in location.items():
            out.setdefault(key, value)
    for key in _RANGED:
        values = [loc[key] for loc in locations if isinstance(loc.get(key), int)]
        if values and min(values) != max(values):
            out[key] = min(values)
            out[f"{key}_end"] = max(values)
    starts = [loc["line_start"] for loc in locations if isinstance(loc.get("line_start"), int)]
    ends = [loc["line_end"] for loc in locations if isinstance(loc.get("line_end"), int)]
    if starts:
        out["line_start"] = min(starts)
    if ends:
        out["line_end"] = max(ends)
    return out


def _span(location: Mapping[str, Any], key: str) -> str | None:
    first = location.get(key)
    if first is None:
        return None
    last = location.get(f"{key}_end")
    return f"{first}–{last}" if last is not None and last != first else str(first)


def location_label(location: Mapping[str, Any], *, page: str | None = None) -> str:
    """A short human form: "p. 12", "pp. 3–4", "slide 5 (notes)", "Intro > Setup, lines 4–9",
    "turn 3 (assistant)". `page` is a book-note quote's own page field."""
    parts: list[str] = []
    path = location.get("heading_path")
    if isinstance(path, list) and path:
        parts.append(" > ".join(str(p) for p in path))
    if location.get("symbol"):
        parts.append(str(location["symbol"]))
    pages = _span(location, "page")
    if pages:
        label = location.get("page_label")
        parts.append(f"p. {label}" if label else page_label(pages))
    elif page:
        parts.append(page_label(page))
    slides = _span(location, "slide")
    if slides:
        parts.append(f"slide{'s' if '–' in slides else ''} {slides}")
    turns = _span(location, "turn")
    if turns:
        speaker = location.get("speaker")
        parts.append(f"turn {turns}" + (f" ({speaker})" if speaker else ""))
    start, end = location.get("line_start"), location.get("line_end")
    if start is not None and not turns:
        parts.append(f"line {start}" if end in (None, start) else f"lines {start}–{end}")
    if location.get("kind") == "notes":
        parts.append("speaker notes")
    return ", ".join(parts)


def page_label(page: str) -> str:
    """A page as written in a citation: "p. 12", "pp. 3–4"; a reference that already says
    what it is ("loc 142", "p. 9") is kept as it is."""
    page = page.strip()
    if page[:1].isalpha():
        return page
    return f"pp. {page}" if re.search(r"[-–,]", page) else f"p. {page}"


def quote_place(quote: Quote) -> str:
    """Where a quote or passage is, for a citation: a book-note quote's section and page, a
    document passage's location."""
    if quote.parent_id is not None:
        return location_label(quote.location, page=quote.page)
    page = page_label(quote.page) if quote.page else ""
    return ", ".join(part for part in (quote.section, page) if part)
