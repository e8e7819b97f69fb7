"""Relation sanity: few relations, each a distinct and explained claim about two ideas.

Applied in this order, each drop becoming a `Finding`:
1. an explanation that is empty or pastes one end's text explains nothing;
2. an explanation word for word the same as another relation's is boilerplate (all such go);
3. a pair joined by an opposing and an agreeing type contradicts itself (the pair loses both);
4. at most one type per pair (the most confident stays);
5. two ideas the embedder finds unrelated need an explanation that names both;
6. at most `cap` relations per concept, the most confident first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zettelgraph.guards import Finding
from zettelgraph.packs.relations import RelationVocabulary
from zettelgraph.text.normalize import copied_share, word_set

# Words of a title that identify it in an explanation: short ones are articles and particles.
NAME_WORD_CHARS = 4


@dataclass(frozen=True)
class End:
    """What the checks know of a relation end: its title and its text."""

    title: str
    body: str


@dataclass(frozen=True)
class RelationLimits:
    cap: int  # relations per concept
    unrelated_below: float  # cosine under which a pair needs an explanation naming both
    copy_limit: float  # share of an end's words that makes an explanation a paste


def pair_of(relation: Mapping[str, Any]) -> frozenset[str]:
    return frozenset((str(relation["source"]), str(relation["target"])))


def explanation_key(text: str) -> str:
    """An explanation up to case, accents, punctuation and word order of repeats."""
    return " ".join(sorted(word_set(text)))


def names(explanation: str, title: str) -> bool:
    """Whether the explanation mentions the idea by a word of its title."""
    wanted = {w for w in word_set(title) if len(w) >= NAME_WORD_CHARS}
    return bool(wanted & word_set(explanation)) if wanted else True


def check_relations(
    relations: Sequence[Mapping[str, Any]],
    *,
    ends: Mapping[str, End],
    similarity: Mapping[frozenset[str], float],
    vocabulary: RelationVocabulary,
    limits: RelationLimits,
) -> tuple[list[dict[str, Any]], list[Finding]]:
    """The relations to keep, in their order, and what was dropped and why."""
    findings: list[Finding] = []

    def label(relation: Mapping[str, Any]) -> str:
        def title(end: str) -> str:
            known = ends.get(end)
            return repr(known.title) if known else end

        return f"{title(relation['source'])} -[{relation['type']}]-> {title(relation['target'])}"

    def drop(relation: Mapping[str, Any], detail: str) -> None:
        findings.append(Finding("relations", "dropped", label(relation), detail))

    kept: list[dict[str, Any]] = []
    for relation in relations:
        explanation = str(relation.get("explanation") or "").strip()
        pasted = _pasted_from(explanation, relation, ends, limits.copy_limit)
        if not word_set(explanation):
            drop(relation, "it has no explanation")
        elif pasted is not None:
            drop(relation, f"its explanation repeats the text of {pasted!r}")
        else:
            kept.append(dict(relation))

    groups: dict[str, int] = {}
    for relation in kept:
        key = explanation_key(relation["explanation"])
        groups[key] = groups.get(key, 0) + 1
    survivors = []
    for relation in kept:
        repeats = groups[explanation_key(relation["explanation"])] - 1
        if repeats:
            drop(relation, f"its explanation is word for word that of {repeats} other(s)")
        else:
            survivors.append(relation)
    kept = survivors

    stances: dict[frozenset[str], set[str]] = {}
    for relation in kept:
        stances.setdefault(pair_of(relation), set()).add(vocabulary.stance(relation["type"]))
    contradicted = {pair for pair, found in stances.items() if {"opposes", "agrees"} <= found}
    survivors = []
    for relation in kept:
        if pair_of(relation) in contradicted:
            drop(relation, "the same two ideas are also said to agree and to oppose each other")
        else:
            survivors.append(relation)
    kept = survivors

    best: dict[frozenset[str], dict[str, Any]] = {}
    for relation in kept:
        pair = pair_of(relation)
        if pair not in best or relation["confidence"] > best[pair]["confidence"]:
            best[pair] = relation
    survivors = []
    for relation in kept:
        chosen = best[pair_of(relation)]
        if chosen is relation:
            survivors.append(relation)
        else:
            drop(relation, f"the pair already has a {chosen['type']} relation (one type a pair)")
    kept = survivors

    survivors = []
    for relation in kept:
        score = similarity.get(pair_of(relation))
        if score is not None and score < limits.unrelated_below:
            source, target = ends.get(relation["source"]), ends.get(relation["target"])
            explained = (
                source is not None
                and target is not None
                and names(relation["explanation"], source.title)
                and names(relation["explanation"], target.title)
            )
            if not explained:
                drop(
                    relation,
                    f"the two ideas are far apart (similarity {score:.2f}) and the "
                    "explanation does not name both",
                )
                continue
        survivors.append(relation)
    kept = survivors

    order = sorted(
        range(len(kept)),
        key=lambda i: (-float(kept[i]["confidence"]), -similarity.get(pair_of(kept[i]), 0.0), i),
    )
    degree: dict[str, int] = {}
    accepted: set[int] = set()
    for index in order:
        relation = kept[index]
        ends_of = (relation["source"], relation["target"])
        if all(degree.get(end, 0) < limits.cap for end in ends_of):
            accepted.add(index)
            for end in ends_of:
                degree[end] = degree.get(end, 0) + 1
        else:
            drop(relation, f"over the limit of {limits.cap} relations per concept")
    return [r for i, r in enumerate(kept) if i in accepted], findings


def _pasted_from(
    explanation: str,
    relation: Mapping[str, Any],
    ends: Mapping[str, End],
    limit: float,
) -> str | None:
    """The title of the end whose text the explanation pastes, if any."""
    for end_id in (relation["source"], relation["target"]):
        end = ends.get(end_id)
        if end is None or not word_set(explanation):
            continue
        # Only a long-enough explanation can be said to paste: "Ambas tratan de la lectura"
        # naturally shares its few words with both ends.
        if len(word_set(explanation)) >= 6 and copied_share(explanation, end.body) >= limit:
            return end.title
    return None


def contradictory_pairs(
    relations: Iterable[Mapping[str, Any]], vocabulary: RelationVocabulary
) -> int:
    """How many pairs are joined both by an opposing and by an agreeing type."""
    stances: dict[frozenset[str], set[str]] = {}
    for relation in relations:
        stances.setdefault(pair_of(relation), set()).add(vocabulary.stance(relation["type"]))
    return sum(1 for found in stances.values() if {"opposes", "agrees"} <= found)
