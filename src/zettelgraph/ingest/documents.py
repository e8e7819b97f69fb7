"""Read any file a person gives us (PDF, Word, PowerPoint, markdown, text, code, chat
transcripts, images through OCR) into `ParsedDocument`s: blocks of text with their exact
locations.

`read_documents` is the one entry point. It checks the file (present, not empty, under the
size limit), takes its type from the suffix and confirms it by content (`detect_type`),
because a mislabelled file otherwise fails deep inside a library with a message nobody can
act on. Then the reader for the type runs (`readers_office`, `readers_slides`, `readers_text`,
`transcripts`, `subtitles`). A markdown or text file that is mostly speaker turns is read
as a transcript, a text file of SRT cues as subtitles. Every failure is a DocumentError that
names the file and says what to do.
"""

from __future__ import annotations

import codecs
import io
import zipfile
from pathlib import Path

from zettelgraph.ingest.bibliography import add_bibliography
from zettelgraph.ingest.chat_exports import read_json_transcripts
from zettelgraph.ingest.errors import read_limited
from zettelgraph.ingest.ocr import Ocr, OcrConfig
from zettelgraph.ingest.parsed import DocumentError, FileType, ParsedDocument
from zettelgraph.ingest.readers_code import read_code
from zettelgraph.ingest.readers_image import IMAGE_SUFFIXES, read_image, sniff_image
from zettelgraph.ingest.readers_office import read_docx
from zettelgraph.ingest.readers_pdf import read_pdf
from zettelgraph.ingest.readers_slides import read_pptx
from zettelgraph.ingest.readers_text import decode_text, read_markdown, read_text
from zettelgraph.ingest.subtitles import SUBTITLE_SUFFIXES, looks_like_subtitles, read_subtitles
from zettelgraph.ingest.transcripts import looks_like_transcript, read_turns

# One string, split: a list literal would be formatted one suffix per line.
CODE_SUFFIXES = (  # noqa: SIM905
    ".py .pyi .pyw .js .jsx .mjs .cjs .ts .tsx .java .kt .kts .scala .groovy .go .rs .c .h "
    ".cc .cpp .cxx .hh .hpp .hxx .cs .fs .swift .m .mm .rb .php .pl .pm .lua .r .jl .dart "
    ".hs .ml .mli .ex .exs .erl .clj .elm .zig .nim .sh .bash .zsh .fish .ps1 .sql .vue .svelte"
).split()
SUFFIXES: dict[str, FileType] = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".pptx": "pptx",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".json": "transcript",
    ".srt": "transcript",  # subtitles: a video's or meeting's transcript (`subtitles.py`)
    ".vtt": "transcript",
    **dict.fromkeys(IMAGE_SUFFIXES, "image"),  # read by OCR (`ocr.py`)
    **dict.fromkeys(CODE_SUFFIXES, "code"),
}
_TEXT_TYPES = frozenset({"markdown", "text", "code", "transcript"})
_SNIFF_BYTES = 8192  # NUL bytes this early mean binary, as git and grep assume
_DESCRIBED: dict[FileType, str] = {
    "pdf": "a PDF",
    "docx": "a Word document (.docx)",
    "pptx": "a PowerPoint file (.pptx)",
    "image": "an image (PNG, JPEG, TIFF, WebP or GIF)",
    "markdown": "text",
    "text": "text",
    "code": "text",
    "transcript": "text",
}
_RENAME: dict[FileType, str] = {"pdf": ".pdf", "docx": ".docx", "pptx": ".pptx", "text": ".txt"}
# (leading bytes, what the file is, what to do) for files no reader takes.
_MAGIC = (
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "a legacy Office file (.doc, .ppt or .xls)",
        "Open it in Word or PowerPoint and save it as .docx or .pptx",
    ),
    (b"\x1f\x8b", "a gzip archive", "Unpack it and ingest the files inside"),
    (b"7z\xbc\xaf", "a 7-Zip archive", "Unpack it and ingest the files inside"),
    (b"Rar!", "a RAR archive", "Unpack it and ingest the files inside"),
    (b"{\\rtf", "an RTF document", "Save it as .docx or plain text"),
)


def supported_suffixes() -> str:
    """The suffixes read without --type, for messages."""
    return ", ".join(suffix for suffix in SUFFIXES if suffix not in CODE_SUFFIXES) + (
        " and source code (.py, .js, .go, ...)"
    )


def detect_type(path: Path, head: bytes) -> FileType:
    """The reader for a file: by suffix, confirmed by its first bytes.

    `head` is the start of the file (the whole file is fine; 8 KiB is enough). A file whose
    content does not match its suffix raises DocumentError naming what it really looks like
    and what to do. An unknown suffix is accepted when the content is recognisable (a PDF,
    a Word or PowerPoint file, or text). A ZIP's parts are listed from `head`, or from the
    file when `head` is only its start. Whether a .md/.txt is a chat transcript is decided
    later, by `read_documents`, from the whole text.
    """
    if not head:
        raise DocumentError(
            "empty file (0 bytes). Check that it is the file you meant, or save it again",
            path=str(path),
        )
    suffix = path.suffix.lower()
    expected = SUFFIXES.get(suffix)
    actual, looks, advice = _sniff(path, head)
    if expected is None:
        if actual is None:
            named = f" '{suffix}'" if suffix else ""
            raise DocumentError(
                f"unsupported file type{named}: it looks like {looks}. {advice}. Supported: "
                f"{supported_suffixes()}",
                path=str(path),
            )
        return actual
    if actual == expected or (actual == "text" and expected in _TEXT_TYPES):
        return expected
    if actual is not None and actual != "image":  # an image's advice names its own suffix
        advice = f"Rename it to {_RENAME[actual]} (or read it with --type {actual})"
        if actual == "text":
            advice = "Rename it to .txt or .md (or read it with --type text)"
    raise DocumentError(
        f"has a '{suffix}' name but is not {_DESCRIBED[expected]}: it looks like {looks}. {advice}",
        path=str(path),
    )


