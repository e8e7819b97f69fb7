"""The reader's review, as every reviewed workflow takes it: one interrupt with a report, and
an answer that is approve, feedback (with text), abort, or decide (the reader's decisions on
single items, checked and merged by `services/review.py` before they are sent: the node only
saves them, and the review goes on). The workflows differ in their report and in what
feedback does; the answer and the round limit are read here, once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Required

from langgraph.types import interrupt
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from typing_extensions import TypedDict

from zettelgraph.guards.doubt import Doubt
from zettelgraph.models import utcnow

# Where a reviewed run stands, in every reviewed workflow; each adds the ends of its own.
ReviewStatus = Literal["running", "awaiting_review", "approved", "committed", "aborted"]
# "decide": the reader decided on some items (keep, drop, edit ...); the review goes on.
Decision = Literal["approve", "feedback", "abort", "decide"]


class ReaderAnswer(TypedDict, total=False):
    """The state update a reader's answer makes, in every reviewed workflow."""

    decision: Decision
    # decide: the workflow's review with the reader's decisions (checked by services/review.py)
    review: Mapping[str, object]
    status: Literal["approved", "aborted"]
    approved_at: str  # ISO 8601 UTC
    human_feedback: str
    warnings: list[str]


def ask_reader(report: Mapping[str, object], rounds: int, max_rounds: int) -> ReaderAnswer:
    """Pause for the reader (`interrupt`) with `report`; the state update their answer makes.

    `rounds` is how many feedback rounds the run has had: past `max_rounds`
    (ZETTELGRAPH_REVIEW_MAX_ROUNDS) more feedback aborts the run, which writes nothing."""
    answer = interrupt({"action": "human_review", "report": report})
    action = answer.get("action") if isinstance(answer, dict) else None
    if action == "decide" and isinstance(answer.get("review"), dict):
        return {"decision": "decide", "review": answer["review"]}
    if action == "approve":
        return {"decision": "approve", "status": "approved", "approved_at": utcnow().isoformat()}
    if action == "feedback" and str(answer.get("feedback", "")).strip():
        if rounds >= max_rounds:
            return {
                "decision": "abort",
                "status": "aborted",
                "warnings": [
                    f"stopped after {rounds} feedback rounds (ZETTELGRAPH_REVIEW_MAX_ROUNDS); "
                    "the run is kept but nothing was written"
                ],
            }
        return {"decision": "feedback", "human_feedback": str(answer["feedback"]).strip()}
    if action == "abort":
        return {"decision": "abort", "status": "aborted"}
    raise ValueError(
        f"a review answer must be approve, feedback (with text), abort or decide, not {answer!r}"
    )


def after_review(
    state: Any,
) -> Literal["commit", "incorporate_feedback", "present_for_review", "__end__"]:
    """Where the reader's decision leads: the commit, another round, back to the review
    (decisions on items were saved), or the end."""
    decision = state.get("decision")
    if decision == "approve":
        return "commit"
    if decision == "feedback":
        return "incorporate_feedback"
    if decision == "decide":
        return "present_for_review"
    return "__end__"


# --- decisions on single items (what each means is the workflow's own) ------------------

Action = Literal[
    "keep",
    "drop",
    "edit",
    "merge",
    "retype",
    "move_quote",
    "remove_quote",
    "relate",
    "undecide",
]
ACTIONS: tuple[str, ...] = Action.__args__  # type: ignore[attr-defined]

# Bounds of what a reader types: a title is a name, a statement a paragraph or two.
TITLE_CHARS = 300
TEXT_CHARS = 4000


class DecisionError(ValueError):
    """A decision that does not fit the proposal; the message names the item and what to do."""


class ItemDecision(BaseModel):
    """One decision on one item, as every front end sends it."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    item: str = Field(min_length=1, max_length=100, description="c1, r2, s1, a1 ...")
    action: Action
    # edit: the fields the reader rewrote (the others stay).
    title: str | None = Field(default=None, max_length=TITLE_CHARS)
    concept: str | None = Field(default=None, max_length=TEXT_CHARS)
    analysis: str | None = Field(default=None, max_length=TEXT_CHARS)
    # merge: the concept it joins (a key of this run or an existing concept's id).
    into: str | None = Field(default=None, max_length=100)
    # retype, relate: the relation type.
    type: str | None = Field(default=None, max_length=100)
    # move_quote, remove_quote: the quote (q3 or its id); move_quote: the concept it goes to.
    quote: str | None = Field(default=None, max_length=100)
    to: str | None = Field(default=None, max_length=100)
    # relate: the other end (a key of this run or an existing concept's id), and why.
    target: str | None = Field(default=None, max_length=100)
    explanation: str = Field(default="", max_length=1000)


class LoggedDecision(TypedDict, total=False):
    """One decision as the reader made it, as a review's log keeps it (`logged`)."""

    at: Required[str]  # when, ISO 8601 UTC
    item: Required[str]
    action: Required[str]  # an Action
    # What the reader gave beyond the item and action (ItemDecision's fields).
    title: str
    concept: str
    analysis: str
    into: str
    type: str
    quote: str
    to: str
    target: str
    explanation: str
    id: str  # a graph run's item: what it is (its entity id or relationship id)
    doubt: Doubt  # a concept run's item: its doubt when the reader decided


_LOGGED = TypeAdapter(LoggedDecision)


def logged(decision: ItemDecision, at: str) -> LoggedDecision:
    """`decision` as a review's log keeps it: the fields the reader left at their default
    (None, an empty explanation) are not kept."""
    given = decision.model_dump(exclude_none=True, exclude_defaults=True)
    return _LOGGED.validate_python({"at": at, **given})
