"""A passage that runs across headings is cited with the first and the last (issue 16): from
real Markdown and Word files in tmp_path, through the reader and the chunker."""

from __future__ import annotations

from pathlib import Path

import docx

from zettelgraph.ingest.chunking import ChunkedDocument, ChunkingConfig, chunk_document
from zettelgraph.ingest.documents import read_documents
from zettelgraph.models.locations import location_label, merge_locations

MANUAL = """# Manual

## 3 Install

Before you start, check the requirements.

### 3.1 Setup

Download the package. Unpack it in a folder.

### 3.2 Usage

Run the tool from that folder. It prints a report.
"""
INSTALL = ["Manual", "3 Install"]


def chunked(path: Path, config: ChunkingConfig) -> ChunkedDocument:
    (document,) = read_documents(path, max_bytes=1024 * 1024)
    return chunk_document(document, config)


def test_a_markdown_passage_across_headings_names_both(tmp_path: Path) -> None:
    path = tmp_path / "manual.md"
    path.write_text(MANUAL, encoding="utf-8")
    # 16-token passages with 8 of overlap: the second sentence of 3.1 and the first of 3.2
    # share a passage.
    passages = chunked(path, ChunkingConfig(child_tokens=16, overlap_tokens=8)).passages
    across = [p for p in passages if p.text.startswith("Unpack it")]
    assert [p.location for p in across] == [
        {
            "heading_path": [*INSTALL, "3.1 Setup"],
            "heading_path_end": [*INSTALL, "3.2 Usage"],
            "line_start": 9,
            "line_end": 13,
        }
    ]
    assert location_label(across[0].location) == (
        "Manual > 3 Install > 3.1 Setup → 3.2 Usage, lines 9–13"
    )
    # A passage under one heading is cited as before, without an end path.
    inside = passages[-1]
    assert inside.text == "Run the tool from that folder. It prints a report."
    assert inside.location == {
        "heading_path": [*INSTALL, "3.2 Usage"],
        "line_start": 13,
        "line_end": 13,
    }
    assert location_label(inside.location) == "Manual > 3 Install > 3.2 Usage, line 13"

    # With the default size the whole section is one passage: from the section's own text
    # to 3.2, and so is the section (the parent) it was cut from.
    whole = chunked(path, ChunkingConfig())
    (passage,) = whole.passages
    assert location_label(passage.location) == "Manual > 3 Install → 3.2 Usage, lines 5–13"
    assert whole.sections[0].location["heading_path_end"] == [*INSTALL, "3.2 Usage"]


def test_a_word_passage_across_headings_names_both(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_heading("Manual", 1)
    document.add_heading("3 Install", 2)
    document.add_heading("3.1 Setup", 3)
    document.add_paragraph("Download the package.")
    document.add_heading("3.2 Usage", 3)
    document.add_paragraph("Run the tool.")
    path = tmp_path / "manual.docx"
    document.save(str(path))
    (passage,) = chunked(path, ChunkingConfig()).passages
    assert passage.text == "Download the package. Run the tool."
    assert passage.location == {
        "heading_path": [*INSTALL, "3.1 Setup"],
        "heading_path_end": [*INSTALL, "3.2 Usage"],
        "paragraph": 4,
        "paragraph_end": 6,
    }
    assert location_label(passage.location) == "Manual > 3 Install > 3.1 Setup → 3.2 Usage"


def test_labels_of_spans_and_of_locations_stored_before_them() -> None:
    # Stored before heading spans existed: no end path, the label is unchanged.
    assert location_label({"heading_path": ["A", "B"], "line_start": 4, "line_end": 9}) == (
        "A > B, lines 4–9"
    )
    merged = merge_locations([{"heading_path": ["A"]}, {"heading_path": ["A"]}])
    assert merged == {"heading_path": ["A"]}
    # From text before any heading into the first one.
    assert location_label(merge_locations([{"heading_path": []}, {"heading_path": ["Intro"]}])) == (
        "up to Intro"
    )
    # Back out to a shallower heading: the end path is said whole.
    assert location_label({"heading_path": ["A", "B"], "heading_path_end": ["C"]}) == "A > B → C"
    assert location_label({"heading_path": ["A", "B"], "heading_path_end": ["A"]}) == "A > B → A"
