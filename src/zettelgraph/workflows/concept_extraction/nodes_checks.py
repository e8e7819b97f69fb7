"""Proposal checks (issue 11): deterministic guards between the model and the reader.

check_concepts (no LLM) right after the candidates are merged, so duplicates and relations are
judged on concepts that are grounded and in the graph's language; what it flags goes to
nodes_repair (a focused rewrite, checked again). check_relations (no LLM) after the relations,
and after every refinement or feedback patch. Every action is a finding: logged, counted in the
report and shown as a warning.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from zettelgraph.context import Services
from zettelgraph.guards import Action, Finding, Guard
from zettelgraph.guards.distillation import (
    clause_title,
    copied_quote,
    copied_whole_quote,
    long_title,
)
from zettelgraph.guards.grounding import (
    below,
    concept_text,
    names_the_source,
    quote_floors,
    ungrounded,
)
from zettelgraph.guards.language import off_language_fields
from zettelgraph.guards.relations import End, RelationLimits, check_relations
from zettelgraph.llm.embeddings import is_semantic
from zettelgraph.prompts.extract_concepts import PromptQuote
from zettelgraph.settings import SmallModelTask
from zettelgraph.store.vector_index import normalize_rows
from zettelgraph.text.summaries import short_summary
from zettelgraph.workflows.concept_extraction.proposal import is_key, quote_texts
from zettelgraph.workflows.concept_extraction.small_tasks import draft_fields
from zettelgraph.workflows.concept_extraction.state import (
    DraftConcept,
    ExtractionState,
    Flaws,
    Proposal,
    RepairRequest,
)

# An explanation is a paste when nearly all its words come from one end's text.
EXPLANATION_COPY_LIMIT = 0.9


def logged(findings: Iterable[Finding]) -> ExtractionState:
    found = list(findings)
    return {
        "check_log": [f.as_dict() for f in found],
        "warnings": [f.message() for f in found],
    }


def ground(
    concepts: Sequence[DraftConcept],
    quotes: Mapping[str, str],
    services: Services,
    source: Mapping[str, Any],
) -> tuple[list[DraftConcept], list[Finding], list[tuple[DraftConcept, str]]]:
    """Concepts with their far quotes taken off, what was done, and the concepts none of
    whose quotes is about them or whose title is the book's (`source`'s) title or author (left
    out of the first list; the caller rewrites or drops): such a title names no idea, and two
    of them merge by title into one concept citing unrelated quotes."""
    named: list[tuple[DraftConcept, str]] = []
    titled: list[DraftConcept] = []
    for concept in concepts:
        if names_the_source(concept["title"], source):
            named.append((concept, "its title names the book, not an idea"))
        else:
            titled.append(concept)
    concepts = titled
    if not concepts:
        return [], [], named
    if not is_semantic(services.embedder):
        return list(concepts), [], named
    cited = sorted({q for c in concepts for q in c["quote_ids"] if q in quotes})
    vectors = services.embedder.embed(
        [concept_text(c) for c in concepts] + [quotes[q] for q in cited]
    )
    quote_vectors = {q: vectors[len(concepts) + i] for i, q in enumerate(cited)}
    numbers = services.thresholds
    floors = quote_floors(
        {q: quotes[q] for q in cited},
        services.settings.concept_language,
        services.detect_language,
        numbers.grounding,
        numbers.grounding_across,
    )
    kept: list[DraftConcept] = []
    findings: list[Finding] = []
    orphans: list[tuple[DraftConcept, str]] = []
    for index, concept in enumerate(concepts):
        far = ungrounded(vectors[index], quote_vectors, concept["quote_ids"], floors)
        if not far:
            kept.append(concept)
            continue
        gone = {q for q, _, _ in far}
        left = [q for q in concept["quote_ids"] if q not in gone]
        scores = below([s for _, s, _ in far], [f for _, _, f in far])
        if not left:
            orphans.append((concept, f"none of its quotes is about it (similarity {scores})"))
            continue
        findings.append(
            Finding(
                "grounding",
                "dropped",
                f"{len(far)} quote(s) of {concept['title']!r}",
                f"they are not about it (similarity {scores})",
            )
        )
        kept.append({**concept, "quote_ids": left})
    return kept, findings, [*named, *orphans]


def grounded_clause_title(
    concept: DraftConcept,
    quotes: Mapping[str, str],
    services: Services,
    source: Mapping[str, Any],
) -> str | None:
    """A sentence title's first clause (`clause_title`) when the concept under it is still
    grounded on every quote it cites: the title is half of what grounding compares, and a cut
    that leaves the quote's words out can leave the concept off its quote."""
    short = clause_title(concept["title"])
    if short is None:
        return None
    kept, _, orphans = ground([{**concept, "title": short}], quotes, services, source)
    if orphans or not kept or kept[0]["quote_ids"] != concept["quote_ids"]:
        return None
    return short


