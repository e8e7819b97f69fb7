"""The reader for PowerPoint (.pptx) decks: per slide its text, the text of its pictures (by
OCR) and its speaker notes; consecutive slides on one topic ("Results", "Results (cont.)",
"Photosynthesis: light reactions", "Photosynthesis: the Calvin cycle") are one group, so one
parent chunk. The guard, limits and cleaning are the Word reader's (`readers_office.py`)."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pptx
from pptx.shapes.base import BaseShape
from pptx.shapes.group import GroupShape
from pptx.shapes.picture import Picture

from zettelgraph.ingest.ocr import Ocr
from zettelgraph.ingest.parsed import Block, ParsedDocument
from zettelgraph.ingest.readers_office import (
    RASTER,
    check_unpacked_size,
    clean,
    guard,
    meta_text,
    refuse_without_ocr,
)

_MARK = r"cont(?:inued|['’]d|d)?\.?"
# Where a title's topic ends and its subtopic starts: "Topic: sub", "Topic – sub", "Topic - sub".
_TOPIC_END = re.compile(r":\s+|\s+[–—-]\s+")
# "Results (cont.)", "Results (continued)", "Results – cont'd": the slide goes on.
_CONTINUED = re.compile(rf"(?:\s*[(\[]\s*{_MARK}\s*[)\]]|[\s,:;–—-]+{_MARK})\s*$", re.IGNORECASE)


def read_pptx(data: bytes, path: Path, ocr: Ocr | None = None) -> ParsedDocument:
    """A slide deck: per slide a body block, the text of its pictures and a speaker-notes
    block."""
    ocr = ocr or Ocr()
    redo = "Open it in PowerPoint (or LibreOffice) and save it again as .pptx"
    check_unpacked_size(data, path, "a PowerPoint file")
    deck = guard(path, "a PowerPoint file", redo, lambda: pptx.Presentation(io.BytesIO(data)))
    slides = guard(path, "a PowerPoint file", redo, lambda: [_slide(s) for s in deck.slides])
    blocks: list[Block] = []
    warnings: list[str] = []
    number = 0
    while number < len(slides):
        title = slides[number][0]
        base = _CONTINUED.sub("", title).strip() if title else ""
        last = number
        # One topic, one group and one parent chunk: "Results (cont.)" after "Results", and
        # "Photosynthesis: the Calvin cycle" after "Photosynthesis: light reactions".
        while base and last + 1 < len(slides):
            after = slides[last + 1][0]
            if not after or _topic(after) != _topic(base):
                break
            last += 1
        if any(
            _fold(_CONTINUED.sub("", slides[i][0] or "")) != _fold(base)
            for i in range(number, last + 1)
        ):
            base = _TOPIC_END.split(base, maxsplit=1)[0].strip()
        label = f"Slide {number + 1}" if last == number else f"Slides {number + 1}–{last + 1}"
        group_title = f"{label}: {base}" if base else label
        for index in range(number, last + 1):
            slide_title, body, notes, pictures = slides[index]
            location: dict[str, Any] = {"slide": index + 1}
            if slide_title:
                location["title"] = slide_title
            group = f"slide-{number + 1}"
            if body or slide_title:
                text = body or slide_title or ""  # a title-only slide keeps its title
                blocks.append(
                    Block(text=text, location=location, group=group, group_title=group_title)
                )
            seen = len(blocks)
            for picture, blob in enumerate(pictures, 1):
                blocks.extend(
                    ocr.picture_blocks(
                        blob,
                        where=f"slide {index + 1}, image {picture}",
                        location={**location, "image": picture},
                        group=group,
                        group_title=group_title,
                    )
                )
            if notes:
                blocks.append(
                    Block(
                        text=notes,
                        location=dict(location),
                        group=group,
                        group_title=group_title,
                        kind="notes",
                    )
                )
            if not (body or slide_title or notes or len(blocks) > seen):
                warnings.append(f"slide {index + 1}: no text (charts, or pictures without text?)")
        number = last + 1
    warnings.extend(ocr.report())
    refuse_without_ocr(blocks, ocr, path)
    core = deck.core_properties
    return ParsedDocument(
        path=str(path),
        file_type="pptx",
        title=meta_text(core.title) or (slides[0][0] if slides else None),
        author=meta_text(core.author),
        metadata={"slides": len(slides)},
        blocks=blocks,
        warnings=warnings,
    )


def _fold(title: str) -> str:
    return " ".join(title.split()).casefold()


def _topic(title: str) -> str:
    """What a slide title is about: the title without "(cont.)", up to the first ": " or
    dash between words ("Photosynthesis" in "Photosynthesis – light reactions"), folded."""
    return _fold(_TOPIC_END.split(_CONTINUED.sub("", title), maxsplit=1)[0])


def _slide(slide: Any) -> tuple[str | None, str, str, list[bytes]]:
    """(title, body text, notes text, raster pictures) of a slide."""
    title_shape = slide.shapes.title
    title = None
    if title_shape is not None and title_shape.has_text_frame:
        # A line break inside a title ('\v' in python-pptx) is just a space in a title.
        title = " ".join(clean(title_shape.text_frame.text.replace("\v", " ")).split()) or None
    parts = [
        text
        for shape in _shapes(slide.shapes)
        if title_shape is None or shape.shape_id != title_shape.shape_id
        if (text := _shape_text(shape))
    ]
    notes = ""
    if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
        notes = clean(slide.notes_slide.notes_text_frame.text.replace("\v", "\n"))
    pictures = [blob for shape in _shapes(slide.shapes) if (blob := _picture(shape))]
    return title, "\n".join(parts), notes, pictures


def _picture(shape: BaseShape) -> bytes | None:
    """A picture shape's embedded raster image; None for other shapes, linked pictures and
    vector ones."""
    if not isinstance(shape, Picture):
        return None
    try:
        image = shape.image  # a linked picture has none in the file
    except (ValueError, KeyError, AttributeError):
        return None
    return image.blob if image.content_type in RASTER else None


def _shapes(shapes: Any) -> Iterator[BaseShape]:
    """Shapes in order, the members of a group in place of the group."""
    for shape in shapes:
        if isinstance(shape, GroupShape):
            yield from _shapes(shape.shapes)
        else:
            yield shape


def _shape_text(shape: Any) -> str:
    """A text frame's non-blank paragraphs, or a table's rows as 'a | b' lines."""
    if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
        paragraphs = (clean(p.text.replace("\v", "\n")) for p in shape.text_frame.paragraphs)
        return "\n".join(p for p in paragraphs if p)
    if getattr(shape, "has_table", False) and shape.has_table:
        rows = (" | ".join(clean(cell.text) for cell in row.cells) for row in shape.table.rows)
        return "\n".join(row for row in rows if row.replace("|", "").strip())
    return ""
