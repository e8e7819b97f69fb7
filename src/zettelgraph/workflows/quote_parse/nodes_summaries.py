"""One line per document passage at ingest, when `ZETTELGRAPH_PASSAGE_SUMMARIES` is on
(seed 004, stage 3; issue 31, item 6). Off by default: it costs a small call per 20 passages.
"""

from __future__ import annotations

from zettelgraph.context import Services
from zettelgraph.prompts import summarize_passages
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.workflows.calls import ask
from zettelgraph.workflows.quote_parse.state import ParsedPassage, QuoteParseState

NO_MODEL = (
    "passages not summarised: no chat model is configured (set ZETTELGRAPH_LLM, or turn "
    "ZETTELGRAPH_PASSAGE_SUMMARIES off)"
)


def summarize_passages_node(state: QuoteParseState, services: Services) -> QuoteParseState:
    """A line for each passage of a document that has none yet (a passage stored with one
    keeps it), a batch of passages per call of the fast model; a failed call leaves its
    passages without one and says so. Book notes are the reader's own quotes: none."""
    if not services.settings.passage_summaries or state.get("kind", "book") == "book":
        return {}
    if services.llms.configured_spec is None:
        return {"warnings": [NO_MODEL]}
    stored = {q.id: q.summary for q in services.store.quotes_of(state["content_id"])}
    passages = [
        ParsedPassage(**{**p, "summary": stored.get(p["id"], "")}) for p in state["parsed_quotes"]
    ]
    wanted = [p for p in passages if not p.get("summary")]
    lines: dict[str, str] = {}
    warnings: list[str] = []
    size = summarize_passages.BATCH
    for start in range(0, len(wanted), size):
        batch = wanted[start : start + size]
        ids = LocalIds("q", (p["id"] for p in batch))
        data = summarize_passages.SummarizePassagesInput(
            title=state["title"],
            passages=[
                summarize_passages.PromptPassage(id=ids.local(p["id"]), text=p["text"])
                for p in batch
            ],
            language=services.settings.concept_language,
        )
        asked = ask(
            services,
            name=summarize_passages.NAME,
            messages=summarize_passages.messages(data),
            response_model=summarize_passages.PassageLines,
            sampling=summarize_passages.SAMPLING,
            subject=f"passages {start + 1}-{start + len(batch)}",
            fast=True,
        )
        if asked.answer is None:
            warnings.append(
                f"{len(batch)} passages not summarised ({summarize_passages.NAME}: {asked.error})"
            )
            continue
        for line in asked.answer.lines:
            real = ids.real(line.passage_id)
            if real is not None:
                lines[real] = " ".join(line.summary.split())
    summarised = [
        ParsedPassage(**{**p, "summary": p.get("summary") or lines.get(p["id"], "")})
        for p in passages
    ]
    return {"parsed_quotes": summarised, "warnings": warnings}