def off_topic_finding(
    orphan: tuple[DraftConcept, str], action: Action, ask: str | None = None
) -> Finding:
    concept, why = orphan
    return Finding("grounding", action, repr(concept["title"]), why + (f"; {ask}" if ask else ""))


def copies_its_quote(statement: str, cited: Mapping[str, str], task: SmallModelTask) -> bool:
    """Whether a statement copies a quote it cites, by the rule of the task that wrote it.

    A paraphrase (and the idea written from a gloss) is a copy when 80% of its distinct words
    are the quote's. An extractive statement or a gloss-like meaning keeps the quote's current
    words by design, so only the quote pasted nearly whole, in order, is a copy
    (`guards/distillation.copied_whole_quote`). A `titles` draft is the quote itself on
    purpose, marked for the reader: never a copy to rewrite."""
    if task == "titles":
        return False
    if task in ("extractive", "meaning"):
        return copied_whole_quote(statement, cited) is not None
    return copied_quote(statement, cited) is not None


def flaws_of(concept: DraftConcept, quotes: Mapping[str, str], services: Services) -> Flaws:
    """What a rewrite must fix: fields in another language, a body that copies a quote, a
    title that is a sentence."""
    language = services.settings.concept_language
    task = services.llms.main_profile.task
    cited = {q: quotes[q] for q in concept["quote_ids"]}
    judged: Mapping[str, Any] = concept
    if task == "titles" and concept["concept"] in cited.values():
        # A draft that is its quote verbatim is in the quote's language, which extraction found
        # to be the graph's; only the title (and a translation) is the model's to judge.
        judged = {**concept, "concept": ""}
    wrong = off_language_fields(judged, language, services.detect_language)
    return {
        "wrong_language": wrong,
        "copies_quote": copies_its_quote(concept["concept"], cited, task),
        "long_title": long_title(concept["title"]),
    }


def flaw_reasons(flaws: Mapping[str, Any], title: str) -> list[str]:
    """What `flaws_of` found, in the reader's words (none: the concept passes)."""
    reasons = []
    if flaws["wrong_language"]:
        reasons.append("not in the graph's language: " + ", ".join(flaws["wrong_language"]))
    if flaws["copies_quote"]:
        reasons.append("it copies its quote")
    if flaws["long_title"]:
        reasons.append(f"its title is a sentence of {len(title.split())} words")
    return reasons


def guard_of(flaws: Mapping[str, Any]) -> Guard:
    """The check a rewrite answers to: coverage for a concept written from a quote no concept
    cited, then grounding, language and distillation."""
    if flaws.get("uncovered"):
        return "coverage"
    if flaws.get("off_topic"):
        return "grounding"
    return "language" if flaws["wrong_language"] else "distillation"


def _excerpt(text: str, words: int = 8) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" ..." if len(parts) > words else "")


def uncovered_quotes(
    quotes: Sequence[Mapping[str, Any]], concepts: Sequence[DraftConcept]
) -> list[Mapping[str, Any]]:
    """The quotes, in reading order, that no concept cites."""
    cited = {q for c in concepts for q in c["quote_ids"]}
    return [q for q in quotes if q["id"] not in cited]


def _placeholders(
    quotes: Sequence[Mapping[str, Any]], concepts: Sequence[DraftConcept], services: Services
) -> list[DraftConcept]:
    """An empty concept per quote, to be written from that quote alone by nodes_repair; for
    task `titles`, the quote's draft, to which the rewrite gives a title."""
    taken = [int(c["key"][1:]) for c in concepts if is_key(c["key"])]
    first = max(taken, default=0) + 1
    drafts = services.llms.main_profile.task == "titles"
    language = services.settings.concept_language

    def placeholder(key: str, quote: Mapping[str, Any]) -> DraftConcept:
        fields = {"concept": "", "analysis": ""}
        if drafts:
            fields = draft_fields(PromptQuote(id="q1", text=quote["text"]), language)
        return DraftConcept(
            key=key,
            title="",
            concept=fields["concept"],
            analysis=fields["analysis"],
            summary=fields["concept"],
            summary_short=short_summary(fields["concept"]) if drafts else "",
            quote_ids=[quote["id"]],
            rationale="",
            history=["coverage"],
        )

    return [placeholder(f"c{first + i}", quote) for i, quote in enumerate(quotes)]


