"""Images with known text for the OCR tests, drawn with Pillow in a TrueType font and put
into the files a person would have: PNG, JPEG, multi-page TIFF, a scanned PDF (fpdf2), a
slide deck with a picture (python-pptx) and a Word file with an inline picture
(python-docx)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import docx
import pptx
from docx.shared import Inches as DocxInches
from fpdf import FPDF
from PIL import Image, ImageDraw, ImageFont
from pptx.util import Inches

from servers import unavailable

# Debian's fonts-dejavu-core (installed by .ci/run with chromium).
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
SPANISH = "La fotosíntesis convierte la luz del sol en azúcares."
ENGLISH = "Owls hunt small animals at night."
SECOND = "Las raíces absorben agua del suelo."


def tesseract() -> str:
    """The Tesseract the tests run (ZG_TEST_TESSERACT, as .ci/run exports it, or PATH).
    Missing on a developer's machine the test is skipped; in CI it fails."""
    found = os.environ.get("ZG_TEST_TESSERACT") or shutil.which("tesseract")
    if not found:
        unavailable(
            "Tesseract is not installed (apt-get install tesseract-ocr tesseract-ocr-spa "
            "tesseract-ocr-eng; .ci/run installs it)"
        )
    if not FONT.exists():
        unavailable(f"no {FONT} to draw text with (apt-get install fonts-dejavu-core)")
    return found


def text_image(*paragraphs: str, width: int = 1600, size: int = 52) -> Image.Image:
    """Black text on white, one paragraph per line, a blank line between paragraphs: large
    and clean, so the OCR is exact."""
    # Without DejaVu (only the tests that need no Tesseract run then), Pillow's own font.
    font = ImageFont.truetype(str(FONT), size) if FONT.exists() else ImageFont.load_default(size)
    height = 80 + len(paragraphs) * size * 3
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    for number, text in enumerate(paragraphs):
        draw.text((60, 40 + number * size * 3), text, font=font, fill="black")
    return image


def save(image: Image.Image, path: Path, **options: object) -> Path:
    image.save(path, **options)
    return path


def scanned_pdf(path: Path, picture: Path, *, text_page: str | None = None) -> Path:
    """A PDF whose last page is only the picture (a scan); before it, optionally, a page
    with a text layer."""
    pdf = FPDF()
    if text_page is not None:
        pdf.add_page()
        pdf.set_font("Helvetica", size=12)
        pdf.multi_cell(0, 8, text_page)
    pdf.add_page()
    pdf.image(str(picture), x=10, y=10, w=190)
    pdf.output(str(path))
    return path


def deck_with_picture(path: Path, picture: Path) -> Path:
    """Slide 1 has a title and text; slide 2 only the picture; slide 3 the same picture
    again (a repeated picture is read once)."""
    deck = pptx.Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[1])
    first.shapes.title.text = "Plantas"
    first.placeholders[1].text_frame.text = "Las hojas son verdes."
    for _ in range(2):
        slide = deck.slides.add_slide(deck.slide_layouts[6])  # blank
        slide.shapes.add_picture(str(picture), Inches(0.5), Inches(1), width=Inches(9))
    deck.save(str(path))
    return path


def word_with_picture(path: Path, picture: Path, icon: Path) -> Path:
    """Paragraph 1 a heading, 2 text, 3 the picture, 4 text, 5 a tiny icon (no text)."""
    document = docx.Document()
    document.add_heading("Botánica", 1)
    document.add_paragraph("Antes de la figura.")
    document.add_picture(str(picture), width=DocxInches(6))
    document.add_paragraph("Después de la figura.")
    document.add_picture(str(icon), width=DocxInches(0.2))
    document.save(str(path))
    return path
