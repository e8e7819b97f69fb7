"""Readers for Word (.docx) and PowerPoint (.pptx) files, and what they share with the PDF
reader (`readers_pdf.py`): the guard around library calls, text cleaning, size limits.

Each library's own errors (python-docx, python-pptx, pypdf, zipfile, lxml) are turned into a
DocumentError that names the file and says what to do: the libraries raise many different
exception types on damaged files, so each call that parses the file is guarded broadly.

Pictures (PNG, JPEG, TIFF, GIF, WebP) are read by OCR (`ingest/ocr.py`): in a Word file as
blocks after their paragraph, in a deck after the slide's text. Not read: vector pictures
(EMF, WMF, SVG), Word headers, footers, footnotes and comments, and charts and SmartArt.
"""

from __future__ import annotations

import io
import re
import unicodedata
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import docx
import pptx
from docx.oxml.ns import qn
from docx.table import Table
from docx.text.paragraph import Paragraph
from pptx.shapes.base import BaseShape
from pptx.shapes.group import GroupShape
from pptx.shapes.picture import Picture

from zettelgraph.ingest.ocr import Ocr
from zettelgraph.ingest.parsed import Block, DocumentError, ParsedDocument

_T = TypeVar("_T")
_HEADING_STYLE = re.compile(r"heading\s*([1-9])\b", re.IGNORECASE)
_MARK = r"cont(?:inued|['’]d|d)?\.?"
# Where a title's topic ends and its subtopic starts: "Topic: sub", "Topic – sub", "Topic - sub".
_TOPIC_END = re.compile(r":\s+|\s+[–—-]\s+")
# "Results (cont.)", "Results (continued)", "Results – cont'd": the slide goes on.
_CONTINUED = re.compile(rf"(?:\s*[(\[]\s*{_MARK}\s*[)\]]|[\s,:;–—-]+{_MARK})\s*$", re.IGNORECASE)


# What an Office file may unpack to: far above any real document's text and images, far
# below a "zip bomb", which unpacks to gigabytes and would hang the reader. XML parts are
# parsed into a tree several times their size, so they get the tighter limit.
MAX_UNPACKED_BYTES = 512 * 1024 * 1024
MAX_XML_PART_BYTES = 64 * 1024 * 1024
MAX_PARTS = 10_000
_MB = 1024 * 1024
# Pictures Pillow decodes; vector formats (EMF, WMF, SVG) are drawings it cannot rasterise.
_RASTER = ("image/png", "image/jpeg", "image/tiff", "image/gif", "image/webp", "image/bmp")
_VML_IMAGE = "{urn:schemas-microsoft-com:vml}imagedata"


