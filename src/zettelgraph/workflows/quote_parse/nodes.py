"""Nodes of the Quote Parse Graph. Each takes the state and the run's Services and returns a
partial update; only `write_to_db` writes, in one store transaction."""

from __future__ import annotations

import itertools
import logging
from pathlib import Path
from typing import Any

from zettelgraph.context import Services
from zettelgraph.ingest.booknotes import (
    ParsedQuote,
    parse_booknotes,
)
from zettelgraph.ingest.chat_topics import exchange_texts, merge_topics
from zettelgraph.ingest.chunking import count_tokens
from zettelgraph.ingest.errors import KindChangeError
from zettelgraph.ingest.ocr import ocr_config
from zettelgraph.ingest.parsed import DocumentError, ParsedDocument
from zettelgraph.ingest.reading import graph_inputs
from zettelgraph.llm.embeddings import is_semantic
from zettelgraph.llm.structured import SOFT_LLM_ERRORS
from zettelgraph.models import (
    ChangeSet,
    Content,
    Person,
    Quote,
    Relation,
    Section,
    content_id,
    person_id,
    quote_id,
    sha256_text,
)
from zettelgraph.packs.relations import AUTHORED_BY, IN_SECTION, NEXT, QUOTED_IN, SECTION_OF
from zettelgraph.prompts import author_bio, book_summary
from zettelgraph.text.keywords import key_words
from zettelgraph.text.summaries import SHORT_SUMMARY_WORDS, SUMMARY_WORDS, clip_words, short_summary
from zettelgraph.workflows.calls import ask
from zettelgraph.workflows.quote_parse.documents import (
    document_content_id,
    document_hash,
    parse_document,
)
from zettelgraph.workflows.quote_parse.state import ParsedPassage, QuoteParseState

log = logging.getLogger(__name__)


def read_file(state: QuoteParseState, services: Services) -> QuoteParseState:
    """The file's text (book notes) or document, as `ingest.reading` decides, unless the
    caller already read it (the ingest service does; so does one conversation of a chat
    export)."""
    if state.get("document"):
        document = ParsedDocument.model_validate(state["document"])
        return {"content_hash": document_hash(document)}
    if text := state.get("text"):
        return {"content_hash": sha256_text(text)}
    path = Path(state["file_path"])
    max_bytes = int(services.settings.max_file_mb * 1024 * 1024)
    inputs = graph_inputs(
        path,
        file_type=state.get("file_type"),
        max_bytes=max_bytes,
        scanned=False,
        ocr=ocr_config(services.settings),
    )
    if len(inputs) > 1:
        raise DocumentError(
            f"holds {len(inputs)} conversations; ingest it with `zettelgraph ingest`, "
            "which reads each one",
            path=str(path),
        )
    read = inputs[0]
    if "text" in read:
        return {"text": read["text"], "content_hash": sha256_text(read["text"])}
    document = ParsedDocument.model_validate(read["document"])
    return {"document": read["document"], "content_hash": document_hash(document)}


def parse_quotes(state: QuoteParseState, services: Services) -> QuoteParseState:
    """Parse the notes (or chunk the document) and compare with what the store holds."""
    path = Path(state["file_path"])
    if state.get("document"):
        document = ParsedDocument.model_validate(state["document"])
        title = (state.get("title_flag") or document.title or path.stem).strip()
        author = (state.get("author_flag") or document.author or "").strip() or None
        cid = document_content_id(document, title, author)
        document = _chat_topics(document, services)
        parsed, sections, warnings = parse_document(document, cid, services.settings)
        warnings = [*document.warnings, *warnings]
        metadata: dict[str, Any] = {**document.metadata, "file_type": document.file_type}
        kind: str = document.file_type
    else:
        notes = parse_booknotes(state.get("text") or "", source=str(path))
        title = (state.get("title_flag") or notes.title or path.stem).strip()
        author = (state.get("author_flag") or notes.author or "").strip() or None
        cid = content_id(title, author)
        parsed, warnings = _book_quotes(notes.quotes, cid)
        warnings = [*notes.warnings, *warnings]
        sections, metadata, kind = [], notes.metadata, "book"
    if author is None:
        warnings.append("no author in the file or --author: stored without one")

    existing = services.store.get_content(cid)
    if existing is not None and existing.kind != kind and not state.get("replace_kind"):
        raise KindChangeError(
            f"{title!r} is stored as {_kind_name(existing.kind)} (content {cid[:8]}); read as "
            f"{_kind_name(kind)}, this file would replace it and its quotes. Ingest it as "
            f"{_kind_name(existing.kind)} (`--type {_type_flag(existing.kind)}`), give it "
            "another `--title` to keep both, or add `--replace-kind` to replace it",
            path=str(path),
        )
    update: QuoteParseState = {
        "content_id": cid,
        "kind": kind,
        "title": title,
        "author": author,
        "metadata": metadata,
        "parsed_quotes": parsed,
        "sections": sections,
        "quotes_total": len(parsed),
        "warnings": warnings,
    }
    if existing is None:
        return {**update, "status": "new", "quotes_added": len(parsed), "removed_quotes": []}
    seen = {q["id"] for q in parsed}
    stored = services.store.quotes_of(cid)
    stored_ids = {q.id for q in stored}
    added = [q for q in parsed if q["id"] not in stored_ids]
    removed = [q.text for q in stored if q.id not in seen]
    unchanged = existing.content_hash == state["content_hash"]
    return {
        **update,
        "status": "unchanged" if unchanged else "updated",
        "quotes_added": len(added),
        "removed_quotes": removed,
    }


