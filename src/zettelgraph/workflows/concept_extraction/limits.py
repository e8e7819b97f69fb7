"""A run stopped by its recursion limit goes to the review with what it has: the reader
sees the latest proposal and may still approve it.

The limit is LangGraph's count of steps per invocation (`graph.RECURSION_LIMIT`). The loops
have their own bounds (refinement rounds, feedback rounds), so reaching it means something
unforeseen looped; the reader still gets the proposal as it stood. `services/runs.py` catches
`GraphRecursionError` and applies the update below with `graph.update_state(..., as_node=)`,
then resumes: LangGraph drops the pending steps and follows the edges of `as_node`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zettelgraph.workflows.concept_extraction.proposal import unattributed
from zettelgraph.workflows.concept_extraction.state import (
    ExtractionState,
    Proposal,
    empty_proposal,
)

# Its route (`routes.after_critique`) leads to the review when `stopped_at_limit` is set.
REVIEW_FROM = "self_critique"
# Its route (`routes.after_merge`) ends a `failed` run.
END_FROM = "merge_candidates"


def proposal_so_far(values: Mapping[str, Any]) -> Proposal | None:
    """The proposal as it stood, or the merged candidates when the run stopped before the
    duplicate checks made one; None when there is not a concept or attribution yet."""
    proposal: Proposal = values.get("proposal") or empty_proposal()
    if proposal["concepts"] or proposal["attributions"]:
        return proposal
    # Placeholders the coverage check made for a rewrite have no text yet.
    candidates = [c for c in values.get("candidates", []) if c["title"]]
    if not candidates:
        return None
    made: Proposal = {**empty_proposal(), "concepts": candidates}
    made["unattributed_quote_ids"] = unattributed(made, (q["id"] for q in values.get("quotes", [])))
    return made


def at_recursion_limit(
    values: Mapping[str, Any], pending: Sequence[str], limit: int
) -> tuple[ExtractionState, str] | None:
    """The state update and the node it is made as, for a run stopped at `limit` steps before
    `pending`: to the review with what it has, or to the end as `failed` when it has nothing a
    reader could approve (approving nothing would mark the content processed). None once the
    reader has decided (the commit is under way): `resume` goes on from there."""
    if values.get("status") != "running":
        return None
    where = ", ".join(dict.fromkeys(pending)) or "the next step"
    stopped = f"the run stopped after {limit} steps (its recursion limit) before {where}"
    proposal = proposal_so_far(values)
    if proposal is None:
        return {
            "status": "failed",
            "warnings": [
                f"{stopped}, with no concept ready: nothing to review; the content stays "
                "unprocessed. Extract it again"
            ],
        }, END_FROM
    update: ExtractionState = {
        "stopped_at_limit": True,
        "proposal": proposal,
        "warnings": [
            f"{stopped}: this is the proposal as it stood (checks, relations or critique may "
            "be missing); approve it, give feedback or abort"
        ],
    }
    return update, REVIEW_FROM
