"""The PDF reader: each page's text layer, and OCR of the pages that have none.

A page without a text layer is a scan (or a photo of a page): its embedded images are read
by Tesseract (`ingest/ocr.py`), each paragraph located by page and region. Pages are not
rendered (that needs poppler or similar, one more program to install): a page whose text is
drawn as shapes, with no image, has nothing to read and is reported, as `ocrmypdf
--force-ocr` handles it. Pages that have text are not OCRed: their figures rarely say more
than the text, and a logo repeated on every page would say the same thing 300 times.
"""

from __future__ import annotations

import io
import re
import time
from pathlib import Path
from typing import Any

from PIL import Image
from pypdf import PageObject, PdfReader
from pypdf.errors import DependencyError
from pypdf.generic import Destination

from zettelgraph.ingest.bibliography import add_bibliography
from zettelgraph.ingest.images import ImageReadError, check_frame
from zettelgraph.ingest.ocr import Ocr, OcrError
from zettelgraph.ingest.parsed import Block, DocumentError, ParsedDocument
from zettelgraph.ingest.pdf_images import PageImage, checked_images, decoded
from zettelgraph.ingest.readers_office import clean, guard, meta_text

_HYPHEN_BREAK = re.compile(r"(?<=[^\W\d_])([-\u00ad])\n(?=([^\W\d_]))")
# A 300-page book reads in under a second; a PDF whose pages take minutes is built to hang.
# Time spent in OCR is not counted: a scanned page takes seconds by nature.
READ_SECONDS = 120.0


def pdf_paragraphs(page_text: str) -> list[str]:
    """Paragraphs at blank lines; line-break hyphens joined, other line breaks spaces."""
    paragraphs: list[str] = []
    for chunk in re.split(r"\n[ \t]*\n", clean(page_text)):
        lines = [line.strip() for line in chunk.split("\n")]
        joined = _HYPHEN_BREAK.sub(_join_hyphen, "\n".join(line for line in lines if line))
        if text := joined.replace("\n", " "):
            paragraphs.append(text)
    return paragraphs


def _join_hyphen(match: re.Match[str]) -> str:
    # "infor-\nmation" is one word; "Jean-\nPaul" keeps its hyphen; a soft hyphen goes.
    return "" if match[1] == "\u00ad" or match[2].islower() else "-"


def read_pdf(
    data: bytes, path: Path, *, seconds: float = READ_SECONDS, ocr: Ocr | None = None
) -> ParsedDocument:
    """A PDF through its text layer, and OCR for pages without one: blocks per page, grouped
    by top-level bookmark. Reading stops with an error once `seconds` have passed (checked
    between pages, OCR time left out)."""
    ocr = ocr or Ocr()
    deadline = time.monotonic() + seconds
    redo = "The file may be damaged: download or export it again"
    reader = _open(data, path, redo)
    count = guard(path, "a PDF", redo, lambda: len(reader.pages))
    if count == 0:
        raise DocumentError(f"the PDF has no pages. {redo}", path=str(path))
    labels = guard(path, "a PDF", redo, lambda: _page_labels(reader))
    starts = _outline_starts(reader)
    blocks: list[Block] = []
    warnings: list[str] = []
    failures: list[Exception] = []
    scanned = 0  # pages without a text layer that had images to OCR
    for index in range(count):
        if time.monotonic() - ocr.seconds >= deadline:
            raise DocumentError(
                f"reading took more than {seconds:.0f} s and stopped at page {index + 1} of "
                f"{count}: a file this slow to read is damaged or built to be. Split it "
                "(e.g. qpdf --split-pages) or export its text, and ingest that",
                path=str(path),
            )
        try:
            page = reader.pages[index]
            paragraphs = pdf_paragraphs(page.extract_text() or "")
        except Exception as exc:  # one damaged page should not cost the other pages
            failures.append(exc)
            warnings.append(f"page {index + 1}: text could not be extracted ({exc})")
            continue
        location, group, group_title = _place(index, labels, starts)
        if paragraphs:
            blocks.extend(
                Block(text=text, location=dict(location), group=group, group_title=group_title)
                for text in paragraphs
            )
            continue
        try:
            read = _scanned_page(page, ocr, location, group, group_title)
        except ImageReadError as exc:  # an image over the budget, refused before decoding
            raise DocumentError(str(exc), path=str(path)) from exc
        if read is None:
            warnings.append(f"page {index + 1}: no text (a blank page, or text drawn as shapes?)")
            continue
        scanned += 1
        blocks.extend(read)
        if not read and ocr.missing is None:
            warnings.append(f"page {index + 1}: no text layer, and OCR found no text in it")
    warnings.extend(ocr.report())
    if not blocks:
        _refuse(path, count, scanned, failures, ocr, redo)
    try:
        info = reader.metadata
    except Exception:  # damaged metadata costs the title, not the text
        info = None
    metadata: dict[str, Any] = {"pages": count}
    if scanned and ocr.missing is None:
        metadata.update(ocr_pages=scanned, ocr_languages=ocr.config.languages)
    document = ParsedDocument(
        path=str(path),
        file_type="pdf",
        title=meta_text(info.get("/Title")) if info else None,
        author=meta_text(info.get("/Author")) if info else None,
        metadata=metadata,
        blocks=blocks,
        warnings=warnings,
    )
    # Publishers write the DOI (and some the journal) into the document information.
    keys = ("/doi", "/DOI", "/prism:doi", "/Journal", "/prism:publicationName")
    found = {key: meta_text(info.get(key)) for key in keys} if info else {}
    add_bibliography(
        document,
        {
            "/doi": found.get("/doi") or found.get("/DOI") or found.get("/prism:doi"),
            "/Journal": found.get("/Journal") or found.get("/prism:publicationName"),
        },
    )
    return document


