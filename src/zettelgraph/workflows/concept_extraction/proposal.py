"""Pure operations on a run's proposal: rendering with local ids, checking relations, patches.

Referential integrity: every id the model returns is resolved against the ids it
was shown; one that does not resolve, a relation type outside the vocabulary, or a relation
between two existing concepts is dropped with a warning, never guessed.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from zettelgraph.models.concepts import MAX_SYNONYMS
from zettelgraph.packs.relations import RelationVocabulary
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.prompts.proposal_patch import ProposalPatch, RelationChange
from zettelgraph.text.normalize import normalize_name
from zettelgraph.workflows.concept_extraction.state import (
    DraftConcept,
    DraftRelation,
    Proposal,
    QuoteItem,
)


def quote_map(quotes: Iterable[Mapping[str, Any]]) -> LocalIds:
    """q1, q2 ... in reading order: the same numbering in every prompt of a run."""
    return LocalIds("q", (q["id"] for q in quotes))


def quote_texts(quotes: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Quote id -> its text, for the checks and the rewrites that show a concept's quotes."""
    return {q["id"]: q["text"] for q in quotes}


def render_quotes(quotes: Iterable[Mapping[str, Any]], qmap: LocalIds) -> str:
    lines = []
    for quote in quotes:
        page = f" (p. {quote['page']})" if quote.get("page") else ""
        lines.append(f"[{qmap.local(quote['id'])}] {quote['text']}{page}")
    return "\n".join(lines)


def referenced_existing(proposal: Proposal) -> list[str]:
    """Ids of the existing concepts a proposal refers to, in a stable order, each once."""
    ids: list[str] = [a["concept_id"] for a in proposal["attributions"]]
    keys = {c["key"] for c in proposal["concepts"]}
    for relation in proposal["relations"]:
        ids.extend(end for end in (relation["source"], relation["target"]) if end not in keys)
    return list(dict.fromkeys(ids))


def existing_map(proposal: Proposal, extra: Iterable[str] = ()) -> LocalIds:
    """e1, e2 ... for the existing concepts a proposal refers to (stable order)."""
    return LocalIds("e", dict.fromkeys([*referenced_existing(proposal), *extra]))


def unattributed(proposal: Proposal, quote_ids: Iterable[str]) -> list[str]:
    """The quotes, in order, that support no concept of the proposal, new or existing."""
    covered = {q for c in proposal["concepts"] for q in c["quote_ids"]}
    covered |= {q for a in proposal["attributions"] for q in a["quote_ids"]}
    return [q for q in quote_ids if q not in covered]


def render_proposal(
    proposal: Proposal, qmap: LocalIds, emap: LocalIds, titles: Mapping[str, str]
) -> str:
    """The proposal as the model sees it: concepts, attributions and relations by local id."""

    def ref(end: str) -> str:
        return end if is_key(end) else emap.local(end)

    out = ["New concepts:"]
    for c in proposal["concepts"]:
        quotes = ", ".join(qmap.local(q) for q in c["quote_ids"])
        out.append(
            f"[{c['key']}] {c['title']}\n  concept: {c['concept']}\n  analysis: {c['analysis']}"
            f"\n  summary_short: {c['summary_short']}\n  quotes: {quotes}"
        )
    if not proposal["concepts"]:
        out.append("(none)")
    out.append("Quotes attributed to existing concepts:")
    for a in proposal["attributions"]:
        quotes = ", ".join(qmap.local(q) for q in a["quote_ids"])
        out.append(f"[{emap.local(a['concept_id'])}] {a['title']}: {quotes}")
    out.append("Relations:")
    for r in proposal["relations"]:
        target = titles.get(r["target"], "")
        out.append(f"{ref(r['source'])} -[{r['type']}]-> {ref(r['target'])} {target}".rstrip())
    unattributed = ", ".join(qmap.local(q) for q in proposal["unattributed_quote_ids"])
    out.append(f"Unattributed quotes: {unattributed or '(none)'}")
    return "\n".join(out)


def next_key(proposal: Proposal) -> str:
    numbers = [int(c["key"][1:]) for c in proposal["concepts"] if c["key"][1:].isdigit()]
    return f"c{max(numbers, default=0) + 1}"


