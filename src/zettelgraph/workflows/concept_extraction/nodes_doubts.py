"""Before each review: every relation keyed (r1 ...), every proposed concept and relation
given its doubt (guards/doubt.py), so the reader sees first what is probably wrong, and, on a
small model, a relation shown typed only when its check passes.

Signals come from the embedder (how close a concept is to its quote and to the book's other
quotes; how close two related ideas are), from plain text (how much a concept repeats its
quote) and, where the provider returns log-probabilities, from the model's own yes/no: does
the statement say what the quote says (`prompts/check_statement.py`), does the relation's
type hold between the two statements (`prompts/check_relation.py`). One one-token call per
item. On a small model a concept's flag reads `like_kept` instead, a probe on e5-small's vectors
of its title and quotes (`guards/doubt_probe.py`), and asks the model nothing. An item keeps
its doubt across feedback rounds while its text is the same.

The relation policy (docs/design.md, "Relations only when they hold"): on small models a
relation whose doubt is under the floor, or of an opposing type the model does not itself
confirm, is not shown typed but as an untyped "related?" suggestion the reader can type or
ignore; nothing untyped is ever written. Larger models keep their relations typed, flagged.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from zettelgraph.context import Services
from zettelgraph.guards.doubt import choose
from zettelgraph.guards.doubt_probe import SIGNAL as LIKE_KEPT
from zettelgraph.guards.doubt_signals import (
    embedding_signals,
    relation_signals,
    text_signals,
)
from zettelgraph.guards.relations import End
from zettelgraph.llm.embeddings import is_semantic
from zettelgraph.prompts import check_idea, check_relation, check_statement
from zettelgraph.workflows.concept_extraction.doubt_questions import (
    Checks,
    idea_check,
    relation_check,
    rivals,
    statement_check,
)
from zettelgraph.workflows.concept_extraction.nodes_checks import relation_ends
from zettelgraph.workflows.concept_extraction.numbering import nothing_decided, numbered_as_shown
from zettelgraph.workflows.concept_extraction.proposal import with_keys
from zettelgraph.workflows.concept_extraction.state import (
    Doubt,
    DraftConcept,
    DraftRelation,
    ExtractionState,
    Proposal,
    RelatedSuggestion,
)

CONCEPT_FIELDS = ("title", "concept", "quote_ids")
RELATION_FIELDS = ("source", "type", "target", "explanation")
# The model's own yes an opposing type needs on a small model, whatever the other signals: an
# OPPOSES between unrelated ideas was its most common wrong relation.
OPPOSING_STANCE_MIN = 0.5

ItemT = TypeVar("ItemT", DraftConcept, DraftRelation)


def fingerprint(item: Mapping[str, Any], fields: Sequence[str]) -> str:
    """What an item's doubt depends on; a new text or quote list means a new doubt."""
    data = json.dumps([item.get(f) for f in fields], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(data.encode()).hexdigest()[:16]


def prepare_review(state: ExtractionState, services: Services) -> ExtractionState:
    before: dict[str, Doubt] = dict(state.get("doubts", {}))
    review = state.get("review")
    decided = list(review["relations"]) if review else []
    proposal = with_keys(state["proposal"], taken=[*before, *decided])
    quotes = {q["id"]: q["text"] for q in state.get("quotes", [])}
    models = services.doubt_models  # read first: it says when the reader's file is broken
    small = services.llms.main_profile.small
    concept_model = choose(models, "concept", small=small)
    if LIKE_KEPT in concept_model.signals and services.doubt_probe is None:
        concept_model = choose(models, "concept", small=small, unmeasured=(LIKE_KEPT,))
    relation_model = choose(models, "relation", small=small)
    warnings = [services.doubt_warning] if services.doubt_warning else []
    checks = Checks(services)
    doubts: dict[str, Doubt] = {}

    concepts = _unchanged(proposal["concepts"], CONCEPT_FIELDS, before, doubts)
    # Copied after the concepts' doubts, as they were before the questions were gathered.
    kept_relations: dict[str, Doubt] = {}
    relations = _unchanged(proposal["relations"], RELATION_FIELDS, before, kept_relations)
    # Every question is gathered before any is asked, so that they are asked together
    # (`Checks.ask`): one after another they took 34 s of a 1,000-quote run on the fake model
    # (113 checks of 300 ms), about 2.4 s at 16 at once.
    uses = set(concept_model.signals) if concepts else set()
    closest = rivals(concepts, proposal["concepts"], quotes, services) if "check" in uses else {}
    statements = checks.pairs(
        [c["key"] for c in concepts],
        [
            statement_check(c, closest.get(c["key"]), quotes, services) if "check" in uses else None
            for c in concepts
        ],
        check_statement.NAME,
    )
    ideas = checks.pairs(
        [c["key"] for c in concepts],
        [idea_check(c, quotes, services) if "idea" in uses else None for c in concepts],
        check_idea.NAME,
    )
    ends = relation_ends(proposal, services) if relations else {}
    stances = checks.singles(
        [r.get("key", "") for r in relations],
        [relation_check(r, ends, services) for r in relations],
        check_relation.NAME,
    )
    checks.ask()

    if concepts:
        signals = _concept_signals(concepts, quotes, services)
        if LIKE_KEPT in uses:
            probed, about_run = _probe_signals(concepts, proposal["concepts"], quotes, services)
            for key, value in probed.items():
                signals[key][LIKE_KEPT] = value
            if about_run and not before:  # said once, on the run's first review
                warnings.append(about_run)
        asked = checks.chosen(statements, "check")
        idea = checks.chosen(ideas, "idea")
        for concept in concepts:
            key = concept["key"]
            measured = {**signals[key], **asked.get(key, {}), **idea.get(key, {})}
            doubts[key] = {
                **concept_model.judge(measured),
                "of": fingerprint(concept, CONCEPT_FIELDS),
            }

    doubts.update(kept_relations)
    if relations:
        signals = _relation_signals(relations, ends, services)
        stance = checks.yes(stances)
        for relation in relations:
            key = relation.get("key", "")
            measured = {**signals.get(key, {}), **stance.get(key, {})}
            if measured:
                doubts[key] = {
                    **relation_model.judge(measured),
                    "of": fingerprint(relation, RELATION_FIELDS),
                }
    if checks.failure:
        warnings.append(checks.failure)
    if services.llms.main_profile.only_confirmed_relations:
        proposal, moved = only_confirmed(proposal, doubts, services)
        warnings += moved
    if nothing_decided(review):
        proposal, doubts = numbered_as_shown(proposal, doubts)
    return {
        "proposal": proposal,
        "doubts": doubts,
        "llm_calls": checks.calls,
        "warnings": warnings,
    }


def _unchanged(
    items: Sequence[ItemT],
    fields: Sequence[str],
    before: Mapping[str, Doubt],
    doubts: dict[str, Doubt],
) -> list[ItemT]:
    """The items to judge: those whose text changed since their doubt (the others' doubts are
    copied into `doubts` as they were)."""
    todo = []
    for item in items:
        key = item.get("key", "")
        known = before.get(key)
        if known is not None and known.get("of") == fingerprint(item, fields):
            doubts[key] = known
        else:
            todo.append(item)
    return todo


def only_confirmed(
    proposal: Proposal, doubts: dict[str, Doubt], services: Services
) -> tuple[Proposal, list[str]]:
    """A small model's relations that its checks do not confirm, moved to the untyped
    "related?" suggestions (each with the doubt it had, under its new key); what was moved,
    said once."""
    vocabulary = services.concept_vocabulary
    typed: list[DraftRelation] = []
    related: list[RelatedSuggestion] = list(proposal.get("related", []))
    numbers = [int(s["key"][1:]) for s in related if s["key"][1:].isdigit()]
    for relation in proposal["relations"]:
        doubt = doubts.get(relation.get("key", ""))
        stance = doubt["signals"].get("stance") if doubt is not None else None
        opposing = vocabulary.stance(relation["type"]) == "opposes"
        unconfirmed = doubt is not None and (
            doubt["doubtful"] or (opposing and (stance is None or stance < OPPOSING_STANCE_MIN))
        )
        if not unconfirmed:
            typed.append(relation)
            continue
        numbers.append(max(numbers, default=0) + 1)
        if doubt is not None:  # the suggestion shows why it was not confirmed
            doubts[f"s{numbers[-1]}"] = doubt
        related.append(
            {
                "key": f"s{numbers[-1]}",
                "source": relation["source"],
                "target": relation["target"],
                "proposed_type": relation["type"],
                "explanation": relation["explanation"],
                "confidence": relation["confidence"],
                "history": relation["history"],
            }
        )
    moved = len(proposal["relations"]) - len(typed)
    if not moved:
        return proposal, []
    note = (
        f"check relations: {moved} of the small model's relations are shown as untyped "
        "'related?' suggestions: their type was not confirmed (give one a type to keep it)"
    )
    return {**proposal, "relations": typed, "related": related}, [note]


def _concept_signals(
    concepts: Sequence[DraftConcept], quotes: Mapping[str, str], services: Services
) -> dict[str, dict[str, float]]:
    """Text signals always; the embedder's only when it embeds meaning (not `hash`)."""
    quote_ids = list(quotes)
    language = services.settings.concept_language
    out: dict[str, dict[str, float]] = {}
    for concept in concepts:
        cited = [q for q in concept["quote_ids"] if q in quotes]
        out[concept["key"]] = text_signals(
            statement_text=concept["concept"],
            quote_texts=[quotes[q] for q in cited],
            foreign=any(services.detect_language(quotes[q]) not in (None, language) for q in cited),
        )
    if not is_semantic(services.embedder):
        return out
    texts = [quotes[q] for q in quote_ids]
    statements = [f"{c['title']}. {c['concept']}" for c in concepts]
    titles = [c["title"] for c in concepts]
    vectors = services.embedder.embed([*texts, *statements, *titles])
    by_quote = {q: vectors[i] for i, q in enumerate(quote_ids)}
    n, m = len(texts), len(concepts)
    for i, concept in enumerate(concepts):
        cited = [q for q in concept["quote_ids"] if q in by_quote]
        out[concept["key"]].update(
            embedding_signals(
                statement=vectors[n + i],
                title=vectors[n + m + i],
                cited=[by_quote[q] for q in cited],
                others=[by_quote[q] for q in quote_ids if q not in cited],
            )
        )
    return out


def _probe_signals(
    concepts: Sequence[DraftConcept],
    run: Sequence[DraftConcept],
    quotes: Mapping[str, str],
    services: Services,
) -> tuple[dict[str, float], str | None]:
    """`like_kept` of each of `concepts` (`guards/doubt_probe.py`), from its title and quotes,
    taken within its run: every concept proposed (`run`, the ones whose doubt is kept from an
    earlier round included) gives the median it is moved by; and what to tell the reader when
    the run as a whole reads like what graders dropped (`Probe.run_warning`)."""
    chosen = services.doubt_probe
    if chosen is None:
        return {}, None
    probe, embedder = chosen
    quote_ids = sorted({q for c in run for q in c["quote_ids"] if q in quotes})
    vectors = embedder.embed([*(quotes[q] for q in quote_ids), *(c["title"] for c in run)])
    by_quote = {q: vectors[i] for i, q in enumerate(quote_ids)}
    raw = {
        c["key"]: probe.value(
            vectors[len(quote_ids) + i],
            [by_quote[q] for q in c["quote_ids"] if q in by_quote],
        )
        for i, c in enumerate(run)
    }
    values = probe.in_run(raw)
    moved = {c["key"]: values[c["key"]] for c in concepts if c["key"] in values}
    return moved, probe.run_warning(list(raw.values()))


def _relation_signals(
    relations: Sequence[DraftRelation], ends: Mapping[str, End], services: Services
) -> dict[str, dict[str, float]]:
    names = sorted(ends)
    vectors = (
        services.embedder.embed([f"{ends[e].title}. {ends[e].body}" for e in names])
        if is_semantic(services.embedder) and names
        else None
    )
    row = {end: vectors[i] for i, end in enumerate(names)} if vectors is not None else {}
    vocabulary = services.concept_vocabulary
    out: dict[str, dict[str, float]] = {}
    for relation in relations:
        source, target = relation["source"], relation["target"]
        if source not in ends or target not in ends:
            continue
        out[relation.get("key", "")] = relation_signals(
            source=row.get(source),
            target=row.get(target),
            confidence=relation["confidence"],
            opposing=vocabulary.stance(relation["type"]) == "opposes",
            explanation=relation["explanation"],
            titles=(ends[source].title, ends[target].title),
        )
    return out
