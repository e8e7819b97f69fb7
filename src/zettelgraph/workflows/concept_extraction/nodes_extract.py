"""Load the Content, extract candidates per batch, merge them across batches."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from zettelgraph.context import Services
from zettelgraph.models.locations import quote_place
from zettelgraph.packs.relations import SUPPORTS
from zettelgraph.prompts import extract_concepts
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.prompts.source_reading import source_kind
from zettelgraph.text.keywords import key_words
from zettelgraph.text.summaries import short_summary, tidy_statement
from zettelgraph.workflows.calls import ask
from zettelgraph.workflows.concept_extraction.proposal import (
    other_names,
    quote_map,
    resolve_quotes,
    title_key,
)
from zettelgraph.workflows.concept_extraction.sections import SectionContext, section_context
from zettelgraph.workflows.concept_extraction.small_tasks import (
    draft_fields,
    gloss_rationale,
    prepare,
)
from zettelgraph.workflows.concept_extraction.state import (
    BatchCandidate,
    BatchPayload,
    BatchResult,
    DraftConcept,
    ExtractionState,
    QuoteItem,
    empty_proposal,
)

log = logging.getLogger(__name__)


def check_content_processed(state: ExtractionState, services: Services) -> ExtractionState:
    content = services.store.get_content(state["content_id"])
    if content is None:
        raise ValueError(
            f"no content with id {state['content_id']}: `zettelgraph contents` lists them"
        )
    author = services.store.author_of(content.id)
    update: ExtractionState = {
        "content": {
            "title": content.title,
            "author": author.name if author else None,
            "kind": content.kind,
        },
        "status": "running",
        "proposal": empty_proposal(),
        "phase_1_iteration": 0,
        "phase_2_iteration": 0,
        "graph_concepts": services.store.counts()["Concept"],
        "processed_at_start": (
            content.processed_date.isoformat() if content.processed_date else None
        ),
    }
    if content.processed_date is not None and not state.get("force"):
        quotes = services.store.quotes_of(content.id)
        # Quotes the reader's review left without a concept stay open for a later run.
        open_ids = [
            q.id
            for q in quotes
            if not services.store.relations(q.id, relation_type=SUPPORTS, direction="out")
        ]
        if open_ids:
            update["open_only"] = open_ids
            update["warnings"] = [
                f"'{content.title}' was processed on {content.processed_date:%Y-%m-%d}; "
                f"{len(open_ids)} of its {len(quotes)} quotes support no concept yet: "
                "extracting only those (--force extracts every quote again)"
            ]
            return update
        update["status"] = "skipped"
        update["warnings"] = [
            f"'{content.title}' was already processed on {content.processed_date:%Y-%m-%d}, "
            "and every quote supports a concept; use --force to extract again (existing "
            "concepts are kept, new ones added)"
        ]
    return update


def load_content_quotes(state: ExtractionState, services: Services) -> ExtractionState:
    stored = services.store.quotes_of(state["content_id"])
    # Key words are shown to small models only, and only for a quote in the graph's language:
    # another's would pull the title into that language (the language check would send it back).
    words = (
        key_words([q.text for q in stored], only_language=services.settings.concept_language)
        if services.llms.main_profile.compact
        else [[] for _ in stored]
    )
    only = set(state.get("open_only") or [])
    quotes = [
        QuoteItem(
            id=q.id,
            text=q.text,
            section=q.section,
            page=q.page,
            key_words=found,
            parent_id=q.parent_id,
            place=quote_place(q),
        )
        for q, found in zip(stored, words, strict=True)
        if not only or q.id in only
    ]
    if not quotes:
        return {
            "quotes": [],
            "status": "no_quotes",
            "warnings": ["this content has no quotes: nothing to extract"],
        }
    return {"quotes": quotes}


def extract_batch(payload: BatchPayload, services: Services) -> ExtractionState:
    """Extract candidate concepts from one batch of quotes (a `Send` branch)."""
    quotes = payload["quotes"]
    qmap = quote_map(payload["all_quotes"])
    compact = services.llms.main_profile.compact
    sections = SectionContext() if compact else section_context(quotes, services)
    data = extract_concepts.ExtractConceptsInput(
        title=payload["content"]["title"],
        author=payload["content"]["author"],
        kind=source_kind(payload["content"].get("kind", "book")),
        quotes=[
            extract_concepts.PromptQuote(
                id=qmap.local(q["id"]),
                text=q["text"],
                section=q["section"],
                page=q["page"],
                key_words=q.get("key_words", []),
                section_id=sections.local(q.get("parent_id") or ""),
            )
            for q in quotes
        ],
        sections=sections.shown,
        suggestions=payload.get("suggestions"),
        language=services.settings.concept_language,
        compact=compact,
        task=services.llms.main_profile.task,
    )
    where = f"{extract_concepts.NAME} (batch {payload['index'] + 1})"
    subject = f"batch {payload['index']}"
    # A task's first calls (a gloss, a translation) before the extraction itself.
    prepared = prepare(data, services, subject)
    data = prepared.data
    warnings: list[str] = [f"{where}: {warning}" for warning in prepared.warnings]
    asked = ask(
        services,
        name=extract_concepts.NAME,
        messages=extract_concepts.messages(data),
        response_model=extract_concepts.response_model(data),
        sampling=extract_concepts.sampling(data),
        subject=subject,
    )
    calls = [*prepared.calls, asked.record]
    if asked.answer is None:
        lost = f"{where} failed, its {len(quotes)} quotes were not read"
        unread: ExtractionState = {
            "batch_results": [{"index": payload["index"], "candidates": [], "failed": True}],
            "warnings": warnings,
            "llm_calls": calls,
        }
        return asked.failed(unread, lost, error=True)
    result = asked.answer
    batch_ids = {q["id"] for q in quotes}
    candidates: list[BatchCandidate] = []
    for item in result.candidate_concepts:
        cited = getattr(item, "source_quote_ids", None)
        if cited is None:  # a call on one quote: its concepts are that quote's
            cited = [quote.id for quote in data.quotes]
        ids = resolve_quotes(cited, qmap, where, warnings)
        outside = [i for i in ids if i not in batch_ids]
        if outside:
            warnings.append(f"{where}: dropped {len(outside)} quote ids from outside the batch")
        ids = [i for i in ids if i in batch_ids]
        if not ids:
            warnings.append(f"{where}: dropped concept {item.title!r}, it cites no quote shown")
            continue
        fields = item.model_dump(exclude={"source_quote_ids"})
        if isinstance(item, extract_concepts.OneQuoteTitle):
            # Task `titles`: the statement is the quote (or its translation), a draft.
            fields.update(draft_fields(data.quotes[0], data.language))
        else:
            fields["concept"] = tidy_statement(item.concept)
        # The compact answer is a title and a concept: the short summary is cut from the
        # concept, the rest left empty.
        cut = {"analysis": "", "summary": "", "rationale": ""}
        cut["summary_short"] = short_summary(fields["concept"])
        cut["rationale"] = gloss_rationale(prepared.gloss, data.language)
        made = {**cut, **fields}
        candidates.append(
            BatchCandidate(
                title=made["title"],
                concept=made["concept"],
                analysis=made["analysis"],
                summary=made["summary"],
                summary_short=made["summary_short"],
                rationale=made["rationale"],
                quote_ids=ids,
                synonyms=other_names(made["title"], made.get("synonyms", [])),
            )
        )
    # An answer whose every concept cited quotes it was not shown is a failed call, not an
    # empty one: the model invented ids.
    failed = bool(result.candidate_concepts) and not candidates
    notes = ""
    reasons: dict[str, str] = {}
    if isinstance(result, extract_concepts.ExtractedConcepts):  # the compact answer has neither
        notes = result.extraction_notes.strip()
        reasons = unattributed_reasons(result.unattributed_quotes, qmap, batch_ids, where, warnings)
    batch = BatchResult(
        index=payload["index"],
        candidates=candidates,
        failed=failed,
        notes=notes,
        unattributed=reasons,
    )
    return {
        "batch_results": [batch],
        "errors": [f"{where}: every concept cited quotes it was not shown"] if failed else [],
        "warnings": warnings,
        "llm_calls": calls,
    }


def unattributed_reasons(
    items: list[extract_concepts.UnattributedQuote],
    qmap: LocalIds,
    batch_ids: set[str],
    where: str,
    warnings: list[str],
) -> dict[str, str]:
    """Quote id -> why the model found no concept in it, for the quotes of the batch."""
    reasons: dict[str, str] = {}
    for item in items:
        real = qmap.real(item.quote_id)
        if real is None or real not in batch_ids:
            warnings.append(f"{where}: dropped the reason given for {item.quote_id!r}, not shown")
        else:
            reasons[real] = item.reason.strip()
    return reasons


def merge_candidates(state: ExtractionState, services: Services) -> ExtractionState:
    """Candidates of different batches that say the same thing become one, quotes united.

    When every batch failed the run is `failed`: there is nothing a reader could review, and
    approving an empty proposal would mark the content processed with nothing read."""
    ordered = sorted(state.get("batch_results", []), key=lambda r: r["index"])
    if ordered and all(r.get("failed") for r in ordered):
        return {
            "candidates": [],
            "status": "failed",
            "warnings": [
                f"every extraction call failed ({len(ordered)}): nothing to review; the content "
                "stays unprocessed. Check the model (`zettelgraph doctor`) and extract again"
            ],
        }
    items = [c for result in ordered for c in result["candidates"]]
    # What the calls said beyond their concepts, for the review.
    several = len(ordered) > 1
    notes = [
        f"batch {r['index'] + 1}: {r['notes']}" if several else r["notes"]
        for r in ordered
        if r.get("notes")
    ]
    reasons = {q: why for r in ordered for q, why in r.get("unattributed", {}).items() if why}
    merged: list[DraftConcept] = []
    vectors: list[np.ndarray[Any, Any]] = []
    titles: dict[str, int] = {}
    embedded = (
        services.embedder.embed([f"{c['title']}. {c['summary_short']}" for c in items])
        if items
        else None
    )
    for index, item in enumerate(items):
        vector = embedded[index] if embedded is not None else None
        # A title another batch gave as a synonym (or the reverse) names the same idea.
        names = [item["title"], *item.get("synonyms", [])]
        twin = next((titles[k] for n in names if (k := title_key(n)) in titles), None)
        if twin is None and vector is not None and vectors:
            scores = np.stack(vectors) @ vector
            best = int(np.argmax(scores))
            if float(scores[best]) >= services.thresholds.merge:
                twin = best
        if twin is not None:
            kept = merged[twin]
            kept["quote_ids"] = list(dict.fromkeys([*kept["quote_ids"], *item["quote_ids"]]))
            kept["history"].append("merged across batches")
            kept["synonyms"] = other_names(kept["title"], [*kept.get("synonyms", []), *names])
            continue
        for name in names:
            titles.setdefault(title_key(name), len(merged))
        if vector is not None:
            vectors.append(vector / (np.linalg.norm(vector) or 1.0))
        merged.append(
            DraftConcept(
                key=f"c{len(merged) + 1}",
                title=item["title"],
                concept=item["concept"],
                analysis=item["analysis"],
                # A small model may leave the summary out; the concept stands in for it.
                summary=item["summary"] or item["concept"],
                summary_short=item["summary_short"],
                quote_ids=item["quote_ids"],
                rationale=item["rationale"],
                history=[extract_concepts.NAME],
                synonyms=item.get("synonyms", []),
            )
        )
    return {"candidates": merged, "extraction_notes": notes, "unattributed_reasons": reasons}
