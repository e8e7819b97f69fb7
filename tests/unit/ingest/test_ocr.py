"""OCR through the real Tesseract on images with known text: image files, a scanned PDF page,
pictures in slides and Word files; what is kept, where it is, and what a missing Tesseract
says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import docx
import pytest
from PIL import Image

from ocr_files import (
    ENGLISH,
    SECOND,
    SPANISH,
    deck_with_picture,
    save,
    scanned_pdf,
    tesseract,
    text_image,
    word_with_picture,
)
from reliability.bombs import tiff
from zettelgraph.ingest.documents import read_documents
from zettelgraph.ingest.ocr import MIN_CONFIDENCE, OcrConfig, parse_tsv
from zettelgraph.ingest.parsed import DocumentError, ParsedDocument
from zettelgraph.models.locations import location_label, merge_locations

MAX = 20 * 1024 * 1024
MISSING = OcrConfig(tesseract="/nonexistent/bin/tesseract")


@pytest.fixture
def ocr() -> OcrConfig:
    return OcrConfig(tesseract=tesseract())


@pytest.fixture
def picture(tmp_path: Path) -> Path:
    return save(text_image(SPANISH, ENGLISH), tmp_path / "pizarra.png")


def read(path: Path, ocr: OcrConfig) -> ParsedDocument:
    (document,) = read_documents(path, max_bytes=MAX, ocr=ocr)
    return document


def refused(path: Path, ocr: OcrConfig) -> str:
    with pytest.raises(DocumentError) as caught:
        read_documents(path, max_bytes=MAX, ocr=ocr)
    message = str(caught.value)
    assert message.startswith(f"{path}:"), message  # names the file
    return message


def texts(document: ParsedDocument) -> list[str]:
    return [block.text for block in document.blocks]


# --- image files ---------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "options"), [("nota.png", {}), ("nota.jpg", {"quality": 90})])
def test_an_image_file_is_read_paragraph_by_paragraph_with_regions(
    tmp_path: Path, ocr: OcrConfig, name: str, options: dict[str, Any]
) -> None:
    image = text_image(SPANISH, ENGLISH)
    document = read(save(image, tmp_path / name, **options), ocr)
    assert document.file_type == "image"
    assert texts(document) == [SPANISH, ENGLISH]
    first, second = (block.location for block in document.blocks)
    for location in (first, second):
        assert location["ocr"] is True and location["confidence"] >= 85
        x, y, width, height = location["region"]
        assert 0 <= x < image.width and 0 <= y < image.height
        assert x + width <= image.width and y + height <= image.height
    # The first paragraph is drawn at the top left, 60 px in, the second below it.
    assert 50 <= first["region"][0] <= 70 and first["region"][1] < second["region"][1]
    assert {b.group_title for b in document.blocks} == {name}
    assert document.metadata["ocr_languages"] == "spa+eng"
    assert read(tmp_path / name, ocr) == document  # the same image reads the same


def test_a_multi_page_tiff_is_read_page_by_page(tmp_path: Path, ocr: OcrConfig) -> None:
    pages = [text_image(SPANISH), text_image(SECOND)]
    path = tmp_path / "escaneo.tif"
    pages[0].save(path, save_all=True, append_images=pages[1:])
    document = read(path, ocr)
    assert [(b.text, b.location["page"]) for b in document.blocks] == [(SPANISH, 1), (SECOND, 2)]
    assert location_label(document.blocks[1].location) == "p. 2 (scan)"


# Decoding a page with less memory than it needs: Pillow's MemoryError has no message.
SHORT_OF_MEMORY = """
import resource, sys
from pathlib import Path
from zettelgraph.ingest.ocr import Ocr, OcrConfig
from zettelgraph.ingest.parsed import DocumentError
from zettelgraph.ingest.readers_image import read_image
ocr = Ocr(OcrConfig(tesseract=sys.argv[2]))
ocr.program()
data = Path(sys.argv[1]).read_bytes()
size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + 40_000_000, resource.RLIM_INFINITY))
try:
    read_image(data, Path(sys.argv[1]), ocr)
except DocumentError as exc:
    print(exc)
