"""The reader's feedback round: the items they decided stay as they left them; on a small
model the feedback is applied a few concepts at a time; every revision is checked before the
reader sees it.

A 1.5B model given the whole proposal (every concept, quote and relation of a book) and a
free-text request wrote for minutes and was cut off; its patches rewrote concepts nobody
named. So on the small models the feedback goes only to the concepts it names (`c3`, or the
ends of a relation `r2`), or, when it names none, to each undecided concept alone, with only
that concept's quotes. A patch from such a call may touch only what it was shown.

Whatever model wrote it, a revised or added concept faces the checks extraction's concepts
face (grounding, language, a copied quote, a sentence for a title: nodes_checks). One that
fails goes back to the text it had before the round, or, if the round added it, is left out:
the reader is told which and why.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence

from zettelgraph.context import Services
from zettelgraph.guards import Action, Finding, Guard
from zettelgraph.prompts.proposal_patch import PatchT
from zettelgraph.workflows.concept_extraction.nodes_checks import (
    flaw_reasons,
    flaws_of,
    ground,
    guard_of,
    logged,
)
from zettelgraph.workflows.concept_extraction.proposal import is_key, number_of, quote_texts
from zettelgraph.workflows.concept_extraction.state import (
    DraftConcept,
    ExtractionState,
    Proposal,
    Review,
)

_NAMED = re.compile(r"\b([cr]\d{1,4})\b")


def decided_keys(review: Review | None) -> list[str]:
    """The items the reader has decided on (concepts, relations, suggestions), in order."""
    if not review:
        return []
    return list(dict.fromkeys([*review["concepts"], *review["quotes"], *review["relations"]]))


def describe_decided(review: Review | None) -> str:
    """The reader's decisions as the feedback prompt shows them: items to leave as they are."""
    if not review:
        return ""
    parts = []
    for key, made in review["concepts"].items():
        into = f" into {made['into']}" if made.get("into") else ""
        parts.append(f"{key} {made.get('verdict', 'kept')}{into}")
    for key, made in review["relations"].items():
        retyped = f" as {made['type']}" if made.get("type") else ""
        parts.append(f"{key} {made.get('verdict', 'kept')}{retyped}")
    return ", ".join(parts)


def protect_decided(
    before: Proposal, after: Proposal, review: Review | None, call: str
) -> tuple[Proposal, list[str]]:
    """`after` (a model's patch of `before`) with every item the reader decided on as it was
    in `before`: feedback applies to what is still undecided. Says what was put back."""
    if not review:
        return after, []
    keys = set(decided_keys(review))
    result: Proposal = copy.deepcopy(after)
    warnings: list[str] = []
    old_concepts = {c["key"]: c for c in before["concepts"]}
    new_concepts = {c["key"]: c for c in result["concepts"]}
    for key in sorted(keys & set(old_concepts)):
        if new_concepts.get(key) != old_concepts[key]:
            warnings.append(f"{call}: {key} is decided by you; the model's change was not applied")
            new_concepts[key] = copy.deepcopy(old_concepts[key])
    result["concepts"] = [
        *[c for c in result["concepts"] if c["key"] not in keys],
        *[new_concepts[k] for k in old_concepts if k in keys and k in new_concepts],
    ]
    result["concepts"].sort(key=lambda c: number_of(c["key"], "c") or 0)
    old_relations = {r["key"]: r for r in before["relations"] if "key" in r}
    kept_keys = {r.get("key") for r in result["relations"]}
    for key in sorted(keys & set(old_relations)):
        if key not in kept_keys:
            warnings.append(f"{call}: {key} is decided by you; the model's change was not applied")
            result["relations"].append(copy.deepcopy(old_relations[key]))
    return result, warnings


def focus_groups(
    proposal: Proposal, feedback: str, review: Review | None, *, small: bool
) -> list[list[str]]:
    """The concept keys each feedback call is shown, in order; one empty group means the
    whole proposal (a large model's single call)."""
    if not small:
        return [[]]
    concepts = [c["key"] for c in proposal["concepts"]]
    relations = {r.get("key", ""): r for r in proposal["relations"]}
    named: list[str] = []
    for key in _NAMED.findall(feedback):
        ends = [relations[key]["source"], relations[key]["target"]] if key in relations else [key]
        named += [end for end in ends if end in concepts and end not in named]
    if named:
        return [named]
    decided = set(decided_keys(review))
    return [[key] for key in concepts if key not in decided]


