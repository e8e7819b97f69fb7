"""OCR through the command line: images, a scanned PDF, a deck and a Word file with pictures
are ingested into the real SQLite store, their passages found and cited by where they are;
without Tesseract, the files that need it are refused with how to install it, and nothing
of them is stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from typer.testing import CliRunner

from ocr_files import (
    ENGLISH,
    SPANISH,
    deck_with_picture,
    save,
    scanned_pdf,
    tesseract,
    text_image,
    word_with_picture,
)
from zettelgraph.cli.app import app
from zettelgraph.settings import Settings
from zettelgraph.store import open_store


def run(*args: str, home: Path) -> Any:
    return CliRunner().invoke(
        app,
        ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args],
        catch_exceptions=False,
    )


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    picture = save(text_image(SPANISH, ENGLISH), tmp_path / "pizarra.png")
    icon = save(Image.new("RGB", (16, 16), "navy"), tmp_path / "icono.png")
    return {
        "png": picture,
        "jpeg": save(text_image(SPANISH, ENGLISH), tmp_path / "foto.jpg", quality=90),
        "pdf": scanned_pdf(tmp_path / "escaneo.pdf", picture, text_page="Printed first page."),
        "pptx": deck_with_picture(tmp_path / "plantas.pptx", picture),
        "docx": word_with_picture(tmp_path / "botanica.docx", picture, icon),
    }


def passages(home: Path) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    """Each stored Content's title -> its passages (text, location)."""
    store = open_store(Settings(home=home).store_url)
    try:
        return {
            content.title: [(q.text, q.location) for q in store.quotes_of(content.id)]
            for content in store.list_contents()
        }
    finally:
        store.close()


def test_images_and_scans_are_ingested_searched_and_cited(
    tmp_path: Path, files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZETTELGRAPH_TESSERACT", tesseract())
    home = tmp_path / "home"
    result = run("ingest", *map(str, files.values()), "--json", home=home)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["errors"] == []
    assert sorted(c["kind"] for c in report["contents"]) == [
        "docx",
        "image",
        "image",
        "pdf",
        "pptx",
    ]

    stored = passages(home)
    both = f"{SPANISH} {ENGLISH}"
    for title in ("pizarra", "foto"):
        ((text, location),) = stored[title]
        assert text == both
        assert location["ocr"] is True and location["confidence"] >= 85
        assert len(location["region"]) == 4  # the box around both paragraphs
    assert [(t, loc["page"], loc.get("ocr")) for t, loc in stored["escaneo"]] == [
        ("Printed first page.", 1, None),
        (both, 2, True),
    ]
    assert [(t, loc["slide"], loc.get("image")) for t, loc in stored["Plantas"]] == [
        ("Las hojas son verdes.", 1, None),
        (both, 2, 1),
    ]
    ((text, location),) = stored["botanica"]  # the picture's text between its paragraphs
    assert text == f"Antes de la figura. {both} Después de la figura."
    assert location["heading_path"] == ["Botánica"] and "ocr" not in location

    found = run("search", "fotosíntesis azúcares", "-k", "10", "--json", home=home)
    assert found.exit_code == 0, found.output
    results = json.loads(found.stdout)["results"]
    labels = {r["content_title"]: r["location_label"] for r in results if SPANISH in r["text"]}
    assert labels == {
        "pizarra": "image (OCR)",
        "foto": "image (OCR)",
        "escaneo": "p. 2 (scan)",
        "Plantas": "slide 2, image 1 (OCR)",
        "botanica": "Botánica",
    }

    again = json.loads(run("ingest", *map(str, files.values()), "--json", home=home).stdout)
    assert {c["status"] for c in again["contents"]} == {"unchanged"}  # OCR is deterministic


def test_without_tesseract_what_needs_it_is_refused_and_nothing_of_it_stored(
    tmp_path: Path, files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZETTELGRAPH_TESSERACT", str(tmp_path / "no" / "tesseract"))
    home = tmp_path / "home"
    only_scan = scanned_pdf(tmp_path / "solo-escaneo.pdf", files["png"])
    named = [files["png"], files["jpeg"], only_scan, files["docx"], files["pptx"]]
    result = run("ingest", *map(str, named), "--json", home=home)
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    errors = {Path(e["path"]).name: e["error"] for e in report["errors"]}
    assert set(errors) == {"pizarra.png", "foto.jpg", "solo-escaneo.pdf"}
    for name, message in errors.items():
        assert name in message and "ZETTELGRAPH_TESSERACT" in message, message
        assert "apt-get install tesseract-ocr tesseract-ocr-spa" in message, message
        assert "brew install tesseract" in message, message
    # The Word file and the deck have text of their own: read, with a warning for the pictures.
    assert sorted(c["kind"] for c in report["contents"]) == ["docx", "pptx"]
    for content in report["contents"]:
        assert any("picture(s) not read" in w for w in content["warnings"])
    stored = passages(home)
    assert set(stored) == {"botanica", "Plantas"}
    assert not any(SPANISH in text for texts in stored.values() for text, _ in texts)
