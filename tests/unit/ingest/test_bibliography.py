"""A document's journal, DOI and abstract from its PDF document information, front matter or
first page, a DOI kept only when it is one (issue 31), on files written by real tools."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pypdf import PdfWriter

from zettelgraph.ingest.bibliography import clean_doi
from zettelgraph.ingest.documents import read_documents
from zettelgraph.ingest.parsed import ParsedDocument

FIRST_PAGE = (
    "Cognition 123 (2012) 1-10\n\ndoi:10.1016/j.cognition.2012.01.001.\n\n"
    "Abstract\n\nWe measure how readers resolve pronouns across sentence boundaries in "
    "three experiments.\n\n1. Introduction\n\nPronouns are everywhere."
)


def read(path: Path) -> ParsedDocument:
    [document] = read_documents(path, max_bytes=10_000_000)
    return document


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("10.1016/j.cognition.2012.01.001", "10.1016/j.cognition.2012.01.001"),
        ("https://doi.org/10.3989/rfe.2019.004", "10.3989/rfe.2019.004"),
        ("doi: 10.1000/182.", "10.1000/182"),
        ("10.12/short-registrant", None),
        ("isbn 978-84-376-0494-7", None),
    ],
)
def test_a_doi_is_kept_only_when_it_is_one(given: str, kept: str | None) -> None:
    assert clean_doi(given) == kept


def test_a_pdfs_doi_and_abstract_from_its_first_page_and_journal_from_its_information(
    make_pdf: Callable[..., Path], tmp_path: Path
) -> None:
    path = make_pdf("paper.pdf", [(None, FIRST_PAGE), (None, "Abstract of nothing: page two.")])
    writer = PdfWriter(clone_from=path)
    writer.add_metadata({"/Journal": "Cognition"})
    with (tmp_path / "with-journal.pdf").open("wb") as out:
        writer.write(out)

    metadata = read(tmp_path / "with-journal.pdf").metadata

    assert metadata["journal"] == "Cognition"
    assert metadata["doi"] == "10.1016/j.cognition.2012.01.001"
    assert metadata["abstract"].startswith("We measure how readers resolve pronouns")
    assert "Introduction" not in metadata["abstract"]


def test_front_matter_wins_and_a_doi_that_is_not_one_is_left_out_with_a_warning(
    tmp_path: Path,
) -> None:
    good = tmp_path / "articulo.md"
    good.write_text(
        "---\ntitle: La honra\njournal: Revista de Filología Española\n"
        "doi: https://doi.org/10.3989/rfe.2019.004\nabstract: Un estudio de la honra.\n---\n\n"
        "# Introducción\n\nEl texto, con doi:10.1000/182 citado de otro artículo.\n",
        encoding="utf-8",
    )
    document = read(good)
    assert document.metadata["journal"] == "Revista de Filología Española"
    assert document.metadata["doi"] == "10.3989/rfe.2019.004"
    assert document.metadata["abstract"] == "Un estudio de la honra."

    bad = tmp_path / "mal.md"
    bad.write_text(
        "---\ntitle: Mal\ndoi: 10.39/nope\n---\n\n# Uno\n\nTexto sin más.\n", encoding="utf-8"
    )
    document = read(bad)
    assert "doi" not in document.metadata
    assert "front matter `doi`: '10.39/nope' is not a DOI" in " ".join(document.warnings)
