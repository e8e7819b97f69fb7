"""Readers for PDF, Word (.docx) and PowerPoint (.pptx) files.

Each library's own errors (pypdf, python-docx, python-pptx, zipfile, lxml) are turned into a
DocumentError that names the file and says what to do: the libraries raise many different
exception types on damaged files, so each call that parses the file is guarded broadly.

Not read: images (no OCR), Word headers, footers, footnotes and comments, and charts and
SmartArt in slides.
"""

from __future__ import annotations

import io
import re
import time
import unicodedata
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import docx
import pptx
from docx.oxml.ns import qn
from docx.table import Table
from docx.text.paragraph import Paragraph
from pptx.shapes.base import BaseShape
from pptx.shapes.group import GroupShape
from pypdf import PdfReader
from pypdf.errors import DependencyError
from pypdf.generic import Destination

from zettelgraph.ingest.parsed import Block, DocumentError, ParsedDocument

_T = TypeVar("_T")
_HYPHEN_BREAK = re.compile(r"(?<=[^\W\d_])([-\u00ad])\n(?=([^\W\d_]))")
_HEADING_STYLE = re.compile(r"heading\s*([1-9])\b", re.IGNORECASE)
_MARK = r"cont(?:inued|['’]d|d)?\.?"
# "Results (cont.)", "Results (continued)", "Results – cont'd": the slide goes on.
_CONTINUED = re.compile(rf"(?:\s*[(\[]\s*{_MARK}\s*[)\]]|[\s,:;–—-]+{_MARK})\s*$", re.IGNORECASE)


# What an Office file may unpack to: far above any real document's text and images, far
# below a "zip bomb", which unpacks to gigabytes and would hang the reader. XML parts are
# parsed into a tree several times their size, so they get the tighter limit.
MAX_UNPACKED_BYTES = 512 * 1024 * 1024
MAX_XML_PART_BYTES = 64 * 1024 * 1024
MAX_PARTS = 10_000
# A 300-page book reads in under a second; a PDF whose pages take minutes is built to hang.
READ_SECONDS = 120.0
_MB = 1024 * 1024


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


def _guard(path: Path, what: str, action: str, call: Callable[[], _T]) -> _T:
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


def _clean(text: str) -> str:
    """NFC, '\\n' newlines, no trailing spaces, no blank lines at either end."""
    text = unicodedata.normalize("NFC", text.replace("\r\n", "\n").replace("\r", "\n"))
    return "\n".join(line.rstrip() for line in text.split("\n")).strip("\n")


def _meta(value: object) -> str | None:
    text = value.strip() if isinstance(value, str) else ""
    return unicodedata.normalize("NFC", text) if text else None


# --- PDF --------------------------------------------------------------------------------


def pdf_paragraphs(page_text: str) -> list[str]:
    """Paragraphs at blank lines; line-break hyphens joined, other line breaks spaces."""
    paragraphs: list[str] = []
    for chunk in re.split(r"\n[ \t]*\n", _clean(page_text)):
        lines = [line.strip() for line in chunk.split("\n")]
        joined = _HYPHEN_BREAK.sub(_join_hyphen, "\n".join(line for line in lines if line))
        if text := joined.replace("\n", " "):
            paragraphs.append(text)
    return paragraphs


def _join_hyphen(match: re.Match[str]) -> str:
    # "infor-\nmation" is one word; "Jean-\nPaul" keeps its hyphen; a soft hyphen goes.
    return "" if match[1] == "\u00ad" or match[2].islower() else "-"