def _open(data: bytes, path: Path, redo: str) -> PdfReader:
    reader = guard(path, "a PDF", redo, lambda: PdfReader(io.BytesIO(data)))
    if not reader.is_encrypted:
        return reader
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
    return reader


def _place(
    index: int, labels: list[str] | None, starts: list[tuple[int, str, int]]
) -> tuple[dict[str, Any], str, str]:
    """(location, group, group title) of a page: its number and label, its chapter."""
    location: dict[str, Any] = {"page": index + 1}
    if labels:
        location["page_label"] = labels[index]
    chapter = max((s for s in starts if s[0] <= index), default=None, key=lambda s: (s[0], s[2]))
    if chapter is None:
        return location, f"page-{index + 1}", f"Page {index + 1}"
    return location, f"outline-{chapter[2]}", chapter[1]


def _scanned_page(
    page: PageObject, ocr: Ocr, location: dict[str, Any], group: str, group_title: str
) -> list[Block] | None:
    """OCR of a page without a text layer, image by image; None when it has no image.
    ImageReadError (too large) when an image would take more memory to decode than images
    are given, before any is decoded (`pdf_images.py`)."""
    number = location["page"]
    try:
        images = checked_images(page, f"page {number}")
    except Exception as exc:  # a damaged resource or image dictionary
        if isinstance(exc, ImageReadError) and exc.too_large:
            raise
        ocr.warnings.append(f"page {number}: its images could not be listed ({exc})")
        return []
    total = len(images)
    if total == 0:
        return None
    blocks: list[Block] = []
    for position, image in enumerate(images):
        many = {"image": position + 1} if total > 1 else {}
        where = f"page {number}" + (f", image {position + 1}" if many else "")

        def load(image: PageImage = image, where: str = where) -> tuple[bytes, Image.Image]:
            found = decoded(page, image)  # pypdf decodes the image here, one at a time
            if found.image is None:
                raise OcrError("the image could not be decoded")
            # pypdf hands back its picture re-encoded, not decoded yet: checked again, in
            # case what it made is larger than the dictionary said.
            check_frame(found.image, where)
            return found.data, found.image

        blocks.extend(
            ocr.picture_blocks(
                load,
                where=where,
                location={**location, **many},
                group=group,
                group_title=group_title,
            )
        )
    return blocks


def _refuse(
    path: Path, count: int, scanned: int, failures: list[Exception], ocr: Ocr, redo: str
) -> None:
    """The error for a PDF that gave no text, saying why."""
    if failures:
        detail = str(failures[0]) or type(failures[0]).__name__
        raise DocumentError(
            f"cannot be read as a PDF ({detail}). {redo}", path=str(path)
        ) from failures[0]
    if ocr.missing is not None:
        raise DocumentError(
            f"no text layer in any of its {count} page(s): it is scanned, and reading it needs "
            f"OCR. {ocr.missing}",
            path=str(path),
        )
    if scanned:
        raise DocumentError(
            f"no text layer in any of its {count} page(s), and OCR found no text in their "
            "images (blurred, very small, or in a language not in ZETTELGRAPH_OCR_LANGUAGES?). "
            "Check the scan, or the languages, and ingest it again",
            path=str(path),
        )
    raise DocumentError(
        f"no text layer and no images in any of its {count} page(s) (text drawn as shapes?). "
        "Run OCR on it first (e.g. ocrmypdf --force-ocr in.pdf out.pdf) and ingest the result",
        path=str(path),
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
        title = meta_text(entry.title)
        if title and page is not None and page >= 0:
            starts.append((page, title, position))
    return starts