def _chat_topics(document: ParsedDocument, services: Services) -> ParsedDocument:
    """A transcript with its consecutive exchanges on one topic in one group
    (`ingest/chat_topics.py`). Only with an embedder whose vectors carry meaning: word-overlap
    vectors would join exchanges that merely share words."""
    if document.file_type != "transcript" or not is_semantic(services.embedder):
        return document
    texts = exchange_texts(document.blocks)
    if len(texts) < 2:
        return document
    vectors = services.embedder.embed(texts)
    blocks = merge_topics(document.blocks, vectors, services.thresholds.topic)
    return document.model_copy(update={"blocks": blocks})


def _kind_name(kind: str) -> str:
    return "book notes" if kind == "book" else f"a {kind} document"


def _type_flag(kind: str) -> str:
    """The `--type` that reads a file as `kind`."""
    return "notes" if kind == "book" else kind


def _book_quotes(quotes: list[ParsedQuote], cid: str) -> tuple[list[ParsedPassage], list[str]]:
    parsed: list[ParsedPassage] = []
    warnings: list[str] = []
    seen: dict[str, int] = {}
    for quote in quotes:
        qid = quote_id(cid, quote.text)
        if qid in seen:
            warnings.append(f"line {quote.line}: same quote as line {seen[qid]}; kept once")
            continue
        seen[qid] = quote.line
        parsed.append(
            {
                "id": qid,
                "text": quote.text,
                "section": quote.section,
                "page": quote.page,
                "location": {"line": quote.line},
                "parent_id": None,
            }
        )
    return parsed, warnings


NO_MODEL_NO_SUMMARY = "no summary: no LLM is configured (`zettelgraph doctor` says how to set one)"


def make_summary(state: QuoteParseState, services: Services) -> QuoteParseState:
    spec = services.llms.configured_spec
    if spec is None:  # book notes are ingested without a model; only the summary waits
        return {"summary": "", "summary_short": "", "warnings": [NO_MODEL_NO_SUMMARY]}
    model = services.llms.profile(spec)
    if not model.writes_book_summary:
        return {"summary": "", "summary_short": ""}
    notes = "\n\n".join(q["text"] for q in state["parsed_quotes"])
    compact = model.compact
    data = book_summary.BookSummaryInput(
        title=state["title"],
        author=state.get("author"),
        notes=notes,
        language=services.settings.concept_language,
        compact=compact,
    )
    asked = ask(
        services,
        name=book_summary.NAME,
        messages=book_summary.messages(data),
        response_model=book_summary.response_model(compact),
    )
    if asked.answer is None:
        log.warning("summary of %s failed: %s", state["file_path"], asked.error)
        return {"summary": "", "summary_short": "", "warnings": [f"no summary: {asked.error}"]}
    result = asked.answer
    return {
        "summary": clip_words(result.summary, SUMMARY_WORDS),
        "summary_short": clip_words(result.summary_short, SHORT_SUMMARY_WORDS)
        if isinstance(result, book_summary.BookSummary)
        else short_summary(result.summary),
    }


