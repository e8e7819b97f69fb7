"""Real documents for the reader and ingest tests, generated into tmp_path with the same libraries a
person's tools would use (fpdf2, pypdf, python-docx, python-pptx)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import docx
import pptx
import pytest
from docx.enum.style import WD_STYLE_TYPE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from fpdf import FPDF
from pptx.util import Inches
from pypdf import PdfWriter


def write_pdf(path: Path, pages: list[tuple[str | None, str]], **meta: str) -> Path:
    """A PDF with one text per page; a page with a section title starts a bookmark."""
    pdf = FPDF()
    if "title" in meta:
        pdf.set_title(meta["title"])
    if "author" in meta:
        pdf.set_author(meta["author"])
    pdf.set_font("Helvetica", size=12)
    for section, text in pages:
        pdf.add_page()
        if section:
            pdf.start_section(section)
        if section == "Methods":
            pdf.start_section("Sampling", level=1)  # a nested bookmark does not split groups
        pdf.multi_cell(0, 8, text)
    pdf.output(str(path))
    return path


@pytest.fixture
def make_pdf(tmp_path: Path) -> Callable[..., Path]:
    """`make_pdf(name, pages, **meta)`: `write_pdf` into tmp_path."""

    def make(name: str, pages: list[tuple[str | None, str]], **meta: str) -> Path:
        return write_pdf(tmp_path / name, pages, **meta)

    return make


@pytest.fixture
def book_pdf(tmp_path: Path) -> Path:
    return write_pdf(
        tmp_path / "book.pdf",
        [
            ("Introduction", "The first page talks about infor-\nmation retrieval\nand search."),
            (None, "The second page continues the introduction."),
            ("Methods", "The third page describes the methods."),
        ],
        title="Reading Notes",
        author="Ada Writer",
    )


@pytest.fixture
def labelled_pdf(tmp_path: Path, book_pdf: Path) -> Path:
    """The book with printed page labels: i, then 1, 2."""
    writer = PdfWriter(clone_from=book_pdf)
    writer.set_page_label(0, 0, style="/r")
    writer.set_page_label(1, 2, style="/D", start=1)
    path = tmp_path / "labelled.pdf"
    writer.write(path)
    return path


@pytest.fixture
def encrypted_pdf(tmp_path: Path, book_pdf: Path) -> Path:
    writer = PdfWriter(clone_from=book_pdf)
    writer.encrypt("secret")
    path = tmp_path / "locked.pdf"
    writer.write(path)
    return path


@pytest.fixture
def owner_only_pdf(tmp_path: Path, book_pdf: Path) -> Path:
    """Encrypted with an empty user password: anyone may open it."""
    writer = PdfWriter(clone_from=book_pdf)
    writer.encrypt("", "owner-secret")
    path = tmp_path / "restricted.pdf"
    writer.write(path)
    return path


@pytest.fixture
def image_only_pdf(tmp_path: Path) -> Path:
    pdf = FPDF()
    pdf.add_page()
    pdf.rect(20, 20, 80, 60, style="F")
    path = tmp_path / "scan.pdf"
    pdf.output(str(path))
    return path


@pytest.fixture
def field_guide_docx(tmp_path: Path) -> Path:
    document = docx.Document()
    document.core_properties.author = "Dana Docs"
    document.add_heading("Field Guide", 0)  # paragraph 1
    document.add_paragraph("Opening words before any heading.")  # 2
    document.add_heading("Birds", 1)  # 3
    document.add_paragraph("Birds have feathers.")  # 4
    document.add_paragraph("")  # 5: empty, still counted
    document.add_heading("Owls", 2)  # 6
    document.add_paragraph("Owls hunt at night.")  # 7
    document.add_heading("Barn owls", 3)  # 8
    document.add_paragraph("Barn owls nest in barns.")  # 9
    table = document.add_table(rows=3, cols=2)
    for row, cells in enumerate([("Name", "Diet"), ("", ""), ("Owl", "Mice")]):
        for column, text in enumerate(cells):
            table.cell(row, column).text = text
    document.add_heading("Fish", 1)  # 10
    document.add_paragraph("Fish have gills.")  # 11
    path = tmp_path / "guide.docx"
    document.save(str(path))
    return path


@pytest.fixture
def localized_docx(tmp_path: Path) -> Path:
    """A heading style with a non-English name, known only by its outline level."""
    document = docx.Document()
    document.core_properties.title = "Carnet"
    style = document.styles.add_style("Titre Un", WD_STYLE_TYPE.PARAGRAPH)
    level = OxmlElement("w:outlineLvl")
    level.set(qn("w:val"), "0")
    style.element.get_or_add_pPr().append(level)
    document.add_paragraph("Chapitre", style="Titre Un")  # 1
    document.add_paragraph("Le texte du chapitre.")  # 2
    path = tmp_path / "carnet.docx"
    document.save(str(path))
    return path


@pytest.fixture
def deck_pptx(tmp_path: Path) -> Path:
    deck = pptx.Presentation()
    deck.core_properties.author = "Pat Slides"
    content, title_only = deck.slide_layouts[1], deck.slide_layouts[5]

    def slide(layout: Any, title: str, body: str | None, notes: str | None) -> Any:
        page = deck.slides.add_slide(layout)
        page.shapes.title.text = title
        if body is not None:
            page.placeholders[1].text_frame.text = body
        if notes is not None:
            page.notes_slide.notes_text_frame.text = notes
        return page

    slide(content, "Overview", "First point\nSecond point", "Say hello first.")
    results = slide(content, "Results", "Accuracy rose.", None)
    shape = results.shapes.add_table(2, 2, Inches(1), Inches(4), Inches(4), Inches(1))
    for row, cells in enumerate([("Metric", "Value"), ("Accuracy", "0.9")]):
        for column, text in enumerate(cells):
            shape.table.cell(row, column).text = text
    slide(content, "Results (cont.)", "Recall rose too.", "Mention recall.")
    slide(title_only, "Questions?", None, None)
    path = tmp_path / "deck.pptx"
    deck.save(str(path))
    return path
