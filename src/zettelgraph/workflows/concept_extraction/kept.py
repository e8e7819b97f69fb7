"""What approving a run writes, given the reader's decisions (`decisions.py`): exactly the
kept items, with the reader's edits, moves and merges, and a list of everything left out
and why, so that nothing is dropped silently.

An item the reader has not decided follows its doubt: kept unless doubtful. A relation goes
with a concept that was dropped (reported), follows a concept merged into another, and is
left out when a merge would make it join a concept to itself or two existing concepts (a run
never changes the existing graph). Quotes no kept concept cites stay open, for a later
`extract` of the content.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from zettelgraph.packs.relations import RelationVocabulary
from zettelgraph.workflows.concept_extraction.proposal import dedupe_relations, is_key, with_keys
from zettelgraph.workflows.concept_extraction.state import (
    Attribution,
    Doubt,
    DraftConcept,
    DraftRelation,
    Proposal,
    Review,
    empty_review,
)

READER = "reader"  # the history entry of what the reader wrote or added
EDITABLE = ("title", "concept", "analysis")


def is_doubtful(doubts: Mapping[str, Doubt], key: str) -> bool:
    doubt = doubts.get(key)
    return bool(doubt and doubt["doubtful"])


def verdict(key: str, review: Review, doubts: Mapping[str, Doubt]) -> tuple[str, bool]:
    """An item's verdict (keep, drop or merge) and whether the reader made it; undecided, it
    is kept unless doubtful."""
    section = review["concepts"] if is_key(key) else review["relations"]
    decided = section.get(key, {}).get("verdict")
    if decided is not None:
        return str(decided), True
    if key.startswith("s"):  # an untyped suggestion is written only once typed
        return "drop", False
    return ("drop" if is_doubtful(doubts, key) else "keep"), False


def resolve(end: str, review: Review, doubts: Mapping[str, Doubt]) -> str | None:
    """Where a relation end lands: a kept concept's key, an existing concept's id, or None
    (dropped). A merged concept lands where it was merged to."""
    seen: set[str] = set()
    while is_key(end) and end not in seen:
        seen.add(end)
        chosen, _ = verdict(end, review, doubts)
        if chosen == "keep":
            return end
        if chosen != "merge":
            return None
        end = str(review["concepts"][end]["into"])
    return None if is_key(end) else end


@dataclass
class Outcome:
    """What approving writes now, and what it leaves out."""

    concepts: list[DraftConcept] = field(default_factory=list)
    # key -> the model's text of a concept the reader edited (title, concept, analysis).
    model_texts: dict[str, dict[str, str]] = field(default_factory=dict)
    attributions: list[Attribution] = field(default_factory=list)
    relations: list[DraftRelation] = field(default_factory=list)
    left_out: list[dict[str, str]] = field(default_factory=list)  # item, what, why
    open_quote_ids: list[str] = field(default_factory=list)


def kept_outcome(
    proposal: Proposal,
    review: Review | None,
    doubts: Mapping[str, Doubt],
    vocabulary: RelationVocabulary,
    quote_ids: Sequence[str],
) -> Outcome:
    review = review or empty_review()
    proposal = with_keys(proposal)  # a run checkpointed before keys: the same keys as shown
    out = Outcome()
    merged_quotes: dict[str, list[str]] = {}  # landing (key or id) -> quotes merged there
    for concept in proposal["concepts"]:
        key = concept["key"]
        chosen, _ = verdict(key, review, doubts)
        quotes = list(review["quotes"].get(key, concept["quote_ids"]))
        if chosen == "keep":
            continue
        if chosen == "merge":
            landing = resolve(key, review, doubts)
            into = review["concepts"][key]["into"]
            if landing is None:
                why = f"merged into {into}, which is not kept: its quotes stay open"
                out.left_out.append({"item": key, "what": concept["title"], "why": why})
            else:
                merged_quotes.setdefault(landing, []).extend(quotes)
            continue
        out.left_out.append(
            {"item": key, "what": concept["title"], "why": _dropped_why(key, review)}
        )

    for concept in proposal["concepts"]:
        key = concept["key"]
        if verdict(key, review, doubts)[0] != "keep":
            continue
        edit = review["concepts"].get(key, {}).get("edit", {})
        quotes = [*review["quotes"].get(key, concept["quote_ids"]), *merged_quotes.get(key, [])]
        kept: DraftConcept = {
            **concept,
            **{k: v for k, v in edit.items() if k in EDITABLE},
            "quote_ids": list(dict.fromkeys(quotes)),
            "history": [*concept["history"], READER] if edit else list(concept["history"]),
        }
        if edit:
            out.model_texts[key] = {k: concept[k] for k in EDITABLE}  # type: ignore[literal-required]
            if "concept" in edit:
                # The summaries the model wrote summarise its own statement, not the reader's.
                kept["summary"] = edit["concept"]
                kept["summary_short"] = ""
        out.concepts.append(kept)

    attributions = _attributions(proposal, review, out, merged_quotes)
    out.attributions = attributions
    out.relations = kept_relations(proposal, review, doubts, vocabulary, left_out=out.left_out)
    covered = {q for c in out.concepts for q in c["quote_ids"]}
    covered |= {q for a in out.attributions for q in a["quote_ids"]}
    out.open_quote_ids = [q for q in quote_ids if q not in covered]
    return out


def _attributions(
    proposal: Proposal, review: Review, out: Outcome, merged: Mapping[str, list[str]]
) -> list[Attribution]:
    """The model's attributions to existing concepts the reader kept (e1 ...), plus the
    quotes of concepts merged into an existing concept."""
    result: list[Attribution] = []
    for number, attribution in enumerate(proposal["attributions"], 1):
        key = f"e{number}"
        if review["relations"].get(key, {}).get("verdict") == "drop":
            out.left_out.append(
                {"item": key, "what": f"quotes for {attribution['title']}", "why": "dropped"}
            )
            continue
        extra = merged.get(attribution["concept_id"], [])
        quotes = list(dict.fromkeys([*attribution["quote_ids"], *extra]))
        result.append({**attribution, "quote_ids": quotes})
    known = {a["concept_id"] for a in result}
    for landing, quotes in merged.items():
        if is_key(landing) or landing in known:
            continue
        result.append(
            {
                "concept_id": landing,
                "title": "",
                "quote_ids": list(dict.fromkeys(quotes)),
                "reason": "merged into it by the reader",
                "history": [READER],
            }
        )
    return result


def _dropped_why(key: str, review: Review) -> str:
    if key in review["concepts"]:
        return "dropped by the reader"
    return "doubtful, and not kept by the reader"


def kept_relations(
    proposal: Proposal,
    review: Review,
    doubts: Mapping[str, Doubt],
    vocabulary: RelationVocabulary,
    *,
    left_out: list[dict[str, str]] | None = None,
) -> list[DraftRelation]:
    """The relations approving writes: kept ones with the reader's types, typed suggestions
    and the reader's own, their ends landed (`resolve`), one per fact."""
    gone = left_out if left_out is not None else []
    candidates: list[tuple[str, DraftRelation]] = []
    for relation in proposal["relations"]:
        key = relation.get("key", "")
        chosen, _ = verdict(key, review, doubts) if key else ("keep", False)
        if chosen != "keep":
            gone.append(
                {
                    "item": key,
                    "what": _label(relation),
                    "why": "dropped by the reader" if key in review["relations"] else "doubtful",
                }
            )
            continue
        retyped = review["relations"].get(key, {}).get("type")
        candidates.append((key, {**relation, "type": retyped or relation["type"]}))
    for suggestion in proposal.get("related", []):
        decided = review["relations"].get(suggestion["key"], {})
        if decided.get("verdict") == "keep" and decided.get("type"):
            candidates.append(
                (
                    suggestion["key"],
                    {
                        "key": suggestion["key"],
                        "source": suggestion["source"],
                        "type": decided["type"],
                        "target": suggestion["target"],
                        "explanation": suggestion["explanation"],
                        "confidence": suggestion["confidence"],
                        "history": [*suggestion["history"], READER],
                    },
                )
            )
    for added in review["added"]:
        candidates.append(
            (
                added["key"],
                {
                    "key": added["key"],
                    "source": added["source"],
                    "type": added["type"],
                    "target": added["target"],
                    "explanation": added.get("explanation", ""),
                    "confidence": 1.0,
                    "history": [READER],
                },
            )
        )
    landed: list[DraftRelation] = []
    for key, relation in candidates:
        source = resolve(relation["source"], review, doubts)
        target = resolve(relation["target"], review, doubts)
        why: str | None = None
        if source is None or target is None:
            lost = [
                end
                for end, at in ((relation["source"], source), (relation["target"], target))
                if at is None
            ]
            why = f"its end {' and '.join(lost)} is not kept"
        elif source == target:
            why = "a merge made it join a concept to itself"
        elif not is_key(source) and not is_key(target):
            why = "a merge made it join two existing concepts (a run never changes those)"
        if why is not None:
            gone.append({"item": key, "what": _label(relation), "why": why})
            continue
        assert source is not None and target is not None
        landed.append({**relation, "source": source, "target": target})
    return dedupe_relations(landed, vocabulary)


def _label(relation: Mapping[str, Any]) -> str:
    return f"{relation['source']} -[{relation['type']}]-> {relation['target']}"
