"""What grouping a document's passages by section costs and saves in call 1.1a's prompt
(issue 31, item 17): how many sections reading-order batches cut between two calls, how many
the batches by section cut, and how much the sections' clipped text adds to the prompt.

    python benchmarks/section_context.py docs/design.md [--batch 40]

The document is ingested with the fake model and the hash embedder into a home of its own
(no LLM call is made for the extraction: only its prompts are built). Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

from zettelgraph.context import Services, open_services
from zettelgraph.prompts import extract_concepts
from zettelgraph.prompts.source_reading import source_kind
from zettelgraph.settings import Settings
from zettelgraph.workflows.concept_extraction.sections import batches_of, section_context
from zettelgraph.workflows.concept_extraction.state import QuoteItem
from zettelgraph.workflows.quote_parse.graph import build_quote_parse_graph


def cut_sections(batches: Sequence[Sequence[QuoteItem]]) -> int:
    """Sections whose passages two consecutive batches share."""
    return sum(
        1
        for before, after in pairwise(batches)
        if before[-1].get("parent_id") and before[-1].get("parent_id") == after[0].get("parent_id")
    )


def prompt_words(batch: Sequence[QuoteItem], kind: str, services: Services, context: bool) -> int:
    """Words of the call's human message (the quotes and, with `context`, their sections)."""
    sections = section_context(batch, services) if context else None
    data = extract_concepts.ExtractConceptsInput(
        title="document",
        author=None,
        kind=source_kind(kind),
        quotes=[
            extract_concepts.PromptQuote(
                id=f"q{i + 1}",
                text=q["text"],
                section_id=sections.local(q.get("parent_id") or "") if sections else None,
            )
            for i, q in enumerate(batch)
        ],
        sections=sections.shown if sections else [],
    )
    return len(str(extract_concepts.messages(data)[1].content).split())


def measure(document: Path, size: int) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix="zg-sections-"))
    settings = Settings(home=home, llm="fake", embeddings="hash", llm_backoff=0.0)
    services = open_services(settings)
    try:
        result = build_quote_parse_graph(services).invoke({"file_path": str(document)})
        cid = result["content_id"]
        quotes = [
            QuoteItem(id=q.id, text=q.text, section=q.section, page=q.page, parent_id=q.parent_id)
            for q in services.store.quotes_of(cid)
        ]
        in_order = [quotes[i : i + size] for i in range(0, len(quotes), size)]
        by_section = batches_of(quotes, size)
        plain = sum(prompt_words(b, result["kind"], services, False) for b in by_section)
        shown = sum(prompt_words(b, result["kind"], services, True) for b in by_section)
        return {
            "document": document.name,
            "passages": len(quotes),
            "sections": len(services.store.sections_of(cid)),
            "batch_size": size,
            "reading_order": {"batches": len(in_order), "sections_cut": cut_sections(in_order)},
            "by_section": {"batches": len(by_section), "sections_cut": cut_sections(by_section)},
            "prompt_words_without_context": plain,
            "prompt_words_with_context": shown,
            "context_share_added": round(shown / plain - 1, 3) if plain else 0.0,
        }
    finally:
        services.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("document", type=Path)
    parser.add_argument("--batch", type=int, default=40, help="passages per call (default 40)")
    args = parser.parse_args()
    print(json.dumps(measure(args.document, args.batch), indent=2))


if __name__ == "__main__":
    main()
