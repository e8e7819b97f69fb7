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

    Numbered places become a range when they differ; line ranges, subtitle times (`start` /
    `end`) and cue numbers (`cues`) take the outer bounds; a heading path that changes adds
    the last one as `heading_path_end`; several speakers become `speakers` (in order of
    first appearance). Anything else (symbol) is taken from the first block, since a passage
    never spans two definitions.
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
    _merge_spans(locations, out)
    _merge_ocr(locations, out)
    return out


def _merge_spans(locations: Sequence[Mapping[str, Any]], out: dict[str, Any]) -> None:
    """The heading paths, times, cues and speakers part of `merge_locations`."""
    paths = [loc["heading_path"] for loc in locations if isinstance(loc.get("heading_path"), list)]
    if paths and paths[-1] != paths[0]:
        out["heading_path_end"] = paths[-1]
    # "HH:MM:SS" with hours of any width: shorter is earlier, then text order.
    times = [loc[k] for loc in locations for k in ("start", "end") if isinstance(loc.get(k), str)]
    if times:
        out["start"] = min(times, key=lambda t: (len(t), t))
        out["end"] = max(times, key=lambda t: (len(t), t))
    cues = [n for loc in locations if isinstance(loc.get("cues"), list) for n in loc["cues"]]
    if cues:
        out["cues"] = [min(cues), max(cues)]
    speakers = list(dict.fromkeys(loc["speaker"] for loc in locations if loc.get("speaker")))
    if len(speakers) > 1:
        del out["speaker"]
        out["speakers"] = speakers


def _merge_ocr(locations: Sequence[Mapping[str, Any]], out: dict[str, Any]) -> None:
    """Text read by OCR: a passage is marked `ocr` only when all of it was; in one picture,
    its region is the box around its paragraphs' regions; its confidence is the lowest."""
    if not all(loc.get("ocr") for loc in locations):
        for key in ("ocr", "region", "confidence", "image"):
            out.pop(key, None)
        return
    pictures = {(loc.get("page"), loc.get("slide"), loc.get("image")) for loc in locations}
    boxes = [loc["region"] for loc in locations if isinstance(loc.get("region"), list)]
    if len(pictures) > 1 or len(boxes) < len(locations):
        out.pop("region", None)
        if len({loc.get("image") for loc in locations}) > 1:
            out.pop("image", None)
    elif boxes:
        left, top = min(b[0] for b in boxes), min(b[1] for b in boxes)
        right, bottom = max(b[0] + b[2] for b in boxes), max(b[1] + b[3] for b in boxes)
        out["region"] = [left, top, right - left, bottom - top]
    scores = [loc["confidence"] for loc in locations if isinstance(loc.get("confidence"), int)]
    if scores:
        out["confidence"] = min(scores)


def _span(location: Mapping[str, Any], key: str) -> str | None:
    first = location.get(key)
    if first is None:
        return None
    last = location.get(f"{key}_end")
    return f"{first}–{last}" if last is not None and last != first else str(first)


def location_label(location: Mapping[str, Any], *, page: str | None = None) -> str:
    """A short human form: "p. 12", "pp. 3–4", "slide 5 (notes)", "Intro > Setup, lines 4–9",
    "3.1 Setup → 3.2 Usage, lines 40–58", "turn 3 (assistant)", "turn 5 (user), of turns 3–8"
    (a turn of a chat topic), "00:12:03–00:13:10 (Ann)".
    `page` is a book-note quote's own page field."""
    parts: list[str] = []
    headings = _headings(location)
    if headings:
        parts.append(headings)
    if location.get("symbol"):
        parts.append(str(location["symbol"]))
    pages = _span(location, "page")
    if pages:
        label = location.get("page_label")
        scan = " (scan)" if location.get("ocr") else ""  # read by OCR from a scanned page
        parts.append((f"p. {label}" if label else page_label(pages)) + scan)
    elif page:
        parts.append(page_label(page))
    slides = _span(location, "slide")
    if slides:
        parts.append(f"slide{'s' if '–' in slides else ''} {slides}")
    if location.get("ocr") and not pages:
        image = location.get("image")
        parts.append(f"image {image} (OCR)" if image else "image (OCR)")
    turns = _span(location, "turn")
    if turns:
        speaker = location.get("speaker")
        parts.append(f"turn {turns}" + (f" ({speaker})" if speaker else ""))
        topic = location.get("topic_turns")
        if isinstance(topic, list) and len(topic) == 2:  # the turns of its topic
            parts.append(f"of turns {topic[0]}–{topic[1]}")
    start, end = location.get("line_start"), location.get("line_end")
    if start is not None and not turns:
        parts.append(f"line {start}" if end in (None, start) else f"lines {start}–{end}")
    if location.get("kind") == "notes":
        parts.append("speaker notes")
    if isinstance(location.get("start"), str) and not turns:
        start, end = location["start"], location.get("end")
        times = start if end in (None, start) else f"{start}–{end}"
        speakers = location.get("speakers") or [location.get("speaker")]
        named = ", ".join(str(s) for s in speakers if s)
        parts.append(f"{times} ({named})" if named else times)
    return ", ".join(parts)


def _headings(location: Mapping[str, Any]) -> str:
    """Headings as a citation says them: "Intro > Setup"; across headings "Install > 3.1
    Setup → 3.2 Usage" (the path both share said once); "up to Usage" when the passage starts
    before any heading."""
    paths = [location.get(key) for key in ("heading_path", "heading_path_end")]
    first, last = ([str(p) for p in path] if isinstance(path, list) else [] for path in paths)
    if not last or last == first:
        return " > ".join(first)
    if not first:
        return "up to " + " > ".join(last)
    shared = 0
    while shared < min(len(first), len(last)) and first[shared] == last[shared]:
        shared += 1
    return f"{' > '.join(first)} → {' > '.join(last[shared:] or last)}"


def picture_label(location: Mapping[str, Any]) -> str | None:
    """The picture a block's text was read from by OCR, by place ("page 4, image 2",
    "slide 3, image 1", "image 5" in a Word file); None for text that was not."""
    if not location.get("ocr"):
        return None
    places = [f"{unit} {location[unit]}" for unit in ("page", "slide") if unit in location]
    return ", ".join([*places, f"image {location.get('image', 1)}"])


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
