"""Item keys numbered as the review shows them: c1, c2, c3 ... with no gap, the doubtful first.

The model's local ids become the concepts' keys (c1 ...), and the checks, the critique and
feedback drop some, so a proposal can reach the review as c1 ... c5, c7. While the reader has
decided nothing, nothing stored names a key but the proposal and its doubts, so both are
renumbered together in the order the review lists them. Once a decision is saved the keys
stay as they are: a decision keeps naming its item across feedback rounds.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from zettelgraph.workflows.concept_extraction.state import Doubt, Proposal, Review


def nothing_decided(review: Review | None) -> bool:
    """Whether the reader has saved no decision (nor taken one back) on this run."""
    return not review or not any(review.get(part) for part in review)


def numbered_as_shown(
    proposal: Proposal, doubts: Mapping[str, Doubt]
) -> tuple[Proposal, dict[str, Doubt]]:
    """The proposal with its concepts, relations and "related?" suggestions in review order
    (the doubtful first) keyed c1.., r1.., s1.., and the doubts under the new keys."""
    result: Proposal = copy.deepcopy(proposal)
    renamed: dict[str, str] = {}
    result["concepts"] = _numbered(result["concepts"], "c", doubts, renamed)
    result["relations"] = _numbered(result["relations"], "r", doubts, renamed)
    if "related" in result:
        result["related"] = _numbered(result["related"], "s", doubts, renamed)
    for item in [*result["relations"], *result.get("related", [])]:
        # An end is a concept key (renamed) or an existing concept's id (kept).
        item["source"] = renamed.get(item["source"], item["source"])
        item["target"] = renamed.get(item["target"], item["target"])
    return result, {renamed.get(key, key): doubt for key, doubt in doubts.items()}


def _numbered(
    items: Sequence[Any], prefix: str, doubts: Mapping[str, Doubt], renamed: dict[str, str]
) -> list[Any]:
    """`items` doubtful first (in their order otherwise), keyed `prefix`1 ...; each old key
    (an item without one gets its first) recorded in `renamed`."""

    def doubtful(item: Any) -> bool:
        doubt = doubts.get(item.get("key", ""))
        return bool(doubt and doubt.get("doubtful"))

    ordered = sorted(items, key=lambda item: not doubtful(item))
    for number, item in enumerate(ordered, 1):
        if item.get("key"):
            renamed[item["key"]] = f"{prefix}{number}"
        item["key"] = f"{prefix}{number}"
    return ordered
