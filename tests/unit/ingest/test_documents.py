"""Document readers on real files generated into tmp_path: exact texts and locations."""

from __future__ import annotations

import json
import textwrap
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from zettelgraph.ingest.documents import SUFFIXES, detect_type, read_documents
from zettelgraph.ingest.parsed import DocumentError, ParsedDocument
from zettelgraph.ingest.readers_pdf import pdf_paragraphs, read_pdf

MAX = 5 * 1024 * 1024


def read(path: Path, **options: Any) -> ParsedDocument:
    documents = read_documents(path, max_bytes=MAX, **options)
    assert len(documents) == 1
    return documents[0]


def rows(document: ParsedDocument) -> list[tuple[str, dict[str, Any], str, str]]:
    return [(b.text, b.location, b.group_title, b.kind) for b in document.blocks]


def write(directory: Path, name: str, content: str | bytes) -> Path:
    path = directory / name
    if isinstance(content, str):
        path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def error(path: Path, **options: Any) -> str:
    with pytest.raises(DocumentError) as caught:
        read_documents(path, max_bytes=options.pop("max_bytes", MAX), **options)
    message = str(caught.value)
    assert message.startswith(f"{path}:"), message  # names the file
    return message


# --- type detection -----------------------------------------------------------------------


def test_suffixes_cover_every_reader() -> None:
    assert SUFFIXES[".pdf"] == "pdf" and SUFFIXES[".markdown"] == "markdown"
    assert SUFFIXES[".json"] == "transcript" and SUFFIXES[".txt"] == "text"
    assert all(SUFFIXES[s] == "code" for s in (".py", ".js", ".ts", ".go", ".rs", ".sql", ".sh"))


def test_detect_type_by_content_when_the_suffix_is_unknown(book_pdf: Path, tmp_path: Path) -> None:
    data = book_pdf.read_bytes()
    assert detect_type(tmp_path / "download.bin", data) == "pdf"
    assert detect_type(tmp_path / "README", b"plain words\n") == "text"