def check_concepts(state: ExtractionState, services: Services) -> ExtractionState:
    """Grounding, language and distillation of the merged candidates (no LLM), and, where the
    settings say so, a request for a concept from each quote no candidate cites."""
    quotes = quote_texts(state.get("quotes", []))
    covering = services.llms.main_profile.covers_quotes
    candidates = state.get("candidates", [])
    source = state.get("content", {})
    kept, findings, orphans = ground(candidates, quotes, services, source)
    requests: list[RepairRequest] = []
    if covering:
        # Each of an orphan's quotes is asked again alone below: one quote is what a small
        # model writes about best, and an orphan citing several (merged by title) is far from
        # each, so a rewrite from all of them misses them all again.
        findings.extend(
            off_topic_finding(orphan, "dropped", ask="each of its quotes is asked again alone")
            for orphan in orphans
        )
        orphans = []
    # A concept none of whose quotes is about it gets one rewrite from those quotes (small
    # models often write a related but different idea); the rewrite is grounded again.
    for orphan in orphans:
        findings.append(off_topic_finding(orphan, "sent_for_rewrite"))
        requests.append({"key": orphan[0]["key"], **flaws_of(orphan[0], quotes, services)})
        requests[-1]["off_topic"] = True
    rewritten = {r["key"] for r in requests}
    grounded = {c["key"]: c for c in kept} | {o["key"]: o for o, _ in orphans}
    kept = [grounded[c["key"]] for c in candidates if c["key"] in grounded]
    for index, concept in enumerate(kept):
        if concept["key"] in rewritten:
            continue
        flaws: Flaws = {**flaws_of(concept, quotes, services), "off_topic": False}
        short = (
            grounded_clause_title(concept, quotes, services, source)
            if flaws["long_title"]
            else None
        )
        if short and not (flaws["wrong_language"] or flaws["copies_quote"]):
            # Only the title is a sentence, and its first clause names the idea: no call needed.
            words = len(concept["title"].split())
            findings.append(
                Finding(
                    "distillation",
                    "repaired",
                    repr(concept["title"]),
                    f"its title was a sentence of {words} words: cut to {short!r}",
                )
            )
            kept[index] = {**concept, "title": short}
            continue
        reasons = flaw_reasons(flaws, concept["title"])
        if reasons:
            requests.append({"key": concept["key"], **flaws})
            guard = guard_of(flaws)
            findings.append(
                Finding(guard, "sent_for_rewrite", repr(concept["title"]), "; ".join(reasons))
            )
    if covering:
        # Quotes the model skipped, or that grounding took off every concept: the reader marked
        # them, so each gets one focused call; what it writes faces the same checks.
        missing = uncovered_quotes(state.get("quotes", []), kept)
        placeholders = _placeholders(missing, candidates, services)
        for quote, placeholder in zip(missing, placeholders, strict=True):
            findings.append(
                Finding(
                    "coverage",
                    "sent_for_rewrite",
                    f"quote {_excerpt(quote['text'])!r}",
                    "no concept cites it: the model writes one from this quote alone",
                )
            )
            requests.append(
                {
                    "key": placeholder["key"],
                    "wrong_language": [],
                    "copies_quote": False,
                    "long_title": False,
                    "off_topic": True,
                    "uncovered": True,
                }
            )
        kept = [*kept, *placeholders]
    return {"candidates": kept, "repair_requests": requests, **logged(findings)}


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
        vocabulary=services.concept_vocabulary,
        limits=RelationLimits(
            cap=settings.relation_cap,
            unrelated_below=services.thresholds.unrelated,
            copy_limit=EXPLANATION_COPY_LIMIT,
        ),
    )
    return {**proposal, "relations": [r for r in proposal["relations"] if r in kept]}, findings


def check_relations_node(state: ExtractionState, services: Services) -> ExtractionState:
    proposal, findings = guard_relations(state["proposal"], services)
    return {"proposal": proposal, **logged(findings)}