def get_or_create_author(state: QuoteParseState, services: Services) -> QuoteParseState:
    name = state.get("author")
    if not name:
        return {"author_id": None, "new_author": None}
    existing = services.store.find_person(name)
    if existing is not None:
        return {"author_id": existing.id, "new_author": None}
    # Without a biography, what the book itself says of them: they wrote it ("Author").
    fallback = f"Author of {state['title']}"
    person = Person(
        id=person_id(name), name=name, summary=fallback, summary_short=fallback, occupation="Author"
    )
    warnings: list[str] = []
    if services.enrich_author is not None:
        try:
            bio = services.enrich_author(name, state["title"])
        except SOFT_LLM_ERRORS as exc:
            bio = None
            warnings.append(f"no biography for {name}: {exc}")
        if bio is not None:
            summary = clip_words(bio.summary, SUMMARY_WORDS)
            if isinstance(bio, author_bio.Biography):
                # Where it comes from ends the summary, within its 100 words: the sources its
                # [n] markers cite, or the note that it is the model's unverified memory.
                note = author_bio.provenance_note(bio.sources, services.settings.concept_language)
                kept = clip_words(bio.summary, max(1, SUMMARY_WORDS - len(note.split())))
                summary = f"{kept} {note}"
                warnings.extend(bio.warnings)
            person = person.model_copy(
                update={
                    "summary": summary,
                    "summary_short": clip_words(bio.summary_short, SHORT_SUMMARY_WORDS),
                    "occupation": bio.occupation,
                }
            )
    return {
        "author_id": person.id,
        "new_author": person.model_dump(mode="json"),
        "warnings": warnings,
    }


def reading_chain(quotes: list[Quote]) -> list[Relation]:
    """`NEXT` from each passage to the one after it in the file as read now. A passage no
    longer in the file loses its edges (the write deletes them), so the chain is always one
    reading, never two spliced."""
    return [
        Relation(source_id=a.id, target_id=b.id, type=NEXT) for a, b in itertools.pairwise(quotes)
    ]


def write_to_db(state: QuoteParseState, services: Services) -> QuoteParseState:
    """Content, author, quotes, vectors and their relations in one transaction."""
    store = services.store
    cid = state["content_id"]
    existing = store.get_content(cid)
    content = Content(
        id=cid,
        title=state["title"],
        kind=state.get("kind", "book"),
        source_path=str(Path(state["file_path"]).resolve()),
        content_hash=state["content_hash"],
        summary=state.get("summary", ""),
        summary_short=state.get("summary_short", ""),
        metadata=state.get("metadata", {}),
    )
    if existing is not None:
        # Keep when it was first read, whether concepts were already extracted from it, and
        # its summary when no new one was made (no new quotes, or the LLM failed).
        kept: dict[str, Any] = {
            "created_at": existing.created_at,
            "processed_date": existing.processed_date,
        }
        if not content.summary:
            kept.update(summary=existing.summary, summary_short=existing.summary_short)
        content = content.model_copy(update=kept)
    stored = {q.id: q for q in store.quotes_of(cid)} if existing is not None else {}
    sections = [Section(content_id=cid, **item) for item in state.get("sections", [])]
    quotes: list[Quote] = []
    items = state["parsed_quotes"]
    keywords = key_words([item["text"] for item in items])
    for position, (item, words) in enumerate(zip(items, keywords, strict=True)):
        quote = Quote(
            content_id=cid,
            position=position,
            keywords=words,
            token_count=count_tokens(item["text"]),
            **item,
        )
        if quote.id in stored:
            quote = quote.model_copy(update={"created_at": stored[quote.id].created_at})
        quotes.append(quote)

    services.store.ensure_embedder(services.embedder.name, services.embedder.dim)
    vectors = services.embedder.embed([q.text for q in quotes])
    relations = [Relation(source_id=q.id, target_id=cid, type=QUOTED_IN) for q in quotes]
    relations += [Relation(source_id=s.id, target_id=cid, type=SECTION_OF) for s in sections]
    relations += [
        Relation(source_id=q.id, target_id=q.parent_id, type=IN_SECTION)
        for q in quotes
        if q.parent_id is not None
    ]
    chain = reading_chain(quotes)
    relations += chain
    stale = [
        r.key
        for r in store.relations_of(list(stored), direction="out")
        if r.type == NEXT and r.key not in {c.key for c in chain}
    ]
    persons: list[Person] = []
    if state.get("new_author"):
        persons.append(Person.model_validate(state["new_author"]))
    if state.get("author_id"):
        relations.append(Relation(source_id=cid, target_id=state["author_id"], type=AUTHORED_BY))
    store.apply(
        ChangeSet(
            contents=[content],
            persons=persons,
            sections=sections,
            quotes=quotes,
            relations=relations,
            vectors={q.id: vectors[i] for i, q in enumerate(quotes)},
            delete_relations=stale,
        )
    )
    warnings: list[str] = []
    if existing is not None and existing.processed_date is not None and state.get("quotes_added"):
        warnings.append(
            f"{state['quotes_added']} new quotes in a Content whose concepts were already "
            "extracted: run concept extraction again with --force to use them"
        )
    return {"warnings": warnings}
