"""The image reader: PNG, JPEG, TIFF, WebP and GIF files through OCR (`ingest/ocr.py`).

Each paragraph Tesseract finds is a block located by its region in the image; each page of a
multi-page TIFF (how scanners save a document) is a page. An image with no readable text
gives no blocks, and `read_documents` says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PIL import ImageSequence

from zettelgraph.ingest.ocr import Ocr, OcrError, OcrUnavailableError, open_image
from zettelgraph.ingest.parsed import Block, DocumentError, ParsedDocument

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".gif")
MAX_FRAMES = 1000  # pages of a multi-page TIFF
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
        image = open_image(data)
        # A TIFF's frames are pages; a GIF's or WebP's are an animation of one picture.
        count = int(getattr(image, "n_frames", 1))
        many = image.format == "TIFF" and count > 1
        if many and count > MAX_FRAMES:
            raise DocumentError(
                f"is a TIFF of {count:,} pages (at most {MAX_FRAMES:,} are read). "
                "Split it and ingest the parts",
                path=str(path),
            )
        frames = [frame.copy() for frame in ImageSequence.Iterator(image)] if many else [image]
    except DocumentError:
        raise
    except Exception as exc:  # Pillow raises many types on damaged files
        raise DocumentError(
            f"cannot be read as an image ({exc}). Open it in an image viewer and save it "
            "again as PNG or JPEG",
            path=str(path),
        ) from exc
    blocks: list[Block] = []
    for number, frame in enumerate(frames, 1):
        try:
            regions = ocr.regions(frame)
        except (OcrError, OcrUnavailableError) as exc:
            where = f"page {number} of the image" if many else "the image"
            raise DocumentError(f"{where} could not be read: {exc}", path=str(path)) from exc
        group, title = (f"page-{number}", f"Page {number}") if many else ("image", path.name)
        page = {"page": number} if many else {}
        blocks.extend(
            Block(text=r.text, location={**page, **r.location()}, group=group, group_title=title)
            for r in regions
        )
    metadata: dict[str, Any] = {"ocr_languages": ocr.config.languages}
    metadata.update(width=image.width, height=image.height)
    if many:
        metadata["pages"] = len(frames)
    return ParsedDocument(path=str(path), file_type="image", metadata=metadata, blocks=blocks)


def sniff_image(head: bytes) -> tuple[str, str] | None:
    """(what it looks like, its usual suffix) when the first bytes are an image we read."""
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "a WebP image", ".webp"
    for magic, looks, suffix in _MAGIC:
        if head.startswith(magic):
            return looks, suffix
    return None
