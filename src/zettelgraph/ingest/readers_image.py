"""The image reader: PNG, JPEG, TIFF, WebP and GIF files through OCR (`ingest/ocr.py`).

Each paragraph Tesseract finds is a block located by its region in the image; each page of a
multi-page TIFF (how scanners save a document) is a page. An image with no readable text
gives no blocks, and `read_documents` says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from zettelgraph.ingest.images import ImageReadError, decoded_frames, open_frames
from zettelgraph.ingest.ocr import Ocr, OcrError, OcrUnavailableError
from zettelgraph.ingest.parsed import Block, DocumentError, ParsedDocument

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".gif")
_MAGIC = (
    (b"\x89PNG", "a PNG image", ".png"),
    (b"\xff\xd8\xff", "a JPEG image", ".jpg"),
    (b"II*\x00", "a TIFF image", ".tif"),
    (b"MM\x00*", "a TIFF image", ".tif"),
    (b"GIF8", "a GIF image", ".gif"),
)


def read_image(data: bytes, path: Path, ocr: Ocr | None = None) -> ParsedDocument:
    """An image file through OCR: one block per paragraph, with its region."""
    ocr = ocr or Ocr()
    try:
        ocr.program()  # before decoding: without Tesseract nothing else matters
    except OcrUnavailableError as exc:
        raise DocumentError(
            f"is an image: reading its text needs OCR. {exc}", path=str(path)
        ) from exc
    try:
        # A TIFF's frames are pages; a GIF's or WebP's are an animation of one picture. Every
        # page is checked against the memory budget before any is decoded.
        image, count = open_frames(data, all_frames=_is_tiff(data))
        blocks: list[Block] = []
        many = count > 1
        for number, frame in enumerate(decoded_frames(image, count), 1):
            try:
                regions = ocr.regions(frame)
            except (OcrError, OcrUnavailableError) as exc:
                where = f"page {number} of {count}" if many else "the image"
                raise DocumentError(f"{where} could not be read: {exc}", path=str(path)) from exc
            group, title = (f"page-{number}", f"Page {number}") if many else ("image", path.name)
            page = {"page": number} if many else {}
            blocks.extend(
                Block(
                    text=r.text, location={**page, **r.location()}, group=group, group_title=title
                )
                for r in regions
            )
    except ImageReadError as exc:
        advice = "" if exc.too_large else ". If it opens in an image viewer, save it again as PNG"
        raise DocumentError(f"cannot be read as an image: {exc}{advice}", path=str(path)) from exc
    image.seek(0)
    metadata: dict[str, Any] = {"ocr_languages": ocr.config.languages}
    metadata.update(width=image.width, height=image.height)
    if many:
        metadata["pages"] = count
    return ParsedDocument(path=str(path), file_type="image", metadata=metadata, blocks=blocks)


def sniff_image(head: bytes) -> tuple[str, str] | None:
    """(what it looks like, its usual suffix) when the first bytes are an image we read."""
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "a WebP image", ".webp"
    for magic, looks, suffix in _MAGIC:
        if head.startswith(magic):
            return looks, suffix
    return None


def _is_tiff(data: bytes) -> bool:
    return data[:4] in (b"II*\x00", b"MM\x00*")
