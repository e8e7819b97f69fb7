"""Proposal checks (issue 11): deterministic guards between the model and the reader.

check_concepts (no LLM) -> repair_concept (Send per flagged concept) -> collect_repairs, right
after the candidates are merged, so duplicates and relations are judged on concepts that are
grounded and in the graph's language; check_relations (no LLM) after the relations, and after
every refinement or feedback patch. Every action is a finding: logged, counted in the report
and shown as a warning.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from zettelgraph.embeddings import is_semantic
from zettelgraph.guards import Action, Finding, Guard
from zettelgraph.guards.distillation import copied_quote
from zettelgraph.guards.grounding import concept_text, ungrounded
from zettelgraph.guards.language import off_language_fields
from zettelgraph.guards.relations import End, RelationLimits, check_relations
from zettelgraph.llm.structured import SOFT_LLM_ERRORS
from zettelgraph.prompts import repair_concept
from zettelgraph.store.vector_index import normalize_rows
from zettelgraph.workflows.concept_extraction.nodes_extract import llm_call
from zettelgraph.workflows.concept_extraction.proposal import is_key, quote_texts
from zettelgraph.workflows.concept_extraction.state import (
    DraftConcept,
    ExtractionState,
    Proposal,
)
from zettelgraph.workflows.context import Services

# An explanation is a paste when nearly all its words come from one end's text.
EXPLANATION_COPY_LIMIT = 0.9


def _logged(findings: Iterable[Finding]) -> dict[str, Any]:
    found = list(findings)
    return {
        "check_log": [f.as_dict() for f in found],
        "warnings": [f.message() for f in found],
    }


def _ground(
    concepts: Sequence[DraftConcept], quotes: Mapping[str, str], services: Services
) -> tuple[list[DraftConcept], list[Finding], list[tuple[DraftConcept, str]]]:
    """Concepts with their far quotes taken off, what was done, and the concepts none of
    whose quotes is about them (left out of the first list; the caller rewrites or drops)."""
    if not concepts:
        return [], [], []
    if not is_semantic(services.embedder):
        return list(concepts), [], []
    cited = sorted({q for c in concepts for q in c["quote_ids"] if q in quotes})
    vectors = services.embedder.embed(
        [concept_text(c) for c in concepts] + [quotes[q] for q in cited]
    )
    quote_vectors = {q: vectors[len(concepts) + i] for i, q in enumerate(cited)}
    threshold = services.settings.grounding_threshold
    kept: list[DraftConcept] = []
    findings: list[Finding] = []
    orphans: list[tuple[DraftConcept, str]] = []
    for index, concept in enumerate(concepts):
        far = ungrounded(vectors[index], quote_vectors, concept["quote_ids"], threshold)
        if not far:
            kept.append(concept)
            continue
        gone = {q for q, _ in far}
        left = [q for q in concept["quote_ids"] if q not in gone]
        scores = ", ".join(f"{s:.2f}" for _, s in far)
        if not left:
            orphans.append((concept, f"similarity {scores} < {threshold:.2f}"))
            continue
        findings.append(
            Finding(
                "grounding",
                "dropped",
                f"{len(far)} quote(s) of {concept['title']!r}",
                f"they are not about it (similarity {scores} < {threshold:.2f})",
            )
        )
        kept.append({**concept, "quote_ids": left})
    return kept, findings, orphans


def _off_topic(orphan: tuple[DraftConcept, str], action: Action) -> Finding:
    concept, scores = orphan
    return Finding(
        "grounding", action, repr(concept["title"]), f"none of its quotes is about it ({scores})"
    )


def _flaws(concept: DraftConcept, quotes: Mapping[str, str], services: Services) -> dict[str, Any]:
    """What a rewrite must fix: fields in another language, a body that copies a quote."""
    language = services.settings.concept_language
    wrong = off_language_fields(concept, language, services.detect_language)
    copied = copied_quote(concept["concept"], {q: quotes[q] for q in concept["quote_ids"]})
    return {"wrong_language": wrong, "copies_quote": copied is not None}


def _guard_of(flaws: Mapping[str, Any]) -> Guard:
    """The check a rewrite answers to: grounding first, then language, then distillation."""
    if flaws.get("off_topic"):
        return "grounding"
    return "language" if flaws["wrong_language"] else "distillation"


def check_concepts(state: ExtractionState, services: Services) -> dict[str, Any]:
    """Grounding, language and distillation of the merged candidates (no LLM)."""
    quotes = quote_texts(state.get("quotes", []))
    candidates = state.get("candidates", [])
    kept, findings, orphans = _ground(candidates, quotes, services)
    # A concept none of whose quotes is about it gets one rewrite from those quotes (small
    # models often write a related but different idea); the rewrite is grounded again.
    requests = []
    for orphan in orphans:
        findings.append(_off_topic(orphan, "sent_for_rewrite"))
        requests.append({"key": orphan[0]["key"], **_flaws(orphan[0], quotes, services)})
        requests[-1]["off_topic"] = True
    rewritten = {r["key"] for r in requests}
    grounded = {c["key"]: c for c in kept} | {o["key"]: o for o, _ in orphans}
    kept = [grounded[c["key"]] for c in candidates if c["key"] in grounded]
    for concept in kept:
        if concept["key"] in rewritten:
            continue
        flaws = {**_flaws(concept, quotes, services), "off_topic": False}
        if flaws["wrong_language"] or flaws["copies_quote"]:
            requests.append({"key": concept["key"], **flaws})
            reasons = []
            if flaws["wrong_language"]:
                reasons.append("not in the graph's language: " + ", ".join(flaws["wrong_language"]))
            if flaws["copies_quote"]:
                reasons.append("it copies its quote")
            guard = _guard_of(flaws)
            findings.append(
                Finding(guard, "sent_for_rewrite", repr(concept["title"]), "; ".join(reasons))
            )
    return {"candidates": kept, "repair_requests": requests, **_logged(findings)}


def _rewrite_flaws(
    answer: repair_concept.RepairedConcept, quotes: Sequence[str], services: Services
) -> dict[str, Any]:
    """The flaws a rewrite still has: another language, a copied quote, or (with a semantic
    embedder) none of its quotes about it. collect_repairs judges the final answer again."""
    ids = [str(i) for i in range(len(quotes))]
    draft = DraftConcept(
        key="",
        title=answer.title,
        concept=answer.concept,
        analysis=answer.analysis,
        summary=answer.concept,
        summary_short=answer.summary_short,
        quote_ids=ids,
        rationale="",
        history=[],
    )
    flaws = _flaws(draft, dict(zip(ids, quotes, strict=True)), services)
    off_topic = False
    if quotes and is_semantic(services.embedder):
        vectors = services.embedder.embed([concept_text(draft), *quotes])
        threshold = services.settings.grounding_threshold
        far = ungrounded(vectors[0], dict(zip(ids, vectors[1:], strict=True)), ids, threshold)
        off_topic = len(far) == len(ids)
    return {**flaws, "off_topic": off_topic}


def repair_concept_node(payload: dict[str, Any], services: Services) -> dict[str, Any]:
    """A focused rewrite of a flagged concept (a `Send` branch): one call, and one more, afresh
    from the quotes and warmer, when the rewrite still copies its quote, is still in another
    language or is still not about its quotes."""
    concept: DraftConcept = payload["concept"]
    data = repair_concept.RepairInput(
        title=concept["title"],
        concept=concept["concept"],
        analysis=concept["analysis"],
        summary_short=concept["summary_short"],
        quotes=payload["quotes"],
        wrong_language=payload["wrong_language"],
        copies_quote=payload["copies_quote"],
        off_topic=payload.get("off_topic", False),
        language=services.settings.concept_language,
    )
    calls = []
    answer: repair_concept.RepairedConcept | None = None
    for sampling in (repair_concept.SAMPLING, repair_concept.RETRY_SAMPLING):
        calls.append(llm_call(repair_concept.NAME, services.llms.main_spec, concept["key"]))
        try:
            answer = services.structured(
                services.llms.main,
                name=repair_concept.NAME,
                messages=repair_concept.messages(data),
                response_model=repair_concept.RepairedConcept,
                sampling=sampling,
            )
        except SOFT_LLM_ERRORS as exc:
            if answer is None:
                return {"repairs": [{"key": concept["key"], "error": str(exc)}], "llm_calls": calls}
            break
        flaws = _rewrite_flaws(answer, data.quotes, services)
        if not (flaws["wrong_language"] or flaws["copies_quote"] or flaws["off_topic"]):
            break
        data = data.model_copy(
            update={
                "retry": True,
                "wrong_language": flaws["wrong_language"],
                "copies_quote": flaws["copies_quote"],
            }
        )
    assert answer is not None
    return {"repairs": [{"key": concept["key"], **answer.model_dump()}], "llm_calls": calls}


def collect_repairs(state: ExtractionState, services: Services) -> dict[str, Any]:
    """Apply the rewrites and check again: what is still off its quotes, in another language
    or a copy of its quote is dropped."""
    quotes = quote_texts(state.get("quotes", []))
    repairs = {r["key"]: r for r in state.get("repairs", [])}
    requested = {r["key"] for r in state.get("repair_requests", [])}
    guard_of = {r["key"]: _guard_of(r) for r in state.get("repair_requests", [])}
    findings: list[Finding] = []
    rewritten: list[DraftConcept] = []
    for concept in state.get("candidates", []):
        repair = repairs.get(concept["key"])
        if concept["key"] not in requested or repair is None:
            rewritten.append(concept)
            continue
        if "error" in repair:
            findings.append(
                Finding(
                    guard_of[concept["key"]],
                    "flagged",
                    repr(concept["title"]),
                    f"the rewrite failed: {repair['error'][:200]}",
                )
            )
            rewritten.append(concept)
            continue
        rewritten.append(
            DraftConcept(
                key=concept["key"],
                title=repair["title"],
                concept=repair["concept"],
                analysis=repair["analysis"],
                summary=repair["concept"],
                summary_short=repair["summary_short"],
                quote_ids=concept["quote_ids"],
                rationale=concept["rationale"],
                history=[*concept["history"], repair_concept.NAME],
            )
        )
    regrounded, grounding, orphans = _ground(
        [c for c in rewritten if c["key"] in requested], quotes, services
    )
    findings.extend(grounding)
    findings.extend(_off_topic(orphan, "dropped") for orphan in orphans)
    alive = {c["key"]: c for c in regrounded}
    kept: list[DraftConcept] = []
    for concept in rewritten:
        if concept["key"] in requested:
            if concept["key"] not in alive:
                continue
            concept = alive[concept["key"]]
            flaws = _flaws(concept, quotes, services)
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
            findings.append(
                Finding(guard_of[concept["key"]], "repaired", repr(concept["title"]), "rewritten")
            )
        kept.append(concept)
    return {"candidates": kept, **_logged(findings)}


def relation_ends(proposal: Proposal, services: Services) -> dict[str, End]:
    """Title and text of every relation end: new concepts by key, existing ones by id."""
    ends = {
        c["key"]: End(
            title=c["title"], body=" ".join((c["concept"], c["analysis"], c["summary_short"]))
        )
        for c in proposal["concepts"]
    }
    for relation in proposal["relations"]:
        for end in (relation["source"], relation["target"]):
            if end in ends or is_key(end):
                continue
            existing = services.store.get_concept(end)
            if existing is not None:
                ends[end] = End(
                    title=existing.title,
                    body=" ".join((existing.concept, existing.analysis, existing.summary_short)),
                )
    return ends


def guard_relations(proposal: Proposal, services: Services) -> tuple[Proposal, list[Finding]]:
    """The proposal with the relation checks applied, and what they dropped."""
    if not proposal["relations"]:
        return proposal, []
    ends = relation_ends(proposal, services)
    similarity: dict[frozenset[str], float] = {}
    # Without a semantic embedder there is no "far apart" to judge: nothing to embed.
    if is_semantic(services.embedder):
        ids = list(ends)
        unit = normalize_rows(
            services.embedder.embed([f"{ends[i].title}. {ends[i].body}" for i in ids])
        )
        row = {end: i for i, end in enumerate(ids)}
        for relation in proposal["relations"]:
            a, b = row.get(relation["source"]), row.get(relation["target"])
            if a is not None and b is not None:
                pair = frozenset((relation["source"], relation["target"]))
                similarity[pair] = float(unit[a] @ unit[b])
    settings = services.settings
    kept, findings = check_relations(
        proposal["relations"],
        ends=ends,
        similarity=similarity,
        vocabulary=services.store_vocabulary,
        limits=RelationLimits(
            cap=settings.relation_cap,
            unrelated_below=settings.relation_unrelated_below,
            copy_limit=EXPLANATION_COPY_LIMIT,
        ),
    )
    return {**proposal, "relations": [r for r in proposal["relations"] if r in kept]}, findings


def check_relations_node(state: ExtractionState, services: Services) -> dict[str, Any]:
    proposal, findings = guard_relations(state["proposal"], services)
    return {"proposal": proposal, **_logged(findings)}