def focused(proposal: Proposal, keys: Sequence[str]) -> Proposal:
    """The part of the proposal a focused call is shown: those concepts and the relations
    among them (no attributions to existing concepts, no open quotes)."""
    shown = set(keys)
    return {
        **proposal,
        "concepts": [c for c in proposal["concepts"] if c["key"] in shown],
        "relations": [
            r for r in proposal["relations"] if r["source"] in shown and r["target"] in shown
        ],
        "attributions": [],
        "unattributed_quote_ids": [],
    }


def confine(
    patch: PatchT, shown: Sequence[str], proposal: Proposal, call: str
) -> tuple[PatchT, list[str]]:
    """`patch` limited to what its call was shown: a concept it was not shown is not
    replaced (its "change" becomes a new concept under a free key), removed or related."""
    known = {c["key"] for c in proposal["concepts"]}
    allowed = set(shown)
    numbers = [number_of(k, "c") or 0 for k in [*known, *(c.id for c in patch.upsert_concepts)]]
    free = max(numbers, default=0)
    renamed: dict[str, str] = {}
    upserts = []
    for change in patch.upsert_concepts:
        key = change.id
        if key in known and key not in allowed:
            if key not in renamed:
                free += 1
                renamed[key] = f"c{free}"
            key = renamed[key]
        allowed.add(key)
        upserts.append(change.model_copy(update={"id": key}))
    warnings = [
        f"{call}: the model changed {old}, which it was not shown; kept as new {new}"
        for old, new in renamed.items()
    ]

    def reachable(end: str) -> bool:
        return end in allowed or not is_key(end)

    removed = [key for key in patch.remove_concept_ids if key in allowed]
    relations = [
        r
        for r in patch.add_relations
        if reachable(renamed.get(r.source_id, r.source_id))
        and reachable(renamed.get(r.target_id, r.target_id))
    ]
    dropped = len(patch.add_relations) - len(relations) + len(patch.remove_concept_ids)
    dropped -= len(removed)
    if dropped:
        warnings.append(f"{call}: {dropped} changes to concepts it was not shown were ignored")
    confined = patch.model_copy(
        update={
            "upsert_concepts": upserts,
            "remove_concept_ids": removed,
            "add_relations": [
                r.model_copy(
                    update={
                        "source_id": renamed.get(r.source_id, r.source_id),
                        "target_id": renamed.get(r.target_id, r.target_id),
                    }
                )
                for r in relations
            ],
            "remove_relations": [
                r
                for r in patch.remove_relations
                if reachable(r.source_id) and reachable(r.target_id)
            ],
            "set_attributions": [],
        }
    )
    return confined, warnings


def check_revisions(state: ExtractionState, services: Services) -> ExtractionState:
    """The concepts the last feedback round wrote, checked as extraction's are (no LLM): a
    failing revision is undone, a failing new concept left out, each said as a finding."""
    log = state.get("feedback_log", [])
    before: Mapping[str, DraftConcept] = (log[-1].get("before") if log else None) or {}
    proposal = state["proposal"]
    rounds = state.get("phase_2_iteration", 0)
    mark = f"incorporate_feedback#{rounds}"
    revised = [c for c in proposal["concepts"] if mark in c["history"]]
    if not revised:
        return {}
    quotes = quote_texts(state.get("quotes", []))
    kept, findings, orphans = ground(revised, quotes, services, state.get("content", {}))
    grounded = {c["key"]: c for c in kept}
    failing: dict[str, tuple[Guard, str]] = {
        o["key"]: ("grounding", "none of its quotes is about it") for o, _ in orphans
    }
    for concept in revised:
        if concept["key"] in failing:
            continue
        checked = grounded.get(concept["key"], concept)
        flaws = flaws_of(checked, quotes, services)
        reasons = flaw_reasons(flaws, checked["title"])
        if reasons:
            failing[concept["key"]] = (guard_of(flaws), "; ".join(reasons))
    concepts = []
    for concept in proposal["concepts"]:
        key = concept["key"]
        if key not in failing:
            concepts.append(grounded.get(key, concept))
            continue
        previous = before.get(key)
        action: Action = "repaired" if previous else "dropped"
        said = "put back as it was" if previous else "left out"
        guard, reason = failing[key]
        findings.append(
            Finding(
                guard,
                action,
                repr(concept["title"]),
                f"written by feedback round {rounds}: {reason}; {said}",
            )
        )
        if previous:
            concepts.append(previous)
    keys = {c["key"] for c in concepts}
    relations = [
        r
        for r in proposal["relations"]
        if (r["source"] in keys or not is_key(r["source"]))
        and (r["target"] in keys or not is_key(r["target"]))
    ]
    return {
        "proposal": {**proposal, "concepts": concepts, "relations": relations},
        **logged(findings),
    }
