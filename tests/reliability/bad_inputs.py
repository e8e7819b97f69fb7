"""The bad-input corpus: files a person might hand to `zettelgraph ingest`, by mistake or on
purpose, each with the outcome it must have.

A case writes its file(s) into a folder and returns the command's arguments. Its outcome is
`error` (exit 1 or 2, a message naming the file that contains every `says` fragment, nothing
stored), `warning` (ingested, a warning containing `says`) or `ingested` (read without fuss).
The files built to exhaust memory or time (image and YAML bombs) are in `bombs.py`.
"""

from __future__ import annotations

import io
import os
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import docx
import pptx
from pypdf import PdfWriter

from document_files import write_pdf

NOTES = "---\ntitle: Libro\nauthor: Autora\n---\n\n# Citas\n\n"
QUOTE = "La duda es el principio de la sabiduría y el final de la arrogancia."
LONG_LINE = " ".join(["palabra", "casa", "libro", "tiempo", "mundo"] * 200_000)  # ~5 MB


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[Path], list[str]]  # folder -> ingest arguments
    outcome: str  # "error" | "warning" | "ingested"
    says: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    # Run in a child process whose peak memory is measured (MB, at most).
    max_rss_mb: int | None = None
    command: tuple[str, ...] = ("ingest",)  # what is given the file


def text_file(name: str, text: str, encoding: str = "utf-8") -> Callable[[Path], list[str]]:
    def make(folder: Path) -> list[str]:
        path = folder / name
        path.write_bytes(text.encode(encoding))
        return [str(path)]

    return make


def bytes_file(name: str, data: bytes, *flags: str) -> Callable[[Path], list[str]]:
    def make(folder: Path) -> list[str]:
        path = folder / name
        path.write_bytes(data)
        return [str(path), *flags]

    return make


def _pdf_bytes(folder: Path) -> bytes:
    path = write_pdf(folder / ".source.pdf", [("Uno", QUOTE * 3), (None, QUOTE)], title="T")
    data = path.read_bytes()
    path.unlink()
    return data


def _docx_bytes() -> bytes:
    document = docx.Document()
    document.add_heading("Título", 1)
    document.add_paragraph(QUOTE)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _pptx_bytes() -> bytes:
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Diapositiva"
    slide.placeholders[1].text = QUOTE
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def _bomb(office: bytes, part: str, megabytes: int) -> bytes:
    """`office` with `part` replaced by `megabytes` MB of XML that compresses to almost
    nothing: small on disk, huge unpacked."""
    source = zipfile.ZipFile(io.BytesIO(office))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            if info.filename == part:
                with target.open(part, "w", force_zip64=True) as handle:
                    handle.write(b'<?xml version="1.0"?><!--')
                    block = b" " * (1024 * 1024)
                    for _ in range(megabytes):
                        handle.write(block)
                    handle.write(b"-->")
            else:
                target.writestr(info, source.read(info.filename))
    return out.getvalue()


def _zip_without(office: bytes, part: str) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(office))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            if info.filename != part:
                target.writestr(info, source.read(info.filename))
    return out.getvalue()


def pdf_case(transform: Callable[[bytes, Path], bytes], name: str) -> Callable[[Path], list[str]]:
    def make(folder: Path) -> list[str]:
        path = folder / name
        path.write_bytes(transform(_pdf_bytes(folder), folder))
        return [str(path)]

    return make


def _encrypted(data: bytes, folder: Path) -> bytes:
    from pypdf import PdfReader

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt("secreto")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _image_only(_: bytes, folder: Path) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.rect(20, 20, 80, 60, style="F")
    return bytes(pdf.output())


def fifo(folder: Path) -> list[str]:
    path = folder / "tubo.md"
    os.mkfifo(path)
    return [str(path)]


def empty_folder(folder: Path) -> list[str]:
    inner = folder / "vacía"
    inner.mkdir()
    (inner / "foto.jpg").write_bytes(b"\xff\xd8\xff\xe0" + b"\0" * 64)
    return [str(inner)]


def folder_without_notes(folder: Path) -> list[str]:
    inner = folder / "apuntes"
    inner.mkdir()
    (inner / "README.md").write_text("# Léeme\n\nEsto no son notas de un libro.\n")
    (inner / "lista.txt").write_text("comprar pan\ncomprar leche\n")
    return [str(inner)]


