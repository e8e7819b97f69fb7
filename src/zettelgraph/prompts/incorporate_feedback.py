"""Apply the reader's free-form feedback to the proposal, as a patch."""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.prompts.proposal_patch import PATCH_GUIDE, ProposalPatch
from zettelgraph.prompts.quality import atomicity_guide

NAME = "incorporate_feedback"


class FeedbackInput(BaseModel):
    proposal: str
    quotes: str
    feedback: str
    language: str = "es"
    # Items the reader has already decided ("c1 keep, r2 drop"): the patch leaves them be.
    decided: str = ""


class FeedbackPatch(ProposalPatch):
    feedback_interpretation: str = Field(default="", max_length=600)
    unresolved_feedback: str = Field(default="", max_length=600)


def messages(data: FeedbackInput) -> list[BaseMessage]:
    return [
        SystemMessage(
            content="You revise a proposed set of Zettelkasten concepts as the reader asks. "
            "The reader's intent comes first, even over the usual quality rules; if the "
            "feedback is ambiguous, make your best guess.\n" + atomicity_guide(data.language)
        ),
        HumanMessage(
            content=f"Quotes:\n{data.quotes}\n\nProposal:\n{data.proposal}\n\n"
            f"The reader's feedback:\n{data.feedback}\n\n"
            + (
                f"The reader has already decided these items; leave them exactly as they are "
                f"and change only the others: {data.decided}\n\n"
                if data.decided
                else ""
            )
            + f"{PATCH_GUIDE}\nAlso say how you interpreted the feedback and what of it you "
            "could not do."
        ),
    ]
