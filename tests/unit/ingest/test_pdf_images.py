"""Pictures inside PDF pages: a large but honest scan is decoded whole (pypdf's own 75 MB caps
are raised to what the image was checked to take), while the budget still refuses bombs
(those are in `tests/reliability/bombs.py`)."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw
from pypdf import PdfReader

from ocr_files import scanned_pdf
from zettelgraph.ingest.images import IMAGE_MEMORY
from zettelgraph.ingest.pdf_images import checked_images, decoded

# A colour page scanned at about 500 dpi: 5,200 x 5,200 RGB pixels, 81 MB of samples, over
# pypdf 7's 75 MB cap and well inside IMAGE_MEMORY.
SIDE = 5_200


def test_a_colour_scan_over_pypdfs_own_cap_is_decoded_whole(tmp_path: Path) -> None:
    scan = Image.new("RGB", (SIDE, SIDE), "white")
    ImageDraw.Draw(scan).rectangle((100, 100, 900, 300), fill=(200, 30, 30))
    scan.save(tmp_path / "scan.png", compress_level=1)  # zlib at its fastest: seconds, not 20
    del scan
    path = scanned_pdf(tmp_path / "escaneo.pdf", tmp_path / "scan.png")
    page = PdfReader(path).pages[0]

    (image,) = checked_images(page, "page 1")
    assert SIDE * SIDE * 3 < image.cost <= IMAGE_MEMORY

    found = decoded(page, image)
    assert found.image is not None
    assert found.image.size == (SIDE, SIDE)
    assert found.image.getpixel((500, 200)) == (200, 30, 30)