def read_pdf(data: bytes, path: Path, *, seconds: float = READ_SECONDS) -> ParsedDocument:
    """A PDF through its text layer: blocks per page, grouped by top-level bookmark. Reading
    stops with an error once `seconds` have passed (checked between pages)."""
    deadline = time.monotonic() + seconds
    redo = "The file may be damaged: download or export it again"
    reader = _guard(path, "a PDF", redo, lambda: PdfReader(io.BytesIO(data)))
    if reader.is_encrypted:
        try:
            opened = bool(reader.decrypt(""))  # an empty user password opens many PDFs
        except DependencyError as exc:
            raise DocumentError(
                f"is encrypted and cannot be opened ({exc}). Remove the password (e.g. qpdf "
                "--decrypt in.pdf out.pdf) and ingest it again",
                path=str(path),
            ) from exc
        except Exception:  # an unsupported or damaged encryption dictionary
            opened = False
        if not opened:
            raise DocumentError(
                "is encrypted with a password. Remove the password (e.g. qpdf --decrypt "
                "--password=... in.pdf out.pdf) and ingest it again",
                path=str(path),
            )
    count = _guard(path, "a PDF", redo, lambda: len(reader.pages))
    if count == 0:
        raise DocumentError(f"the PDF has no pages. {redo}", path=str(path))
    labels = _guard(path, "a PDF", redo, lambda: _page_labels(reader))
    starts = _outline_starts(reader)
    blocks: list[Block] = []
    warnings: list[str] = []
    failures: list[Exception] = []
    for index in range(count):
        if time.monotonic() >= deadline:
            raise DocumentError(
                f"reading took more than {seconds:.0f} s and stopped at page {index + 1} of "
                f"{count}: a file this slow to read is damaged or built to be. Split it "
                "(e.g. qpdf --split-pages) or export its text, and ingest that",
                path=str(path),
            )
        try:
            paragraphs = pdf_paragraphs(reader.pages[index].extract_text() or "")
        except Exception as exc:  # one damaged page should not cost the other pages
            failures.append(exc)
            warnings.append(f"page {index + 1}: text could not be extracted ({exc})")
            continue
        if not paragraphs:
            warnings.append(f"page {index + 1}: no text (an image-only page?)")
        location: dict[str, Any] = {"page": index + 1}
        if labels:
            location["page_label"] = labels[index]
        chapter = max(
            (s for s in starts if s[0] <= index), default=None, key=lambda s: (s[0], s[2])
        )
        if chapter is None:
            group, group_title = f"page-{index + 1}", f"Page {index + 1}"
        else:
            group, group_title = f"outline-{chapter[2]}", chapter[1]
        blocks.extend(
            Block(text=text, location=dict(location), group=group, group_title=group_title)
            for text in paragraphs
        )
    if not blocks and failures:
        detail = str(failures[0]) or type(failures[0]).__name__
        raise DocumentError(
            f"cannot be read as a PDF ({detail}). {redo}", path=str(path)
        ) from failures[0]
    if not blocks:
        raise DocumentError(
            f"no text layer in any of its {count} page(s) (a scanned or image-only PDF?). "
            "Run OCR on it first (e.g. ocrmypdf in.pdf out.pdf) and ingest the result",
            path=str(path),
        )
    try:
        info = reader.metadata
    except Exception:  # damaged metadata costs the title, not the text
        info = None
    return ParsedDocument(
        path=str(path),
        file_type="pdf",
        title=_meta(info.get("/Title")) if info else None,
        author=_meta(info.get("/Author")) if info else None,
        metadata={"pages": count},
        blocks=blocks,
        warnings=warnings,
    )


def _page_labels(reader: PdfReader) -> list[str] | None:
    """Printed page labels ('iv', '12'), only when the PDF defines them."""
    labelled = "/PageLabels" in reader.root_object
    return [str(label) for label in reader.page_labels] if labelled else None


def _outline_starts(reader: PdfReader) -> list[tuple[int, str, int]]:
    """(0-based first page, title, position) of each top-level bookmark with a page."""
    try:
        outline = reader.outline
    except Exception:  # a broken outline costs the grouping, not the text
        return []
    starts: list[tuple[int, str, int]] = []
    for position, entry in enumerate(outline):
        if not isinstance(entry, Destination):
            continue  # a nested list holds the children of the entry before it
        try:
            page = reader.get_destination_page_number(entry)
        except Exception:
            continue
        title = _meta(entry.title)
        if title and page is not None and page >= 0:
            starts.append((page, title, position))
    return starts


# --- DOCX -------------------------------------------------------------------------------


def read_docx(data: bytes, path: Path) -> ParsedDocument:
    """A Word document: body paragraphs and table rows under their heading path."""
    redo = "Open it in Word (or LibreOffice) and save it again as .docx"
    check_unpacked_size(data, path, "a Word document")
    document = _guard(path, "a Word document", redo, lambda: docx.Document(io.BytesIO(data)))
    # Damaged XML can fail anywhere while walking the body, so the whole walk is guarded.
    title, author, blocks = _guard(
        path, "a Word document", redo, lambda: _docx_body(document, path.name)
    )
    return ParsedDocument(
        path=str(path), file_type="docx", title=title, author=author, blocks=blocks
    )