"""


def test_a_page_that_runs_out_of_memory_is_named_with_the_reason(
    tmp_path: Path, ocr: OcrConfig
) -> None:
    path = tmp_path / "escaneo.tif"
    path.write_bytes(tiff([(16, 16), (8000, 8000)]))  # page 2 is 64 MB decoded: within budget
    done = subprocess.run(
        [sys.executable, "-c", SHORT_OF_MEMORY, str(path), str(ocr.tesseract)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    message = done.stdout.strip()
    assert message.startswith(f"{path}: cannot be read as an image: page 2 of 2"), done
    assert "not enough memory" in message and "()" not in message


def test_an_image_without_text_says_so(tmp_path: Path, ocr: OcrConfig) -> None:
    blank = save(Image.new("RGB", (800, 600), "white"), tmp_path / "blanco.png")
    assert "no text found in this image file" in refused(blank, ocr)
    tiny = save(Image.new("RGB", (10, 10), "black"), tmp_path / "punto.png")
    assert "no text found" in refused(tiny, ocr)


def test_a_damaged_image_is_refused_with_advice(tmp_path: Path, ocr: OcrConfig) -> None:
    path = tmp_path / "roto.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    message = refused(path, ocr)
    assert "cannot be read as an image" in message and "save it again as PNG" in message


def test_an_image_with_a_wrong_name_is_named(tmp_path: Path, picture: Path, ocr: OcrConfig) -> None:
    path = tmp_path / "nota.pdf"
    path.write_bytes(picture.read_bytes())
    assert "it looks like a PNG image. Rename it to .png" in refused(path, ocr)
    text = tmp_path / "nota.txt"
    text.write_text("only words", encoding="utf-8")
    with pytest.raises(DocumentError, match="cannot be read as image"):
        read_documents(text, max_bytes=MAX, file_type="image", ocr=ocr)


# --- Tesseract missing or misconfigured ------------------------------------------------------


def test_without_tesseract_an_image_is_refused_with_how_to_install(picture: Path) -> None:
    message = refused(picture, MISSING)
    assert "needs OCR" in message and "ZETTELGRAPH_TESSERACT" in message
    assert "apt-get install tesseract-ocr tesseract-ocr-spa" in message
    assert "brew install tesseract" in message


def test_a_language_without_data_is_named(picture: Path, ocr: OcrConfig) -> None:
    config = OcrConfig(tesseract=ocr.tesseract, languages="spa+zzz")
    message = refused(picture, config)
    assert "no data for zzz" in message and "tesseract-ocr-zzz" in message


# --- pictures inside documents ---------------------------------------------------------------


def test_a_scanned_pdf_page_is_read_by_ocr(tmp_path: Path, picture: Path, ocr: OcrConfig) -> None:
    path = scanned_pdf(tmp_path / "libro.pdf", picture, text_page="A page with a text layer.")
    document = read(path, ocr)
    assert [(b.text, b.location["page"]) for b in document.blocks] == [
        ("A page with a text layer.", 1),
        (SPANISH, 2),
        (ENGLISH, 2),
    ]
    assert "ocr" not in document.blocks[0].location
    scanned = document.blocks[1].location
    assert scanned["ocr"] is True and len(scanned["region"]) == 4
    assert location_label(scanned) == "p. 2 (scan)"
    assert document.metadata == {"pages": 2, "ocr_pages": 1, "ocr_languages": "spa+eng"}
    assert document.warnings == []


def test_a_scanned_pdf_without_tesseract(tmp_path: Path, picture: Path) -> None:
    only_scan = scanned_pdf(tmp_path / "escaneo.pdf", picture)
    message = refused(only_scan, MISSING)
    assert "no text layer" in message and "needs OCR" in message
    assert "apt-get install tesseract-ocr" in message
    # With pages of text, those are read and the scanned page is a warning saying why.
    mixed = scanned_pdf(tmp_path / "mixto.pdf", picture, text_page="Text on the first page.")
    (document,) = read_documents(mixed, max_bytes=MAX, ocr=MISSING)
    assert texts(document) == ["Text on the first page."]
    assert any("1 picture(s) not read" in w and "tesseract" in w for w in document.warnings)


def test_a_pdf_page_of_drawings_has_nothing_to_ocr(image_only_pdf: Path, ocr: OcrConfig) -> None:
    message = refused(image_only_pdf, ocr)
    assert "no text layer and no images" in message and "ocrmypdf --force-ocr" in message


def test_a_slide_picture_is_read_once_at_its_slide(
    tmp_path: Path, picture: Path, ocr: OcrConfig
) -> None:
    document = read(deck_with_picture(tmp_path / "plantas.pptx", picture), ocr)
    rows = [(b.text, b.location["slide"], b.location.get("image")) for b in document.blocks]
    assert rows == [("Las hojas son verdes.", 1, None), (SPANISH, 2, 1), (ENGLISH, 2, 1)]
    assert location_label(document.blocks[1].location) == "slide 2, image 1 (OCR)"
    assert document.warnings == ["slide 3: no text (charts, or pictures without text?)"]


def test_a_word_picture_is_read_after_its_paragraph(
    tmp_path: Path, picture: Path, ocr: OcrConfig
) -> None:
    icon = save(Image.new("RGB", (16, 16), "navy"), tmp_path / "icono.png")
    document = read(word_with_picture(tmp_path / "botanica.docx", picture, icon), ocr)
    rows = [(b.text, b.location.get("paragraph"), b.location.get("image")) for b in document.blocks]
    assert rows == [
        ("Antes de la figura.", 2, None),
        (SPANISH, 3, 1),
        (ENGLISH, 3, 1),
        ("Después de la figura.", 4, None),
    ]
    assert document.blocks[1].location["heading_path"] == ["Botánica"]
    assert location_label(document.blocks[1].location) == "Botánica, image 1 (OCR)"
    assert document.warnings == []  # the icon too small for text gives nothing, silently


def test_a_word_file_whose_text_is_only_in_pictures_needs_tesseract(
    tmp_path: Path, picture: Path
) -> None:
    document = docx.Document()
    document.add_picture(str(picture))
    path = tmp_path / "solo-imagen.docx"
    document.save(str(path))
    message = refused(path, MISSING)
    assert "no text outside its 1 picture(s)" in message and "apt-get install" in message


# --- TSV, labels and merged locations (no Tesseract needed) ----------------------------------

TSV_HEADER = (
    "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
)


def _word(
    block: int, par: int, line: int, box: tuple[int, int, int, int], conf: float, text: str
) -> str:
    return "\t".join(map(str, (5, 1, block, par, line, 1, *box, conf, text)))


def test_parse_tsv_groups_words_drops_noise_and_scales_back() -> None:
    rows = [
        TSV_HEADER,
        "2\t1\t1\t0\t0\t0\t10\t10\t300\t80\t-1\t",
        _word(1, 1, 1, (10, 10, 100, 30), 96.5, "infor-"),
        _word(1, 1, 2, (10, 50, 120, 30), 95.0, "mation"),
        _word(1, 1, 2, (140, 50, 60, 30), 93.0, "retrieval"),
        _word(2, 1, 1, (10, 200, 40, 40), MIN_CONFIDENCE - 20, "ee"),  # noise: unsure
        _word(3, 1, 1, (10, 300, 20, 20), 99.0, "|"),  # no two letters
        _word(4, 1, 1, (10, 400, 60, 30), 91.0, "Jean-"),
        _word(4, 1, 2, (10, 440, 60, 30), 91.0, "Paul"),
    ]
    regions = parse_tsv("\n".join(rows), scale=2.0)
    assert [r.text for r in regions] == ["information retrieval", "Jean-Paul"]
    assert regions[0].box == (5, 5, 95, 35)  # (10, 10)-(200, 80) at half size
    assert regions[0].confidence == 95


def test_labels_say_a_passage_was_read_by_ocr() -> None:
    ocr = {"ocr": True, "region": [1, 2, 3, 4], "confidence": 90}
    assert location_label({"page": 4, **ocr}) == "p. 4 (scan)"
    assert location_label({"page": 4, "page_label": "iv", **ocr}) == "p. iv (scan)"
    assert location_label({"slide": 2, "image": 1, **ocr}) == "slide 2, image 1 (OCR)"
    assert location_label(ocr) == "image (OCR)"


def test_merged_ocr_locations_cover_their_regions() -> None:
    a = {"page": 2, "ocr": True, "region": [10, 10, 100, 20], "confidence": 90}
    b = {"page": 2, "ocr": True, "region": [20, 40, 200, 20], "confidence": 80}
    assert merge_locations([a, b]) == {
        "page": 2,
        "ocr": True,
        "region": [10, 10, 210, 50],
        "confidence": 80,
    }
    # Text from a picture and from the slide: the passage is the slide's, not the picture's.
    slide = {"slide": 3}
    picture = {"slide": 3, "image": 1, "ocr": True, "region": [0, 0, 5, 5], "confidence": 90}
    assert merge_locations([slide, picture]) == {"slide": 3}
    # Two pictures: no single region.
    other = {**picture, "image": 2}
    assert merge_locations([picture, other]) == {"slide": 3, "ocr": True, "confidence": 90}
