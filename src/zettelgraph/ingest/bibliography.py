"""A document's journal, DOI and abstract, where the reader's file has them: the PDF's
document information, a text file's front matter, or the first page.

Experiments show them to the model beside the title, author and year (seed 003: "title,
authors, publication year, journal, DOI, abstract"), and the source page shows them. A DOI is
kept only when it is one (`10.` + a registrant code of 4-9 digits + `/` + a suffix, the
pattern Crossref gives for the DOIs it has issued); a value that is not is left out with a
warning naming where it was, so a typo in the front matter is seen, not stored.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from zettelgraph.ingest.parsed import Block, ParsedDocument

# Crossref's pattern for modern DOIs (it matches 74.4M of their 74.9M DOIs).
_DOI = r"10\.\d{4,9}/[-._;()/:A-Za-z0-9]+"
DOI_PATTERN = re.compile(rf"^{_DOI}$")
_DOI_IN_TEXT = re.compile(rf"(?:doi\.org/|\bdoi:?\s*)?\b({_DOI})", re.IGNORECASE)
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
# The heading that starts an abstract (capitalised: "an abstract idea" is not one), and what
# ends it: the first section or the key words.
_ABSTRACT = re.compile(
    r"\b(?:Abstract|ABSTRACT|Resumen|RESUMEN|Summary|Résumé)\b[:.\u2014\u2013-]?\s+"
)
_ABSTRACT_END = re.compile(
    r"\b(?:1\.?\s+)?(?:Introduction|INTRODUCTION|Introducción|INTRODUCCIÓN|Keywords|Key words"
    r"|KEYWORDS|Palabras clave|PALABRAS CLAVE)\b"
)
_ABSTRACT_WORDS = 5  # fewer is a heading's neighbour, not an abstract
# Bounds: an abstract is a paragraph or two; a journal name a line.
ABSTRACT_CHARS = 3000
JOURNAL_CHARS = 300
# How much of the document's start counts as its first page when it has no page numbers.
_FIRST_BLOCKS = 30


def clean_doi(value: str) -> str | None:
    """`value` as a bare DOI (`10.1000/xyz`, its link or `doi:` prefix taken off, trailing
    punctuation dropped), or None when it is not one."""
    bare = _DOI_PREFIX.sub("", value.strip()).rstrip(".,;")
    return bare if DOI_PATTERN.match(bare) else None


def add_bibliography(document: ParsedDocument, info: dict[str, Any] | None = None) -> None:
    """Set `journal`, `doi` and `abstract` in the document's metadata from (first found) its
    front matter (already in `metadata`), the PDF's document information `info` and its first
    page; a DOI that is not one is left out with a warning."""
    metadata = document.metadata
    info = info or {}
    journal = _text(metadata.get("journal")) or _text(info.get("/Journal"))
    if journal:
        metadata["journal"] = journal[:JOURNAL_CHARS]
    first = _first_page(document.blocks)
    doi = None
    for where, value in (("front matter", metadata.get("doi")), ("PDF metadata", info.get("/doi"))):
        if _text(value):
            doi = clean_doi(str(value))
            if doi is None:
                document.warnings.append(
                    f"{where} `doi`: {str(value)[:80]!r} is not a DOI (10.NNNN/suffix); left out"
                )
            break
    doi = doi or _doi_in(first)
    metadata.pop("doi", None)
    if doi:
        metadata["doi"] = doi
    abstract = _text(metadata.get("abstract")) or _abstract_in(first)
    metadata.pop("abstract", None)
    if abstract:
        metadata["abstract"] = abstract[:ABSTRACT_CHARS]


def _text(value: Any) -> str:
    return " ".join(str(value).split()) if value not in (None, "") else ""


def _first_page(blocks: Sequence[Block]) -> list[str]:
    if not blocks:
        return []
    page = blocks[0].location.get("page")
    if page is None:
        return [b.text for b in blocks[:_FIRST_BLOCKS]]
    return [b.text for b in blocks[:_FIRST_BLOCKS] if b.location.get("page") == page]


def _doi_in(texts: Sequence[str]) -> str | None:
    for text in texts:
        for match in _DOI_IN_TEXT.finditer(text):
            doi = clean_doi(match[1])
            if doi:
                return doi
    return None


def _abstract_in(texts: Sequence[str]) -> str:
    """What follows an `Abstract`/`Resumen` heading on the first page, up to the first
    section (`1. Introduction`) or the key words. PDFs' text layers often lose the blank
    lines between paragraphs, so the first page is read as one text."""
    page = " ".join(" ".join(texts).split())
    found = _ABSTRACT.search(page)
    if not found:
        return ""
    rest = page[found.end() :]
    end = _ABSTRACT_END.search(rest)
    abstract = rest[: end.start()].strip() if end else rest.strip()
    return abstract if len(abstract.split()) >= _ABSTRACT_WORDS else ""
