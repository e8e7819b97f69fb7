"""The reader for Word (.docx) files, and what it shares with the slide deck reader
(`readers_slides.py`) and the PDF reader (`readers_pdf.py`): the guard around library calls,
text cleaning, size limits.

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
from docx.oxml.ns import qn
from docx.table import Table
from docx.text.paragraph import Paragraph

from zettelgraph.ingest.ocr import Ocr
from zettelgraph.ingest.parsed import Block, DocumentError, ParsedDocument

_T = TypeVar("_T")
_HEADING_STYLE = re.compile(r"heading\s*([1-9])\b", re.IGNORECASE)


# What an Office file may unpack to: far above any real document's text and images, far
# below a "zip bomb", which unpacks to gigabytes and would hang the reader. XML parts are
# parsed into a tree several times their size, so they get the tighter limit.
MAX_UNPACKED_BYTES = 512 * 1024 * 1024
MAX_XML_PART_BYTES = 64 * 1024 * 1024
MAX_PARTS = 10_000
_MB = 1024 * 1024
# Pictures Pillow decodes; vector formats (EMF, WMF, SVG) are drawings it cannot rasterise.
RASTER = ("image/png", "image/jpeg", "image/tiff", "image/gif", "image/webp", "image/bmp")
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
    refuse_without_ocr(blocks, ocr, path)
    return ParsedDocument(
        path=str(path),
        file_type="docx",
        title=title,
        author=author,
        blocks=blocks,
        warnings=ocr.report(),
    )


def refuse_without_ocr(blocks: list[Block], ocr: Ocr, path: Path) -> None:
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
        if related is not None and related.content_type in RASTER:
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