def resolve_quotes(
    short_ids: Iterable[str], qmap: LocalIds, where: str, warnings: list[str]
) -> list[str]:
    resolved: list[str] = []
    for short in short_ids:
        real = qmap.real(short)
        if real is None:
            warnings.append(f"{where}: dropped quote id {short!r}, which was not in the prompt")
        elif real not in resolved:
            resolved.append(real)
    return resolved


def check_relation(
    source: str | None,
    relation_type: str,
    target: str | None,
    *,
    new_keys: set[str],
    vocabulary: RelationVocabulary,
    where: str,
    warnings: list[str],
) -> bool:
    """Whether a proposed relation may be kept; says why not in `warnings`."""
    if source is None or target is None:
        warnings.append(f"{where}: dropped a {relation_type} relation to an id not in the prompt")
        return False
    if relation_type not in vocabulary.types:
        warnings.append(f"{where}: dropped relation type {relation_type!r} (not in the vocabulary)")
        return False
    if source == target:
        warnings.append(f"{where}: dropped a {relation_type} relation of a concept to itself")
        return False
    if source not in new_keys and target not in new_keys:
        warnings.append(
            f"{where}: dropped a {relation_type} relation between two existing concepts "
            "(a run never changes the existing graph)"
        )
        return False
    return True


def dedupe_relations(
    relations: Iterable[DraftRelation], vocabulary: RelationVocabulary
) -> list[DraftRelation]:
    """One relation per fact: A GENERALIZES B and B SPECIFIC_OF A are the same relation."""
    seen: set[tuple[str, str, str]] = set()
    out: list[DraftRelation] = []
    for relation in relations:
        key = (relation["source"], relation["type"], relation["target"])
        backward = vocabulary.reverse_of(relation["type"])
        # A one-way type has no reverse: B -> A of another type is another fact.
        reverse = (relation["target"], backward, relation["source"]) if backward else None
        if key in seen or reverse in seen:
            continue
        seen.add(key)
        out.append(relation)
    return out


def is_key(end: str) -> bool:
    """Whether a relation end is a concept of this run (c1, c2 ...) rather than a Concept id."""
    return end.startswith("c") and end[1:].isdigit()


def drop_orphans(proposal: Proposal) -> Proposal:
    """Relations whose new concept was removed go with it."""
    keys = {c["key"] for c in proposal["concepts"]}

    def alive(end: str) -> bool:
        return end in keys or not is_key(end)

    proposal["relations"] = [
        r for r in proposal["relations"] if alive(r["source"]) and alive(r["target"])
    ]
    return proposal