def two_files_one_title(folder: Path) -> list[str]:
    paths = []
    for name in ("uno.md", "dos.md"):
        path = folder / name
        path.write_text(NOTES + QUOTE + "\n")
        paths.append(str(path))
    return [*paths, "--title", "Un título"]


def missing(folder: Path) -> list[str]:
    return [str(folder / "no-existe.md")]


def huge(folder: Path) -> list[str]:
    path = folder / "enorme.md"
    path.write_text(NOTES + (QUOTE + "\n\n") * 20_000)  # ~1.4 MB
    return [str(path)]


def alias_bomb() -> str:
    lines = ["---", "a: &a [x, x, x, x, x, x, x, x, x]"]
    for i, name in enumerate("bcdefghij"):
        prev = "abcdefghij"[i]
        lines.append(f"{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]")
    return "\n".join([*lines, "title: T", "---", "", "# Citas", "", QUOTE, ""])


def deep_yaml() -> str:
    return "---\ntitle: " + "[" * 200 + "]" * 200 + "\n---\n\n# Citas\n\n" + QUOTE + "\n"


CASES: list[Case] = [
    # --- book notes ------------------------------------------------------------------------
    Case("empty notes", text_file("vacío.md", ""), "error", ("empty",)),
    Case("whitespace only", text_file("blanco.md", "  \n\n\t\n"), "error", ("empty",)),
    Case(
        "front matter never closed",
        text_file("abierto.md", "---\ntitle: T\n\n# Citas\n\n" + QUOTE),
        "error",
        ("front matter",),
    ),
    Case(
        "front matter invalid YAML",
        text_file("yaml.md", "---\ntitle: [sin cerrar\n---\n\n# Citas\n\n" + QUOTE),
        "error",
        ("front matter",),
    ),
    Case(
        "front matter is a list",
        text_file("lista.md", "---\n- uno\n- dos\n---\n\n# Citas\n\n" + QUOTE),
        "error",
        ("front matter", "list"),
    ),
    Case(
        "duplicate front matter keys",
        text_file("dup.md", "---\ntitle: Uno\nauthor: A\ntitle: Dos\n---\n\n# Citas\n\n" + QUOTE),
        "warning",
        ("line 4", "'title'", "line 2"),
    ),
    Case("YAML alias bomb", text_file("alias.md", alias_bomb()), "error", ("front matter",)),
    Case("YAML nested 200 deep", text_file("hondo.md", deep_yaml()), "error", ("front matter",)),
    Case(
        "title is a mapping",
        text_file("mapa.md", "---\ntitle: {a: 1}\n---\n\n# Citas\n\n" + QUOTE),
        "error",
        ("title",),
    ),
    Case(
        "quotes section holds only fragments",
        text_file("cortas.md", NOTES + "Sí.\n\nNo.\n"),
        "error",
        ("no quotes", "fragment"),
    ),
    Case(
        "a quote of one 5 MB line",
        text_file("línea.md", NOTES + LONG_LINE + "\n"),
        "error",
        ("characters long", "Split it"),
        max_rss_mb=600,
    ),
    Case(
        "quotes heading written as a tag",
        text_file("etiqueta.md", "---\ntitle: T\n---\n\n#Citas\n\n" + QUOTE + "\n"),
        "ingested",  # named, it is read as a document
    ),
    Case("binary named .md", bytes_file("binario.md", os.urandom(4096)), "error", ()),
    Case("NUL bytes in notes", text_file("nul.md", NOTES + "abc\0def\0" * 50), "error", ()),
    Case(
        "notes in Latin-1",
        text_file("latin.md", NOTES + QUOTE + "\n", encoding="latin-1"),
        "error",
        ("latin.md:8", "UTF-8"),
    ),
    Case(
        "notes in UTF-16 with BOM",
        text_file("utf16.md", NOTES + QUOTE + "\n", encoding="utf-16"),
        "error",
        ("UTF-16", "UTF-8"),
    ),
    Case(
        "file over the size limit",
        huge,
        "error",
        ("ZETTELGRAPH_MAX_FILE_MB",),
        env=(("ZETTELGRAPH_MAX_FILE_MB", "1"),),
    ),
    Case("missing file", missing, "error", ("no such file",)),
    Case("a FIFO", fifo, "error", ("not a regular file",)),
    Case("folder with nothing to read", empty_folder, "error", ("nothing to ingest",)),
    Case("folder without book notes", folder_without_notes, "error", ("no book notes",)),
    Case("--title for two files", two_files_one_title, "error", ("single file",)),
    # --- PDF ---------------------------------------------------------------------------------
    Case("encrypted PDF", pdf_case(_encrypted, "cerrado.pdf"), "error", ("password",)),
    Case("PDF with no text layer", pdf_case(_image_only, "escaneo.pdf"), "error", ("OCR",)),
    Case(
        "truncated PDF",
        pdf_case(lambda data, _: data[: len(data) // 3], "cortado.pdf"),
        "error",
        ("damaged",),
    ),
    Case(
        "PDF header then garbage",
        bytes_file("basura.pdf", b"%PDF-1.7\n" + os.urandom(2048)),
        "error",
        ("damaged",),
    ),
    Case("empty PDF", bytes_file("vacío.pdf", b""), "error", ("empty",)),
    Case(
        "text named .pdf",
        text_file("texto.pdf", "Esto es texto plano.\n" * 20),
        "error",
        ("looks like",),
    ),
    # --- Word and PowerPoint -------------------------------------------------------------------
    Case(
        "DOCX that is random bytes",
        bytes_file("roto.docx", os.urandom(4096)),
        "error",
        ("docx",),
    ),
    Case(
        "DOCX whose document.xml unpacks to 200 MB",
        lambda folder: bytes_file("bomba.docx", _bomb(_docx_bytes(), "word/document.xml", 200))(
            folder
        ),
        "error",
        ("unpacks to", "MB"),
        max_rss_mb=600,
    ),
    Case(
        "DOCX without document.xml",
        lambda folder: bytes_file("hueco.docx", _zip_without(_docx_bytes(), "word/document.xml"))(
            folder
        ),
        "error",
        ("Word",),
    ),
    Case(
        "slides named .docx",
        lambda folder: bytes_file("diapositivas.docx", _pptx_bytes())(folder),
        "error",
        ("looks like",),
    ),
    Case(
        "PPTX that is random bytes",
        bytes_file("roto.pptx", os.urandom(4096)),
        "error",
        ("pptx",),
    ),
    Case(
        "PPTX whose slide unpacks to 200 MB",
        lambda folder: bytes_file("bomba.pptx", _bomb(_pptx_bytes(), "ppt/slides/slide1.xml", 200))(
            folder
        ),
        "error",
        ("unpacks to", "MB"),
        max_rss_mb=600,
    ),
    Case(
        "ZIP that is neither",
        lambda folder: bytes_file(
            "archivo.docx", _zip_without(_docx_bytes(), "[Content_Types].xml")
        )(folder),
        "error",
        (),
    ),
    # --- forced and unknown types ---------------------------------------------------------------
    Case(
        "--type pdf on notes",
        lambda folder: [*text_file("notas.md", NOTES + QUOTE)(folder), "--type", "pdf"],
        "error",
        ("cannot be read as pdf", "looks like"),
    ),
    Case(
        "--type docx on a PDF",
        lambda folder: [*pdf_case(lambda d, _: d, "libro.pdf")(folder), "--type", "docx"],
        "error",
        ("cannot be read as docx",),
    ),
    Case(
        "--type that does not exist",
        lambda folder: [*text_file("notas.md", NOTES + QUOTE)(folder), "--type", "epub"],
        "error",
        ("--type",),
    ),
    Case("binary .txt", bytes_file("datos.txt", bytes(range(256)) * 64), "error", ()),
    Case("unknown binary", bytes_file("foto.heic", os.urandom(2048)), "error", ()),
    Case(
        "malformed JSON",
        text_file("chat.json", '{"messages": [{"role": "user", "content": "hola"'),
        "error",
        ("column 49",),
    ),
    Case(
        "JSON of an unknown shape",
        text_file("datos.json", '{"temperatura": 21, "humedad": 40}'),
        "error",
        (),
    ),
    Case(
        "Markdown document with broken front matter",
        text_file("doc.md", "---\ntitle: [roto\n---\n\n# Capítulo\n\nTexto del capítulo.\n"),
        "error",
        ("front matter",),
    ),
    Case(
        "a document of one 5 MB line",
        text_file("línea.txt", LONG_LINE + "\n"),
        "ingested",
        max_rss_mb=600,
    ),
    Case(
        "Python with a syntax error",
        text_file("roto.py", "def f(:\n    return 1\n\n\nx = [\n"),
        "ingested",
    ),
]