# The files that may be papers or chapters (a journal, a DOI, an abstract on the first page);
# transcripts, slides, code and pictures are not looked at.
_BIBLIOGRAPHIC = ("docx", "markdown", "text")


def read_documents(
    path: Path, *, max_bytes: int, file_type: FileType | None = None, ocr: OcrConfig | None = None
) -> list[ParsedDocument]:
    """Read a file into documents (several for a chat export with several conversations).

    `file_type` forces a reader (the --type option) instead of detecting it; text readers
    still refuse a file that is a PDF, an Office file or binary data. `ocr` says which
    Tesseract reads images and scanned pages (default: `tesseract` on PATH, spa+eng).
    """
    data = read_limited(path, max_bytes=max_bytes, error=DocumentError, expected="a document file")
    if not data:
        raise DocumentError(
            "empty file (0 bytes). Check that it is the file you meant, or save it again",
            path=str(path),
        )
    kind = file_type or detect_type(path, data)
    if file_type is not None:
        # A forced reader must fit the content: text readers take text, the PDF, Word and
        # PowerPoint readers only their own files.
        actual, looks, _ = _sniff(path, data)
        fits = actual == "text" if file_type in _TEXT_TYPES else actual == file_type
        if not fits:
            raise DocumentError(
                f"cannot be read as {file_type}: it looks like {looks}. Leave out --type "
                f"{file_type} so the type is detected from the file",
                path=str(path),
            )
    documents = _read_as(kind, data, path, detected=file_type is None, ocr=Ocr(ocr or OcrConfig()))
    for document in documents:
        if document.file_type in _BIBLIOGRAPHIC:
            add_bibliography(document)  # PDFs did, with their document information
        if not document.blocks:
            raise DocumentError(
                f"no text found in this {kind} file. Check that it is the file you meant "
                "(an empty document, or one whose pictures hold no readable text, has "
                "nothing to ingest)",
                path=str(path),
            )
    return documents


def _read_as(
    kind: FileType, data: bytes, path: Path, *, detected: bool, ocr: Ocr
) -> list[ParsedDocument]:
    if kind == "pdf":
        return [read_pdf(data, path, ocr=ocr)]
    if kind == "docx":
        return [read_docx(data, path, ocr)]
    if kind == "pptx":
        return [read_pptx(data, path, ocr)]
    if kind == "image":
        return [read_image(data, path, ocr)]
    text = decode_text(data, path)
    if kind == "code":
        return [read_code(text, path)]
    suffix = path.suffix.lower()
    markdown = kind == "markdown" or (kind == "transcript" and SUFFIXES.get(suffix) == "markdown")
    subtitles = suffix in SUBTITLE_SUFFIXES or looks_like_subtitles(text)
    if subtitles and (kind == "transcript" or (detected and kind == "text")):
        return [read_subtitles(text, path)]
    if kind == "transcript":
        json_like = suffix not in SUFFIXES and text.lstrip()[:1] in ("[", "{")
        if suffix == ".json" or json_like:
            return read_json_transcripts(text, path)
        return [read_turns(text, path, markdown=markdown, forced=True)]
    if detected and looks_like_transcript(text, path, markdown=markdown):
        return [read_turns(text, path, markdown=markdown, forced=False)]
    return [read_markdown(text, path) if markdown else read_text(text, path)]


def _sniff(path: Path, head: bytes) -> tuple[FileType | None, str, str]:
    """(the reader the content fits or None, what it looks like, what to do)."""
    if b"%PDF-" in head[:1024]:  # readers accept the header anywhere in the first 1 KiB
        return "pdf", "a PDF", "Rename it to .pdf"
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return _sniff_zip(path, head)
    if image := sniff_image(head):
        looks, suffix = image
        return "image", looks, f"Rename it to {suffix} (or read it with --type image)"
    for magic, looks, advice in _MAGIC:
        if head.startswith(magic):
            return None, looks, advice
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "text", "UTF-16 text", ""
    start = head[:_SNIFF_BYTES]
    if b"\x00" in start:
        # ASCII saved as UTF-16 without a byte-order mark: every other byte is NUL.
        if start.count(b"\x00") * 3 >= len(start) and len(start) >= 4:
            return None, "UTF-16 text without a byte-order mark", "Save it as UTF-8"
        return None, "binary data (it contains NUL bytes)", "Check that it is the file you meant"
    return "text", "text", ""


def _sniff_zip(path: Path, head: bytes) -> tuple[FileType | None, str, str]:
    names: set[str] | None = None
    for source in (io.BytesIO(head), path):  # `head` may be only the start of the file
        try:
            with zipfile.ZipFile(source) as archive:
                names = set(archive.namelist())
            break
        except (zipfile.BadZipFile, OSError, ValueError, EOFError):
            continue
    if names is None:
        return None, "a damaged ZIP archive", "Download or export it again"
    if "word/document.xml" in names:
        return "docx", "a Word document (.docx)", "Rename it to .docx"
    if "ppt/presentation.xml" in names:
        return "pptx", "a PowerPoint file (.pptx)", "Rename it to .pptx"
    if "xl/workbook.xml" in names:
        return None, "an Excel workbook (.xlsx)", "Export the sheets as text or PDF"
    return None, "a ZIP archive", "Unpack it and ingest the files inside"
