"""The document side of the Quote Parse Graph: a parsed document -> sections and passages.

Book notes give quotes; every other file (PDF, Word, slides, Markdown without a quotes
section, text, code, chat transcripts) is read into blocks, chunked into parent sections and
child passages, and the passages become Quote nodes exactly like book-note quotes, so
concept extraction, search and citations treat both alike.
"""

from __future__ import annotations

from zettelgraph.ingest.chunking import ChunkingConfig, chunk_document
from zettelgraph.ingest.parsed import ParsedDocument
from zettelgraph.models import content_id, quote_id, section_id, sha256_text, stable_id
from zettelgraph.settings import Settings
from zettelgraph.workflows.quote_parse.state import ParsedPassage, ParsedSection
from zettelgraph.workflows.records import JSONObject


def chunking_config(settings: Settings) -> ChunkingConfig:
    return ChunkingConfig(child_tokens=settings.chunk_tokens, overlap_tokens=settings.chunk_overlap)


def document_hash(document: ParsedDocument) -> str:
    """Changes when what was read changes (not when the file is merely touched or moved)."""
    return sha256_text(
        document.model_dump_json(include={"file_type", "title", "author", "blocks", "index"})
    )


def document_content_id(document: ParsedDocument, title: str, author: str | None) -> str:
    """A conversation of a chat export is identified by the export's own id, since many
    conversations share a title ("New chat"); everything else by title and author."""
    conversation = document.metadata.get("conversation_id")
    if conversation:
        return stable_id("content", "conversation", str(conversation))
    return content_id(title, author)


def _page_field(location: JSONObject) -> str | None:
    if location.get("page_label"):
        return str(location["page_label"])
    page = location.get("page")
    if page is None:
        return None
    end = location.get("page_end")
    return f"{page}–{end}" if end is not None else str(page)


def parse_document(
    document: ParsedDocument, cid: str, settings: Settings
) -> tuple[list[ParsedPassage], list[ParsedSection], list[str]]:
    """(passages, sections, warnings), with their ids.

    A passage whose text repeats an earlier one (a running header, a repeated slide) is
    kept once, like a repeated book-note quote: the id is the text within its Content.
    """
    chunked = chunk_document(document, chunking_config(settings))
    sections: list[ParsedSection] = [
        {
            "id": section_id(cid, position, section.text),
            "title": section.title[:1000],
            "text": section.text,
            "location": section.location,
            "position": position,
        }
        for position, section in enumerate(chunked.sections)
    ]
    passages: list[ParsedPassage] = []
    warnings: list[str] = []
    seen: set[str] = set()
    for passage in chunked.passages:
        qid = quote_id(cid, passage.text)
        if qid in seen:
            warnings.append(f"passage repeated in {passage.location}: kept once")
            continue
        seen.add(qid)
        section = sections[passage.section]
        passages.append(
            {
                "id": qid,
                "text": passage.text,
                "section": section["title"] or None,
                "page": _page_field(passage.location),
                "location": passage.location,
                "parent_id": section["id"],
                "images": passage.images,
            }
        )
    return passages, sections, warnings