def check_unpacked_size(data: bytes, path: Path, what: str) -> None:
    """Refuse an Office file whose parts would unpack beyond the limits above, from the sizes
    its ZIP directory declares (zipfile never inflates a part past its declared size)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            parts = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return  # the reader says it is damaged, with its own advice
    advice = "Export the text as PDF or .txt and ingest that"
    if len(parts) > MAX_PARTS:
        raise DocumentError(
            f"is {what} with {len(parts):,} parts inside (at most {MAX_PARTS:,}): it is not an "
            f"ordinary document. {advice}",
            path=str(path),
        )
    total = 0
    for part in parts:
        total += part.file_size
        xml = part.filename.lower().endswith((".xml", ".rels"))
        if xml and part.file_size > MAX_XML_PART_BYTES:
            size, limit, where = part.file_size, MAX_XML_PART_BYTES, f"its part {part.filename} "
        elif total > MAX_UNPACKED_BYTES:
            size, limit, where = total, MAX_UNPACKED_BYTES, ""
        else:
            continue
        raise DocumentError(
            f"is {what} whose {where}unpacks to {size // _MB:,} MB, more than the "
            f"{limit // _MB:,} MB zettelgraph reads (a file this size is damaged or built to "
            f"exhaust memory). {advice}",
            path=str(path),
        )


def guard(path: Path, what: str, action: str, call: Callable[[], _T]) -> _T:
    """Run a library call; any failure becomes a DocumentError saying what to do."""
    try:
        return call()
    except DocumentError:
        raise
    except Exception as exc:  # damaged files raise anything from KeyError to lxml errors
        detail = str(exc).strip() or type(exc).__name__
        raise DocumentError(
            f"cannot be read as {what} ({detail}). {action}", path=str(path)
        ) from exc


def clean(text: str) -> str:
    """NFC, '\\n' newlines, no trailing spaces, no blank lines at either end."""
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    return "\n".join(line.rstrip() for line in text.split("\n")).strip("\n")


def meta_text(value: object) -> str | None:
    text = value.strip() if isinstance(value, str) else ""
    return unicodedata.normalize("NFC", text) if text else None


# --- DOCX -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Picture:
    """A picture met while walking a Word file, read by OCR once the (guarded) walk is done,
    so an OCR problem is never reported as a damaged document."""

    blob: bytes
    number: int
    location: dict[str, Any]
    group: str
    group_title: str


def read_docx(data: bytes, path: Path, ocr: Ocr | None = None) -> ParsedDocument:
    """A Word document: body paragraphs and table rows under their heading path, and the
    text of its pictures after the paragraph (or table) that holds them."""
    ocr = ocr or Ocr()
    redo = "Open it in Word (or LibreOffice) and save it again as .docx"
    check_unpacked_size(data, path, "a Word document")
    document = guard(path, "a Word document", redo, lambda: docx.Document(io.BytesIO(data)))
    # Damaged XML can fail anywhere while walking the body, so the whole walk is guarded.
    title, author, walked = guard(
        path, "a Word document", redo, lambda: _docx_body(document, path.name)
    )
    blocks: list[Block] = []
    for item in walked:
        if isinstance(item, Block):
            blocks.append(item)
            continue
        blocks.extend(
            ocr.picture_blocks(
                item.blob,
                where=f"image {item.number}",
                location=item.location,
                group=item.group,
                group_title=item.group_title,
            )
        )
    _refuse_without_ocr(blocks, ocr, path)
    return ParsedDocument(
        path=str(path),
        file_type="docx",
        title=title,
        author=author,
        blocks=blocks,
        warnings=ocr.report(),
    )


def _refuse_without_ocr(blocks: list[Block], ocr: Ocr, path: Path) -> None:
    """A document whose only text is in pictures needs Tesseract: say so, and how."""
    if not blocks and ocr.missing is not None:
        raise DocumentError(
            f"has no text outside its {ocr.skipped} picture(s), and reading those needs OCR. "
            f"{ocr.missing}",
            path=str(path),
        )


def _docx_body(
    document: Any, file_name: str
) -> tuple[str | None, str | None, list[Block | _Picture]]:
    core = document.core_properties
    title, author = meta_text(core.title), meta_text(core.author)
    headings: list[tuple[int, str, int]] = []  # (level, text, paragraph number)
    blocks: list[Block | _Picture] = []
    paragraph_number = table_number = picture_number = 0
    for item in document.iter_inner_content():
        # (text, location) of each block this item gives
        found: list[tuple[str, dict[str, Any]]] = []
        place: dict[str, Any] = {}
        if isinstance(item, Paragraph):
            paragraph_number += 1
            place = {"paragraph": paragraph_number}
            text = clean(item.text)
            level = _heading_level(item)
            if level == 0:
                title = title or text or None  # the 'Title' paragraph is the title, not text
            elif level is not None and text:
                while headings and headings[-1][0] >= level:
                    headings.pop()
                headings.append((level, text, paragraph_number))
            elif level is None:
                found = [(text, {"paragraph": paragraph_number})]
        elif isinstance(item, Table):
            table_number += 1
            place = {"table": table_number}
            rows = enumerate(_table_rows(item), 1)
            found = [(text, {"table": table_number, "row": row}) for row, text in rows]
        parents = [h for h in headings if h[0] <= 2]
        group = f"h{parents[-1][2]}" if parents else "preamble"
        group_title = " > ".join(h[1] for h in parents) or title or file_name
        blocks.extend(
            Block(
                text=text,
                location={"heading_path": [h[1] for h in headings], **where},
                group=group,
                group_title=group_title,
            )
            for text, where in found
            if text
        )
        for blob in _docx_pictures(item, document.part):
            picture_number += 1
            location = {"heading_path": [h[1] for h in headings], **place}
            location["image"] = picture_number
            blocks.append(_Picture(blob, picture_number, location, group, group_title))
    return title, author, blocks


def _docx_pictures(item: Paragraph | Table, part: Any) -> Iterator[bytes]:
    """The raster pictures embedded in a paragraph or table, in document order (DrawingML
    `a:blip`, and VML `v:imagedata` from older files); linked pictures are not in the file."""
    for element in item._element.iter(qn("a:blip"), _VML_IMAGE):
        target = element.get(qn("r:embed")) or element.get(qn("r:id"))
        related = part.related_parts.get(target) if target else None
        if related is not None and related.content_type in _RASTER:
            yield related.blob


def _table_rows(table: Table) -> Iterator[str]:
    """Each row's cell texts joined by ' | ' (a merged cell counted once); '' if empty."""
    for row in table.rows:
        cells: list[Any] = []
        for cell in row.cells:
            if not cells or cell._tc is not cells[-1]._tc:  # merged cells repeat
                cells.append(cell)
        texts = [clean(cell.text) for cell in cells]
        yield " | ".join(texts) if any(texts) else ""


def _heading_level(paragraph: Paragraph) -> int | None:
    """0 for the Title style, 1-9 for headings (by style name or outline level), else None."""
    style = paragraph.style
    name = (style.name or "") if style is not None else ""
    if name == "Title":
        return 0
    if match := _HEADING_STYLE.match(name):
        return int(match[1])
    # Localised or custom heading styles carry an outline level, on the paragraph or style.
    level = _outline_level(paragraph._p)
    while level is None and style is not None:
        level = _outline_level(style.element)
        style = style.base_style
    if level is None and name.lower().startswith("heading"):
        return 1
    return level


def _outline_level(element: Any) -> int | None:
    properties = element.find(qn("w:pPr"))
    outline = properties.find(qn("w:outlineLvl")) if properties is not None else None
    value = outline.get(qn("w:val")) if outline is not None else None
    # Levels 0-8 are headings 1-9; 9 means body text.
    return int(value) + 1 if value is not None and value.isdigit() and int(value) < 9 else None


# --- PPTX -------------------------------------------------------------------------------


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
    _refuse_without_ocr(blocks, ocr, path)
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
    return image.blob if image.content_type in _RASTER else None


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
