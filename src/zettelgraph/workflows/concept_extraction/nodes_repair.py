"""Proposal checks, the rewriting half: repair_concept (a `Send` per concept check_concepts
flagged, or per quote no concept cited) -> collect_repairs, which judges every rewrite again and
drops what is still off its quotes, in another language or a copy of its quote.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zettelgraph.context import Services
from zettelgraph.guards import Finding
from zettelgraph.prompts import repair_concept
from zettelgraph.text.summaries import short_summary, tidy_statement
from zettelgraph.workflows.calls import CallRecord, ask
from zettelgraph.workflows.concept_extraction.nodes_checks import (
    flaws_of,
    ground,
    grounded_clause_title,
    guard_of,
    logged,
    off_topic_finding,
)
from zettelgraph.workflows.concept_extraction.proposal import quote_texts
from zettelgraph.workflows.concept_extraction.state import (
    DraftConcept,
    ExtractionState,
    Flaws,
    Repair,
    RepairPayload,
)


def _with_rewrite(concept: DraftConcept, fields: Mapping[str, Any]) -> DraftConcept:
    """The concept with a rewrite's reader fields; the new statement stands in for the summary.
    A rewrite with no statement (task `titles`) renames the concept and keeps its draft."""
    if "concept" not in fields:
        history = [*concept["history"], repair_concept.NAME]
        return {**concept, "title": fields["title"], "history": history}
    statement = tidy_statement(fields["concept"])
    return DraftConcept(
        key=concept["key"],
        title=fields["title"],
        concept=statement,
        analysis=fields.get("analysis", ""),
        summary=statement,
        # A small model's rewrite has none: cut from its concept, as at extraction.
        summary_short=fields.get("summary_short") or short_summary(statement),
        quote_ids=concept["quote_ids"],
        rationale=concept["rationale"],
        history=[*concept["history"], repair_concept.NAME],
    )


def _rewrite_flaws(
    concept: DraftConcept,
    answer: repair_concept.CompactRepair | repair_concept.TitleRepair,
    quotes: Sequence[str],
    services: Services,
    source: Mapping[str, Any],
) -> Flaws:
    """The flaws a rewrite still has: another language, a copied quote, or, judged as
    check_concepts judges a concept, none of its quotes about it or a title that names the
    book. collect_repairs judges the final answer again."""
    ids = [str(i) for i in range(len(quotes))]
    texts = dict(zip(ids, quotes, strict=True))
    draft = _with_rewrite({**concept, "quote_ids": ids}, answer.model_dump())
    _, _, orphans = ground([draft], texts, services, source)
    return {**flaws_of(draft, texts, services), "off_topic": bool(orphans)}


def _flaw_score(flaws: Mapping[str, Any]) -> tuple[int, int]:
    """How bad an answer is, worst first: the flaws a concept is dropped for (another language,
    a copied quote, off its quotes), then a title that is a sentence (flagged, not dropped)."""
    fatal = sum(bool(flaws.get(f)) for f in ("wrong_language", "copies_quote", "off_topic"))
    return fatal, int(bool(flaws.get("long_title")))


def repair_concept_node(payload: RepairPayload, services: Services) -> ExtractionState:
    """A focused rewrite of a flagged concept (a `Send` branch): one call, then up to two more,
    afresh from the quotes and warmer, while the rewrite still copies its quote, is still in
    another language or is still not about its quotes. The answer with the fewest flaws is
    kept (the last of equals): a warmer try can be worse than the one before it, and a rewrite
    asked only for a shorter title must beat the concept it rewrites."""
    concept: DraftConcept = payload["concept"]
    data = repair_concept.RepairInput(
        title=concept["title"],
        concept=concept["concept"],
        analysis=concept["analysis"],
        summary_short=concept["summary_short"],
        quotes=payload["quotes"],
        wrong_language=payload["wrong_language"],
        copies_quote=payload["copies_quote"],
        long_title=payload.get("long_title", False),
        off_topic=payload.get("off_topic", False),
        language=services.settings.concept_language,
        compact=services.llms.main_profile.compact,
        key_words=payload.get("key_words", []),
        task=services.llms.main_profile.task,
    )
    calls: list[CallRecord] = []
    error = ""
    best: (
        tuple[tuple[int, int], repair_concept.CompactRepair | repair_concept.TitleRepair] | None
    ) = None
    if _flaw_score(payload) == (0, 1):
        # Only the title is a sentence: the concept itself stands, so a rewrite must beat it (a
        # rewrite off its quotes would be dropped, and the quote with it).
        best = (
            (0, 1),
            # Not validated: the concept's own fields may run past a rewrite's bounds.
            repair_concept.RepairedConcept.model_construct(
                title=concept["title"],
                concept=concept["concept"],
                analysis=concept["analysis"],
                summary_short=concept["summary_short"],
            ),
        )
    for sampling in repair_concept.TRIES:
        asked = ask(
            services,
            name=repair_concept.NAME,
            messages=repair_concept.messages(data),
            response_model=repair_concept.response_model(data),
            sampling=sampling,
            subject=concept["key"],
        )
        calls.append(asked.record)
        if asked.answer is None:
            # A failed try (a reply that ran past its token limit, say) is one bad sample: the
            # next, warmer try is a fresh one.
            error = str(asked.error)
            if isinstance(asked.error, TimeoutError | ConnectionError):
                break  # the model is unreachable: another try would wait as long again
            data = data.model_copy(update={"retry": True})
            continue
        answer = asked.answer
        flaws = _rewrite_flaws(concept, answer, data.quotes, services, payload.get("source", {}))
        score = _flaw_score(flaws)
        if best is None or score <= best[0]:
            best = (score, answer)
        if score == (0, 0):
            break
        data = data.model_copy(
            update={
                "retry": True,
                "wrong_language": flaws["wrong_language"],
                "copies_quote": flaws["copies_quote"],
                "long_title": flaws["long_title"],
            }
        )
    if best is None:
        return {"repairs": [{"key": concept["key"], "error": error}], "llm_calls": calls}
    return {"repairs": [_repair(concept["key"], best[1])], "llm_calls": calls}


def _repair(key: str, answer: repair_concept.CompactRepair | repair_concept.TitleRepair) -> Repair:
    """A rewrite as the state keeps it: the fields the model wrote."""
    repair: Repair = {"key": key, "title": answer.title}
    if isinstance(answer, repair_concept.CompactRepair):
        repair["concept"] = answer.concept
    if isinstance(answer, repair_concept.RepairedConcept):
        repair["analysis"] = answer.analysis
        repair["summary_short"] = answer.summary_short
    return repair


def collect_repairs(state: ExtractionState, services: Services) -> ExtractionState:
    """Apply the rewrites and check again: what is still off its quotes, in another language
    or a copy of its quote is dropped. A concept asked for an uncovered quote that the model
    could not write is dropped; another whose rewrite failed is kept, flagged."""
    quotes = quote_texts(state.get("quotes", []))
    repairs = {r["key"]: r for r in state.get("repairs", [])}
    requests = {r["key"]: r for r in state.get("repair_requests", [])}
    findings: list[Finding] = []
    rewritten: list[DraftConcept] = []
    for concept in state.get("candidates", []):
        key = concept["key"]
        repair = repairs.get(key)
        if key not in requests or repair is None:
            if key not in requests or not requests[key].get("uncovered"):
                rewritten.append(concept)
            continue
        if "error" in repair:
            uncovered = requests[key].get("uncovered", False)
            subject = f"quote {quotes[concept['quote_ids'][0]][:60]!r}" if uncovered else None
            findings.append(
                Finding(
                    guard_of(requests[key]),
                    "dropped" if uncovered else "flagged",
                    subject or repr(concept["title"]),
                    f"the rewrite failed: {repair['error'][:200]}",
                )
            )
            if not uncovered:
                rewritten.append(concept)
            continue
        rewritten.append(_with_rewrite(concept, repair))
    regrounded, grounding, orphans = ground(
        [c for c in rewritten if c["key"] in requests], quotes, services, state.get("content", {})
    )
    findings.extend(grounding)
    findings.extend(off_topic_finding(orphan, "dropped") for orphan in orphans)
    alive = {c["key"]: c for c in regrounded}
    kept: list[DraftConcept] = []
    for concept in rewritten:
        if concept["key"] in requests:
            if concept["key"] not in alive:
                continue
            concept = alive[concept["key"]]
            flaws = flaws_of(concept, quotes, services)
            if flaws["wrong_language"]:
                findings.append(
                    Finding(
                        "language",
                        "dropped",
                        repr(concept["title"]),
                        "still not in the graph's language after a rewrite: "
                        + ", ".join(flaws["wrong_language"]),
                    )
                )
                continue
            if flaws["copies_quote"]:
                # A note that repeats its quote adds nothing the quote does not say; the quote
                # stays in the report, unattributed, for the reader to decide.
                findings.append(
                    Finding(
                        "distillation",
                        "dropped",
                        repr(concept["title"]),
                        "it still copies its quote after a rewrite",
                    )
                )
                continue
            request = requests[concept["key"]]
            source = state.get("content", {})
            short = (
                grounded_clause_title(concept, quotes, services, source)
                if flaws["long_title"]
                else None
            )
            if short:
                # The idea may be sound, and the title becomes the vault note's file name: its
                # first clause, when that is a name on its own, stands in for the sentence.
                findings.append(
                    Finding(
                        guard_of(request),
                        "repaired",
                        repr(concept["title"]),
                        f"its title was still a sentence after a rewrite: cut to {short!r}",
                    )
                )
                concept = {**concept, "title": short}
            elif flaws["long_title"]:
                # The idea may be sound: it reaches the reader, flagged, for a shorter title.
                findings.append(
                    Finding(
                        guard_of(request),
                        "flagged",
                        repr(concept["title"]),
                        "its title is still a sentence after a rewrite: give it a short one",
                    )
                )
            elif request.get("uncovered"):
                findings.append(
                    Finding(
                        "coverage",
                        "added",
                        repr(concept["title"]),
                        "written from a quote no other concept cited",
                    )
                )
            else:
                findings.append(
                    Finding(guard_of(request), "repaired", repr(concept["title"]), "rewritten")
                )
        kept.append(concept)
    return {"candidates": kept, **logged(findings)}
