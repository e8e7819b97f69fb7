"""Fix what the self-critique found, as a patch to the proposal.

The reader's suggestions are shown again: the refinement rewrites
concepts, and without them it could undo what the reader asked the extraction for."""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from zettelgraph.prompts.proposal_patch import PATCH_GUIDE, ProposalPatch
from zettelgraph.prompts.quality import atomicity_guide, checklist
from zettelgraph.prompts.suggestions import suggestions_block

NAME = "refine_extraction"


class RefineInput(BaseModel):
    proposal: str
    quotes: str
    critique: str
    language: str = "es"
    suggestions: str | None = None  # the reader's, given when the run started


Refinement = ProposalPatch


def messages(data: RefineInput) -> list[BaseMessage]:
    return [
        SystemMessage(
            content="You improve a proposed set of Zettelkasten concepts so that it passes "
            "the checklist, addressing every issue of the critique at once.\n"
            + atomicity_guide(data.language)
            + "\n"
            + checklist(data.language)
        ),
        HumanMessage(
            content=f"Quotes:\n{data.quotes}\n\nProposal:\n{data.proposal}\n\n"
            f"Critique:\n{data.critique}\n\n"
            + suggestions_block(data.suggestions, keep=True, end="\n")
            + PATCH_GUIDE
        ),
    ]