def test_mislabelled_files_say_what_they_really_are(tmp_path: Path, deck_pptx: Path) -> None:
    text_as_pdf = write(tmp_path, "notes.pdf", "just some text\n")
    message = error(text_as_pdf)
    assert "is not a PDF: it looks like text" in message and "Rename it to .txt or .md" in message

    deck_as_docx = write(tmp_path, "talk.docx", deck_pptx.read_bytes())
    message = error(deck_as_docx)
    assert "it looks like a PowerPoint file (.pptx)" in message and "Rename it to .pptx" in message

    blob_as_txt = write(tmp_path, "blob.txt", bytes(range(256)) * 4)
    assert "binary data" in error(blob_as_txt)

    archive = tmp_path / "bundle.docx"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("readme.txt", "hello")
    assert "a ZIP archive. Unpack it" in error(archive)

    legacy = write(tmp_path, "old.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600)
    assert "legacy Office file" in error(legacy) and "save it as .docx" in error(legacy)


def test_unsupported_binary_with_unknown_suffix(tmp_path: Path) -> None:
    message = error(write(tmp_path, "photo.heic", b"\0\0\0\x18ftypheic" + b"\0" * 64))
    assert "unsupported file type '.heic'" in message and "Supported: .pdf" in message


@pytest.mark.parametrize("name", ["empty.pdf", "empty.docx", "empty.md", "empty.json", "e.py"])
def test_empty_file(tmp_path: Path, name: str) -> None:
    assert "empty file (0 bytes)" in error(write(tmp_path, name, b""))


def test_too_large_names_the_limit_and_the_setting(tmp_path: Path) -> None:
    path = write(tmp_path, "big.txt", "word " * 1000)
    message = error(path, max_bytes=1024)
    assert "file is 5,000 bytes, larger than the limit of 1,024 bytes" in message
    assert "ZETTELGRAPH_MAX_FILE_MB" in message


def test_missing_file(tmp_path: Path) -> None:
    assert "file not found" in error(tmp_path / "nope.md")


def test_forced_text_type_refuses_a_pdf(book_pdf: Path) -> None:
    message = error(book_pdf, file_type="text")
    assert "cannot be read as text: it looks like a PDF" in message and "--type" in message


# --- PDF ----------------------------------------------------------------------------------


def test_pdf_pages_outline_and_metadata(book_pdf: Path) -> None:
    document = read(book_pdf)
    assert (document.file_type, document.title, document.author) == (
        "pdf",
        "Reading Notes",
        "Ada Writer",
    )
    assert rows(document) == [
        (
            "The first page talks about information retrieval and search.",
            {"page": 1},
            "Introduction",
            "text",
        ),
        ("The second page continues the introduction.", {"page": 2}, "Introduction", "text"),
        ("The third page describes the methods.", {"page": 3}, "Methods", "text"),
    ]
    groups = [block.group for block in document.blocks]
    assert groups[0] == groups[1] != groups[2]
    assert document.metadata == {"pages": 3}


def test_pdf_without_outline_groups_by_page(make_pdf: Callable[..., Path]) -> None:
    document = read(make_pdf("plain.pdf", [(None, "Alpha page."), (None, "Beta page.")]))
    assert rows(document) == [
        ("Alpha page.", {"page": 1}, "Page 1", "text"),
        ("Beta page.", {"page": 2}, "Page 2", "text"),
    ]
    assert document.title is None and document.author is None


def test_pdf_pages_before_the_first_bookmark(make_pdf: Callable[..., Path]) -> None:
    path = make_pdf("cover.pdf", [(None, "Cover page."), ("Body", "Body page.")])
    assert [(b.group, b.group_title) for b in read(path).blocks] == [
        ("page-1", "Page 1"),
        ("outline-0", "Body"),
    ]


def test_pdf_page_labels(labelled_pdf: Path) -> None:
    locations = [block.location for block in read(labelled_pdf).blocks]
    assert locations == [
        {"page": 1, "page_label": "i"},
        {"page": 2, "page_label": "1"},
        {"page": 3, "page_label": "2"},
    ]


def test_pdf_paragraph_rules() -> None:
    text = (
        "A long infor-\nmation line\nwrapped here.\n\n  Jean-\nPaul came.\n"
        "Soft\u00adhy\u00ad\nphen.\n"
    )
    assert pdf_paragraphs(text) == [
        "A long information line wrapped here.",
        "Jean-Paul came. Soft\u00adhyphen.",
    ]


def test_encrypted_pdf(encrypted_pdf: Path) -> None:
    message = error(encrypted_pdf)
    assert "encrypted" in message and "qpdf --decrypt" in message and "ingest it again" in message


def test_pdf_with_empty_user_password_is_read(owner_only_pdf: Path) -> None:
    assert read(owner_only_pdf).blocks[2].text == "The third page describes the methods."


def test_image_only_pdf(image_only_pdf: Path) -> None:
    message = error(image_only_pdf)
    assert "no text layer" in message and "ocrmypdf" in message


def test_a_pdf_that_reads_too_slowly_stops_with_a_clear_error(book_pdf: Path) -> None:
    with pytest.raises(DocumentError, match=r"more than 0 s and stopped at page 1 of 3") as err:
        read_pdf(book_pdf.read_bytes(), book_pdf, seconds=0)
    assert str(book_pdf) in str(err.value) and "Split it" in str(err.value)
    assert read_pdf(book_pdf.read_bytes(), book_pdf).blocks  # the default leaves time enough


def test_corrupt_pdf(tmp_path: Path, book_pdf: Path) -> None:
    path = write(tmp_path, "cut.pdf", book_pdf.read_bytes()[:400])
    message = error(path)
    assert "cannot be read as a PDF" in message and "download or export it again" in message


# --- DOCX ---------------------------------------------------------------------------------


def test_docx_paragraphs_headings_and_tables(field_guide_docx: Path) -> None:
    document = read(field_guide_docx)
    assert (document.title, document.author) == ("Field Guide", "Dana Docs")
    owls = ["Birds", "Owls", "Barn owls"]
    assert rows(document) == [
        (
            "Opening words before any heading.",
            {"heading_path": [], "paragraph": 2},
            "Field Guide",
            "text",
        ),
        ("Birds have feathers.", {"heading_path": ["Birds"], "paragraph": 4}, "Birds", "text"),
        (
            "Owls hunt at night.",
            {"heading_path": ["Birds", "Owls"], "paragraph": 7},
            "Birds > Owls",
            "text",
        ),
        (
            "Barn owls nest in barns.",
            {"heading_path": owls, "paragraph": 9},
            "Birds > Owls",
            "text",
        ),
        ("Name | Diet", {"heading_path": owls, "table": 1, "row": 1}, "Birds > Owls", "text"),
        ("Owl | Mice", {"heading_path": owls, "table": 1, "row": 3}, "Birds > Owls", "text"),
        ("Fish have gills.", {"heading_path": ["Fish"], "paragraph": 11}, "Fish", "text"),
    ]
    groups = [block.group for block in document.blocks]
    assert len(set(groups)) == 4 and groups[2] == groups[3] == groups[5]


def test_docx_heading_known_by_outline_level(localized_docx: Path) -> None:
    document = read(localized_docx)
    assert document.title == "Carnet"
    assert rows(document) == [
        (
            "Le texte du chapitre.",
            {"heading_path": ["Chapitre"], "paragraph": 2},
            "Chapitre",
            "text",
        )
    ]


def test_corrupt_docx(tmp_path: Path) -> None:
    path = tmp_path / "broken.docx"
    with zipfile.ZipFile(path, "w") as bundle:
        bundle.writestr("[Content_Types].xml", "<Types/>")
        bundle.writestr("word/document.xml", "<not-closed")
    message = error(path)
    assert "cannot be read as a Word document" in message and "save it again as .docx" in message


# --- PPTX ---------------------------------------------------------------------------------


def test_pptx_slides_notes_and_continued_groups(deck_pptx: Path) -> None:
    document = read(deck_pptx)
    assert (document.title, document.author) == ("Overview", "Pat Slides")
    overview = {"slide": 1, "title": "Overview"}
    continued = {"slide": 3, "title": "Results (cont.)"}
    assert rows(document) == [
        ("First point\nSecond point", overview, "Slide 1: Overview", "text"),
        ("Say hello first.", overview, "Slide 1: Overview", "notes"),
        (
            "Accuracy rose.\nMetric | Value\nAccuracy | 0.9",
            {"slide": 2, "title": "Results"},
            "Slides 2–3: Results",
            "text",
        ),
        ("Recall rose too.", continued, "Slides 2–3: Results", "text"),
        ("Mention recall.", continued, "Slides 2–3: Results", "notes"),
        ("Questions?", {"slide": 4, "title": "Questions?"}, "Slide 4: Questions?", "text"),
    ]
    groups = [block.group for block in document.blocks]
    assert groups == ["slide-1", "slide-1", "slide-2", "slide-2", "slide-2", "slide-4"]


def test_pptx_slides_on_one_topic_form_one_group(tmp_path: Path) -> None:
    import pptx

    deck = pptx.Presentation()
    for title in (
        "Fotosíntesis: fase luminosa",
        "Fotosíntesis – ciclo de Calvin",
        "fotosíntesis (cont.)",
        "Respiración celular",
        "Respiración celular: glucólisis",
        "Resumen",
    ):
        page = deck.slides.add_slide(deck.slide_layouts[1])
        page.shapes.title.text = title
        page.placeholders[1].text_frame.text = f"Texto de {title}."
    path = tmp_path / "biologia.pptx"
    deck.save(str(path))

    document = read(path)
    titles = [(block.location["slide"], block.group_title) for block in document.blocks]
    assert titles == [
        (1, "Slides 1–3: Fotosíntesis"),
        (2, "Slides 1–3: Fotosíntesis"),
        (3, "Slides 1–3: Fotosíntesis"),
        (4, "Slides 4–5: Respiración celular"),
        (5, "Slides 4–5: Respiración celular"),
        (6, "Slide 6: Resumen"),
    ]
    assert [block.group for block in document.blocks] == ["slide-1"] * 3 + ["slide-4"] * 2 + [
        "slide-6"
    ]


# --- Markdown -----------------------------------------------------------------------------

GARDEN_MD = """
---
title: Garden Notes
author: Gail Green
tags: [plants]
---
# Garden

Intro paragraph line one{trailing}
continues here.

## Soil

- loam
- clay

- sand

```python
def water():

    return "daily"
```

### Compost

Compost text.

## Light

Light text.
"""


def test_markdown_blocks_lines_and_groups(tmp_path: Path) -> None:
    # Trailing spaces are cut (written here by format: an editor would strip them).
    document = read(write(tmp_path, "garden.md", GARDEN_MD.replace("{trailing}", "   ")))
    assert (document.file_type, document.title, document.author) == (
        "markdown",
        "Garden Notes",
        "Gail Green",
    )
    assert document.metadata == {"tags": ["plants"]}
    soil = ["Garden", "Soil"]
    code = '```python\ndef water():\n\n    return "daily"\n```'

    def at(path: list[str], start: int, end: int) -> dict[str, Any]:
        return {"heading_path": path, "line_start": start, "line_end": end}

    assert rows(document) == [
        ("Intro paragraph line one\ncontinues here.", at(["Garden"], 8, 9), "Garden", "text"),
        ("- loam\n- clay\n\n- sand", at(soil, 13, 16), "Garden > Soil", "text"),
        (code, at(soil, 18, 22), "Garden > Soil", "code"),
        ("Compost text.", at([*soil, "Compost"], 26, 26), "Garden > Soil", "text"),
        ("Light text.", at(["Garden", "Light"], 30, 30), "Garden > Light", "text"),
    ]
    groups = [block.group for block in document.blocks]
    assert groups[1] == groups[2] == groups[3] != groups[4] != groups[0]


def test_markdown_title_from_first_h1_and_preamble(tmp_path: Path) -> None:
    path = write(tmp_path, "n.md", "Before.\n\n# Main ##\n\nAfter *this*.\n\n***\n\nMore.\n")
    document = read(path)
    assert document.title == "Main"
    assert rows(document) == [
        ("Before.", {"heading_path": [], "line_start": 1, "line_end": 1}, "Main", "text"),
        (
            "After *this*.",
            {"heading_path": ["Main"], "line_start": 5, "line_end": 5},
            "Main",
            "text",
        ),
        ("More.", {"heading_path": ["Main"], "line_start": 9, "line_end": 9}, "Main", "text"),
    ]


def test_markdown_code_is_never_a_heading_or_split(tmp_path: Path) -> None:
    source = (
        "```sh\n# not a title\n```\n\n# Real\n\n1. item\n\n   ```\n   a\n\n   b\n   ```\n2. next\n"
    )
    document = read(write(tmp_path, "code.md", source))
    assert document.title == "Real"
    assert [
        (b.text, b.location["line_start"], b.location["line_end"]) for b in document.blocks
    ] == [
        ("```sh\n# not a title\n```", 1, 3),
        ("1. item\n\n   ```\n   a\n\n   b\n   ```\n2. next", 7, 14),
    ]


def test_markdown_bad_front_matter_is_a_document_error(tmp_path: Path) -> None:
    message = error(write(tmp_path, "bad.md", "---\ntitle: [unclosed\n---\nText.\n"))
    assert ":2: invalid YAML in front matter" in message


def test_markdown_unclosed_fence_warns(tmp_path: Path) -> None:
    document = read(write(tmp_path, "f.md", "Text.\n\n```\ncode\n\nmore code\n"))
    assert rows(document)[1] == (
        "```\ncode\n\nmore code",
        {"heading_path": [], "line_start": 3, "line_end": 6},
        "f.md",
        "code",
    )
    assert document.warnings == ["line 3: code fence never closed; read to the end"]


# --- plain text ---------------------------------------------------------------------------


def test_text_paragraphs_grouped_by_about_a_thousand_tokens(tmp_path: Path) -> None:
    paragraph = " ".join(["word"] * 600)
    path = write(tmp_path, "long.txt", f"{paragraph}\n\n\n{paragraph}\nend.\n\n{paragraph}\n")
    document = read(path)
    assert document.file_type == "text"
    assert [(b.location, b.group_title) for b in document.blocks] == [
        ({"line_start": 1, "line_end": 1}, "Lines 1–1"),
        ({"line_start": 4, "line_end": 5}, "Lines 4–5"),
        ({"line_start": 7, "line_end": 7}, "Lines 7–7"),
    ]
    assert document.blocks[1].text == f"{paragraph}\nend."

    short = read(write(tmp_path, "short.txt", "One.\n\nTwo\nthree.\n"))
    assert rows(short) == [
        ("One.", {"line_start": 1, "line_end": 1}, "Lines 1–4", "text"),
        ("Two\nthree.", {"line_start": 3, "line_end": 4}, "Lines 1–4", "text"),
    ]


def test_text_encodings(tmp_path: Path) -> None:
    bom = read(write(tmp_path, "bom.txt", b"\xef\xbb\xbfCaf\xc3\xa9\r\n\r\nNext.\r\n"))
    assert [b.text for b in bom.blocks] == ["Café", "Next."]
    utf16 = read(write(tmp_path, "u16.txt", "Grüße\n\nzwei\n".encode("utf-16")))
    assert [b.text for b in utf16.blocks] == ["Grüße", "zwei"]
    # NFC: an 'e' followed by a combining accent becomes one character.
    nfc = read(write(tmp_path, "nfc.txt", "Cafe\u0301\n".encode()))
    assert nfc.blocks[0].text == "Caf\u00e9"
    message = error(write(tmp_path, "latin1.txt", "ok\nCaf\xe9\n".encode("latin-1")))
    assert ":2: not valid UTF-8 (byte 0xe9 at byte offset 6)" in message
    assert "Save it as UTF-8" in message


def test_whitespace_only_file_has_no_text(tmp_path: Path) -> None:
    assert "no text found" in error(write(tmp_path, "blank.md", b"\n   \n\n"))


# --- code ---------------------------------------------------------------------------------


def _garden_py() -> str:
    method = ["    def method_{k}(self) -> int:", "        total = 0"]
    method += ["        total += 1"] * 20 + ["        return total", ""]
    lines = [
        '"""Tools for the garden."""',  # 1
        "",
        "import functools",  # 3
        "from pathlib import Path",
        "",
        "LIMIT = 3",  # 6
        "",
        "",
        "# Water the plants.",  # 9
        "@functools.cache",
        "def water(amount: int) -> int:",
        "    return amount * 2",  # 12
        "",
        "",
        "class Pot:",  # 15
        '    """A pot."""',
        "",
        "    size = 1",
        "",
        "    def fill(self) -> None:",
        "        pass",  # 21
        "",
        "",
        "DEFAULT = Pot()",  # 24
        "",
        "",
        "class Garden:",  # 27
        '    """A big class."""',
        "",
        "    name = 'garden'",  # 30
        "",
    ]  # 31 lines so far
    for k in range(3):  # methods of 23 lines at 32, 58 and 82
        lines += [line.format(k=k) for line in method]
        if k == 0:
            lines += ["    other = 2", ""]  # 56: an attribute between methods
    lines += [  # 106
        "    # Cached because it is slow.",
        "    @property",
        "    def area(self) -> int:",
        "        return 1",
        "",
        "",
        'if __name__ == "__main__":',
        "    water(1)",
    ]
    return "\n".join(lines) + "\n"


def test_python_blocks_by_definition(tmp_path: Path) -> None:
    source = _garden_py()
    lines = source.split("\n")
    document = read(write(tmp_path, "garden.py", source))
    assert (document.file_type, document.title, document.warnings) == ("code", "garden.py", [])
    spans = [
        (b.location["symbol"], b.location["line_start"], b.location["line_end"])
        for b in document.blocks
    ]
    assert spans == [
        ("garden", 1, 6),
        ("water", 9, 12),
        ("Pot", 15, 21),
        ("garden", 24, 24),
        ("Garden", 27, 30),
        ("Garden.method_0", 32, 54),
        ("Garden", 56, 56),
        ("Garden.method_1", 58, 80),
        ("Garden.method_2", 82, 104),
        ("Garden.area", 106, 109),
        ("garden", 112, 113),
    ]
    for block, (_, first, last) in zip(document.blocks, spans, strict=True):
        assert block.text == "\n".join(lines[first - 1 : last])
        assert (block.kind, block.group, block.group_title) == ("code", "module", "module garden")


def test_big_python_module_groups_classes(tmp_path: Path) -> None:
    filler = "\n".join(f"X{i} = {i}" for i in range(400))
    source = f"import os\n\n\nclass A:\n    pass\n\n\n{filler}\n\n\ndef f():\n    return 1\n"
    document = read(write(tmp_path, "big.py", source))
    assert [(b.location["symbol"], b.group, b.group_title) for b in document.blocks] == [
        ("big", "module-1", "module big"),
        ("A", "class-4", "class A"),
        ("big", "module-8", "module big"),
        ("f", "module-8", "module big"),
    ]


def test_python_syntax_error_falls_back_to_blank_lines(tmp_path: Path) -> None:
    document = read(write(tmp_path, "broken.py", "def broken(:\n    pass\n\nx = 1\n"))
    assert rows(document) == [
        ("def broken(:\n    pass", {"line_start": 1, "line_end": 2}, "Lines 1–4", "code"),
        ("x = 1", {"line_start": 4, "line_end": 4}, "Lines 1–4", "code"),
    ]
    assert document.warnings == [
        "line 1: Python syntax error (invalid syntax); read as plain code split at blank lines"
    ]


def test_javascript_blocks_at_blank_lines(tmp_path: Path) -> None:
    source = """
    // Utilities.
    const a = 1;

    function add(x, y) {
      return x + y;
    }


    export { add };
    """
    document = read(write(tmp_path, "util.js", source))
    assert document.title == "util.js"
    assert rows(document) == [
        ("// Utilities.\nconst a = 1;", {"line_start": 1, "line_end": 2}, "Lines 1–9", "code"),
        (
            "function add(x, y) {\n  return x + y;\n}",
            {"line_start": 4, "line_end": 6},
            "Lines 1–9",
            "code",
        ),
        ("export { add };", {"line_start": 9, "line_end": 9}, "Lines 1–9", "code"),
    ]


# --- transcripts: markdown and text -------------------------------------------------------

OWL_CHAT = """
# Chat about owls

**User:** Why do owls hunt at night?

**Assistant:** Because their prey is active then.

They also see well in the dark.

---

**User:** Thanks!
**User:** One more question: what do they eat?

**Assistant:** Mostly small mammals.
"""


def test_markdown_transcript_is_detected(tmp_path: Path) -> None:
    document = read(write(tmp_path, "owls.md", OWL_CHAT))
    assert (document.file_type, document.title) == ("transcript", "Chat about owls")

    def turn(n: int, speaker: str, start: int, end: int) -> dict[str, Any]:
        return {"turn": n, "speaker": speaker, "line_start": start, "line_end": end}

    assert rows(document) == [
        ("Why do owls hunt at night?", turn(1, "User", 3, 3), "Exchange 1", "turn"),
        (
            "Because their prey is active then.\n\nThey also see well in the dark.",
            turn(2, "Assistant", 5, 7),
            "Exchange 1",
            "turn",
        ),
        ("Thanks!", turn(3, "User", 11, 11), "Exchange 2", "turn"),
        (
            "One more question: what do they eat?",
            turn(4, "User", 12, 12),
            "Exchange 2",
            "turn",
        ),
        ("Mostly small mammals.", turn(5, "Assistant", 14, 14), "Exchange 2", "turn"),
    ]
    assert [b.group for b in document.blocks] == ["exchange-1"] * 2 + ["exchange-2"] * 3


def test_heading_and_quoted_turns(tmp_path: Path) -> None:
    source = """
    ## User

    Summarise this.

    ## Claude:

    > Here is a summary.
    > It is short.

    > **Claude:** A quoted reply
    > on two lines.
    """
    document = read(write(tmp_path, "chat.txt", source))
    assert [(b.text, b.location) for b in document.blocks] == [
        ("Summarise this.", {"turn": 1, "speaker": "User", "line_start": 1, "line_end": 3}),
        (
            "> Here is a summary.\n> It is short.",
            {"turn": 2, "speaker": "Claude", "line_start": 5, "line_end": 8},
        ),
        (
            "A quoted reply\non two lines.",
            {"turn": 3, "speaker": "Claude", "line_start": 10, "line_end": 11},
        ),
    ]


def test_chatgpt_copied_chat(tmp_path: Path) -> None:
    source = "You said:\nhi there\n\nChatGPT said:\nHello!\n"
    document = read(write(tmp_path, "copied.txt", source))
    assert [(b.text, b.location) for b in document.blocks] == [
        ("hi there", {"turn": 1, "speaker": "You", "line_start": 1, "line_end": 2}),
        ("Hello!", {"turn": 2, "speaker": "ChatGPT", "line_start": 4, "line_end": 5}),
    ]


def test_interview_with_repeated_names(tmp_path: Path) -> None:
    source = """
    Alice: How did you start?
    Bob: By accident.
    Alice: And then?
    Bob: I kept going.
    """
    document = read(write(tmp_path, "interview.txt", source))
    assert [(b.location["speaker"], b.text, b.group_title) for b in document.blocks] == [
        ("Alice", "How did you start?", "Exchange 1"),
        ("Bob", "By accident.", "Exchange 1"),
        ("Alice", "And then?", "Exchange 2"),
        ("Bob", "I kept going.", "Exchange 2"),
    ]


def test_notes_with_labels_are_not_transcripts(tmp_path: Path) -> None:
    labels = "# Notes\n\nNote: first thing.\n\nNote: second thing.\n\nSummary: all good.\n"
    assert read(write(tmp_path, "labels.md", labels)).file_type == "markdown"
    article = "\n\n".join(f"Paragraph {i} of a long article." for i in range(12))
    example = f"{article}\n\nUser: hi\n\nAssistant: hello\n"
    assert read(write(tmp_path, "article.md", example)).file_type == "markdown"


def test_forced_types(tmp_path: Path) -> None:
    chat = write(tmp_path, "owls.md", OWL_CHAT)
    assert read(chat, file_type="markdown").file_type == "markdown"
    as_text = read(chat, file_type="text")
    assert as_text.file_type == "text" and as_text.blocks[0].text == "# Chat about owls"
    plain = write(tmp_path, "plain.md", "# Title\n\nNo speakers here.\n")
    message = error(plain, file_type="transcript")
    assert "no speaker turns found" in message and "--type transcript" in message
    single = write(tmp_path, "one.md", "Ann: just one line from Ann.\n")
    assert read(single, file_type="transcript").blocks[0].location["speaker"] == "Ann"


# --- transcripts: JSON exports ------------------------------------------------------------


def _node(
    node_id: str, role: str | None, parts: list[Any], parent: str | None, children: list[str]
) -> dict[str, Any]:
    message = None
    if role is not None:
        message = {"author": {"role": role}, "content": {"content_type": "text", "parts": parts}}
    return {"id": node_id, "message": message, "parent": parent, "children": children}


CHATGPT_EXPORT = [
    {
        "title": "Owl facts",
        "conversation_id": "c-1",
        "current_node": "a2b",
        "mapping": {
            "root": _node("root", None, [], None, ["sys"]),
            "sys": _node("sys", "system", [""], "root", ["u1"]),
            "u1": _node("u1", "user", ["What do owls eat?"], "sys", ["a1"]),
            "a1": _node("a1", "assistant", ["Mice."], "u1", ["u2a", "u2b"]),
            "u2a": _node("u2a", "user", ["And bats?"], "a1", ["a2a"]),
            "a2a": _node("a2a", "assistant", ["Rarely."], "u2a", []),
            "u2b": _node("u2b", "user", ["And insects?"], "a1", ["a2b"]),
            "a2b": _node(
                "a2b",
                "assistant",
                ["Some owls eat insects.", {"content_type": "image_asset_pointer"}],
                "u2b",
                [],
            ),
        },
    },
    {
        "title": "",
        "current_node": "a",
        "mapping": {
            "u": _node("u", "user", ["Run the numbers."], None, ["t"]),
            "t": _node("t", "tool", ["{'result': 4}"], "u", ["a"]),
            "a": _node("a", "assistant", ["The answer is 4."], "t", []),
        },
    },
]


def test_chatgpt_export_follows_the_current_branch(tmp_path: Path) -> None:
    path = write(tmp_path, "conversations.json", json.dumps(CHATGPT_EXPORT))
    first, second = read_documents(path, max_bytes=MAX)
    assert (first.title, first.index, first.metadata) == (
        "Owl facts",
        0,
        {"conversation_id": "c-1"},
    )
    assert [(b.text, b.location, b.group_title, b.kind) for b in first.blocks] == [
        ("What do owls eat?", {"turn": 1, "speaker": "user"}, "Exchange 1", "turn"),
        ("Mice.", {"turn": 2, "speaker": "assistant"}, "Exchange 1", "turn"),
        ("And insects?", {"turn": 3, "speaker": "user"}, "Exchange 2", "turn"),
        ("Some owls eat insects.", {"turn": 4, "speaker": "assistant"}, "Exchange 2", "turn"),
    ]
    assert (second.title, second.index, second.file_type) == ("conversations #2", 1, "transcript")
    assert [(b.text, b.location) for b in second.blocks] == [
        ("Run the numbers.", {"turn": 1, "speaker": "user"}),
        ("The answer is 4.", {"turn": 2, "speaker": "assistant"}),
    ]


def test_claude_export(tmp_path: Path) -> None:
    export = [
        {
            "uuid": "c1",
            "name": "Poems",
            "chat_messages": [
                {"sender": "human", "text": "Write a haiku."},
                {
                    "sender": "assistant",
                    "text": "",
                    "content": [{"type": "text", "text": "Old pond"}],
                },
            ],
        },
        {"uuid": "c2", "name": "Empty", "chat_messages": []},
    ]
    [document] = read_documents(write(tmp_path, "claude.json", json.dumps(export)), max_bytes=MAX)
    assert (document.title, document.metadata) == ("Poems", {"conversation_id": "c1"})
    assert [(b.text, b.location) for b in document.blocks] == [
        ("Write a haiku.", {"turn": 1, "speaker": "human"}),
        ("Old pond", {"turn": 2, "speaker": "assistant"}),
    ]
    assert document.warnings == ["conversation 2 ('Empty') has no text; skipped"]


def test_generic_messages(tmp_path: Path) -> None:
    messages = {
        "title": "Study",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Define entropy."},
            {"role": "assistant", "content": [{"type": "text", "text": "A measure of disorder."}]},
        ],
    }
    document = read(write(tmp_path, "study.json", json.dumps(messages)))
    assert document.title == "Study"
    assert [(b.text, b.location) for b in document.blocks] == [
        ("Define entropy.", {"turn": 1, "speaker": "user"}),
        ("A measure of disorder.", {"turn": 2, "speaker": "assistant"}),
    ]
    bare = [{"author": "user", "text": "Hi"}, {"author": {"role": "bot"}, "text": "Hello"}]
    document = read(write(tmp_path, "bare.json", json.dumps(bare)))
    assert document.title == "bare"
    assert [(b.text, b.location["speaker"]) for b in document.blocks] == [
        ("Hi", "user"),
        ("Hello", "bot"),
    ]


def test_malformed_and_unknown_json(tmp_path: Path) -> None:
    broken = write(tmp_path, "broken.json", b'{"messages": [\n  {"role": "user",,}\n]}')
    message = error(broken)
    assert message.startswith(f"{broken}:2: invalid JSON at column 19")
    assert "export it again" in message
    unknown = error(write(tmp_path, "package.json", b'{"name": "pkg", "version": "1"}'))
    assert "not a chat export" in unknown and "Supported: a ChatGPT export" in unknown