def apply_patch(
    proposal: Proposal,
    patch: ProposalPatch,
    *,
    qmap: LocalIds,
    emap: LocalIds,
    titles: Mapping[str, str],
    call: str,
    vocabulary: RelationVocabulary,
) -> tuple[Proposal, list[str]]:
    """A new proposal with the patch applied; unresolvable parts dropped with warnings."""
    result: Proposal = copy.deepcopy(proposal)
    warnings: list[str] = []
    by_key = {c["key"]: c for c in result["concepts"]}

    for key in patch.remove_concept_ids:
        if by_key.pop(key, None) is None:
            warnings.append(f"{call}: cannot remove {key!r}, no such concept")
    for change in patch.upsert_concepts:
        quote_ids = resolve_quotes(change.source_quote_ids, qmap, call, warnings)
        if not quote_ids:
            warnings.append(f"{call}: dropped concept {change.title!r}: none of its quotes exist")
            continue
        old = by_key.get(change.id)
        by_key[change.id] = DraftConcept(
            key=change.id,
            title=change.title,
            concept=change.concept,
            analysis=change.analysis,
            summary=change.summary,
            summary_short=change.summary_short,
            quote_ids=quote_ids,
            rationale=old["rationale"] if old else f"added by {call}",
            history=[*(old["history"] if old else []), call],
            synonyms=other_names(change.title, old.get("synonyms", []) if old else []),
        )
    result["concepts"] = list(by_key.values())
    keys = set(by_key)

    def end(short: str) -> str | None:
        return short if short in keys else emap.real(short)

    for attribution in patch.set_attributions:
        concept_id = emap.real(attribution.existing_concept_id)
        if concept_id is None:
            warnings.append(
                f"{call}: dropped attribution to unknown {attribution.existing_concept_id}"
            )
            continue
        quote_ids = resolve_quotes(attribution.quote_ids, qmap, call, warnings)
        kept = [a for a in result["attributions"] if a["concept_id"] != concept_id]
        previous = next((a for a in result["attributions"] if a["concept_id"] == concept_id), None)
        if quote_ids:
            kept.append(
                {
                    "concept_id": concept_id,
                    "title": titles.get(concept_id, previous["title"] if previous else ""),
                    "quote_ids": quote_ids,
                    "reason": previous["reason"] if previous else f"set by {call}",
                    "history": [*(previous["history"] if previous else []), call],
                }
            )
        result["attributions"] = kept

    removed = {_relation_key(r, end) for r in patch.remove_relations}
    result["relations"] = [
        r for r in result["relations"] if (r["source"], r["type"], r["target"]) not in removed
    ]
    for added in patch.add_relations:
        source, target = end(added.source_id), end(added.target_id)
        if check_relation(
            source,
            added.relation_type,
            target,
            new_keys=keys,
            vocabulary=vocabulary,
            where=call,
            warnings=warnings,
        ):
            assert source is not None and target is not None
            result["relations"].append(
                DraftRelation(
                    source=source,
                    type=added.relation_type,
                    target=target,
                    explanation=added.explanation,
                    confidence=added.confidence,
                    history=[call],
                )
            )
    result["relations"] = dedupe_relations(result["relations"], vocabulary)
    if patch.notes:
        result["notes"] = [*result["notes"], f"{call}: {patch.notes}"]
    result["unattributed_quote_ids"] = unattributed(result, qmap.reals())
    return drop_orphans(result), warnings


def _relation_key(change: RelationChange, end: Any) -> tuple[str, str, str]:
    return (end(change.source_id) or "", change.relation_type, end(change.target_id) or "")


def with_keys(proposal: Proposal, taken: Iterable[str] = ()) -> Proposal:
    """The proposal with every relation and suggestion keyed (r1 ..., s1 ...): keys already
    given stay, new ones continue the numbering past every key given before (`taken`), so a
    decision keeps naming its item across feedback rounds and never names a newcomer."""
    result: Proposal = copy.deepcopy(proposal)
    taken = list(taken)
    for items, prefix in ((result["relations"], "r"), (result.get("related", []), "s")):
        numbers = [number_of(item.get("key", ""), prefix) for item in items]
        before = [number_of(key, prefix) for key in taken]
        top = max((n for n in [*numbers, *before] if n is not None), default=0)
        for item, number in zip(items, numbers, strict=True):
            if number is None:
                top += 1
                item["key"] = f"{prefix}{top}"  # type: ignore[typeddict-readonly-mutated]
    return result


def number_of(key: str, prefix: str) -> int | None:
    rest = key[len(prefix) :] if key.startswith(prefix) else ""
    return int(rest) if rest.isdigit() else None


def title_key(title: str) -> str:
    return normalize_name(title).strip(" .")


def other_names(title: str, synonyms: Iterable[str]) -> list[str]:
    """A concept's synonyms as kept: trimmed, none repeating its title or one another (case,
    accents and spacing aside), at most `MAX_SYNONYMS`."""
    seen = {title_key(title)}
    kept: list[str] = []
    for name in synonyms:
        name = " ".join(name.split())
        if name and title_key(name) not in seen:
            seen.add(title_key(name))
            kept.append(name)
    return kept[:MAX_SYNONYMS]


def first_appearance(quote_ids: Iterable[str], quotes: Sequence[QuoteItem]) -> str:
    """Where a concept first appears in its content: the place of the earliest quote it
    cites, the run's quotes being in reading order; empty when that quote has no place (or
    its run was checkpointed before quotes had one)."""
    cited = set(quote_ids)
    earliest = next((q for q in quotes if q["id"] in cited), None)
    if earliest is None:
        return ""
    return earliest.get("place", "")