def _docx_body(document: Any, file_name: str) -> tuple[str | None, str | None, list[Block]]:
    core = document.core_properties
    title, author = _meta(core.title), _meta(core.author)
    headings: list[tuple[int, str, int]] = []  # (level, text, paragraph number)
    blocks: list[Block] = []
    paragraph_number = table_number = 0
    for item in document.iter_inner_content():
        # (text, location) of each block this item gives
        found: list[tuple[str, dict[str, Any]]] = []
        if isinstance(item, Paragraph):
            paragraph_number += 1
            text = _clean(item.text)
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
    return title, author, blocks


def _table_rows(table: Table) -> Iterator[str]:
    """Each row's cell texts joined by ' | ' (a merged cell counted once); '' if empty."""
    for row in table.rows:
        cells: list[Any] = []
        for cell in row.cells:
            if not cells or cell._tc is not cells[-1]._tc:  # merged cells repeat
                cells.append(cell)
        texts = [_clean(cell.text) for cell in cells]
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


def read_pptx(data: bytes, path: Path) -> ParsedDocument:
    """A slide deck: per slide a body block and a speaker-notes block."""
    redo = "Open it in PowerPoint (or LibreOffice) and save it again as .pptx"
    check_unpacked_size(data, path, "a PowerPoint file")
    deck = _guard(path, "a PowerPoint file", redo, lambda: pptx.Presentation(io.BytesIO(data)))
    slides = _guard(path, "a PowerPoint file", redo, lambda: [_slide(s) for s in deck.slides])
    blocks: list[Block] = []
    warnings: list[str] = []
    number = 0
    while number < len(slides):
        title = slides[number][0]
        base = _CONTINUED.sub("", title).strip() if title else ""
        last = number
        # "Results (cont.)" after "Results": one group, one parent chunk.
        while base and last + 1 < len(slides):
            after = slides[last + 1][0]
            if not after or _fold(_CONTINUED.sub("", after)) != _fold(base):
                break
            last += 1
        label = f"Slide {number + 1}" if last == number else f"Slides {number + 1}–{last + 1}"
        group_title = f"{label}: {base}" if base else label
        for index in range(number, last + 1):
            slide_title, body, notes = slides[index]
            location: dict[str, Any] = {"slide": index + 1}
            if slide_title:
                location["title"] = slide_title
            group = f"slide-{number + 1}"
            if body or slide_title:
                text = body or slide_title or ""  # a title-only slide keeps its title
                blocks.append(
                    Block(text=text, location=location, group=group, group_title=group_title)
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
            if not (body or slide_title or notes):
                warnings.append(f"slide {index + 1}: no text (pictures or charts only?)")
        number = last + 1
    core = deck.core_properties
    return ParsedDocument(
        path=str(path),
        file_type="pptx",
        title=_meta(core.title) or (slides[0][0] if slides else None),
        author=_meta(core.author),
        metadata={"slides": len(slides)},
        blocks=blocks,
        warnings=warnings,
    )


def _fold(title: str) -> str:
    return " ".join(title.split()).casefold()


def _slide(slide: Any) -> tuple[str | None, str, str]:
    """(title, body text, notes text) of a slide."""
    title_shape = slide.shapes.title
    title = None
    if title_shape is not None and title_shape.has_text_frame:
        # A line break inside a title ('\v' in python-pptx) is just a space in a title.
        title = " ".join(_clean(title_shape.text_frame.text.replace("\v", " ")).split()) or None
    parts = [
        text
        for shape in _shapes(slide.shapes)
        if title_shape is None or shape.shape_id != title_shape.shape_id
        if (text := _shape_text(shape))
    ]
    notes = ""
    if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
        notes = _clean(slide.notes_slide.notes_text_frame.text.replace("\v", "\n"))
    return title, "\n".join(parts), notes


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
        paragraphs = (_clean(p.text.replace("\v", "\n")) for p in shape.text_frame.paragraphs)
        return "\n".join(p for p in paragraphs if p)
    if getattr(shape, "has_table", False) and shape.has_table:
        rows = (" | ".join(_clean(cell.text) for cell in row.cells) for row in shape.table.rows)
        return "\n".join(row for row in rows if row.replace("|", "").strip())
    return ""
