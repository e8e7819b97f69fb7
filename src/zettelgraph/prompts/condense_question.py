"""`zettelgraph ask --chat ID`: a follow-up question rewritten to stand on its own.

"And what did he say about sleep?" finds nothing by itself: search has no memory. Before
retrieval, the fast model rewrites the follow-up with what the earlier turns say it refers
to ("What did John Ratey say about sleep?"), in the follow-up's language. Only the search
uses the rewrite; the answer is still written for the question as the reader asked it.
"""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.prompts.answer_question import PromptTurn, turn_lines

NAME = "condense_question"
# A standalone question is one sentence; anything longer is the model answering instead.
MAX_QUESTION_CHARS = 600


class CondenseQuestionInput(BaseModel):
    # Earlier turns, oldest first (the latest few are shown).
    history: list[PromptTurn]
    question: str


class CondensedQuestion(BaseModel):
    question: str = Field(
        min_length=1,
        max_length=MAX_QUESTION_CHARS,
        description="The follow-up as one standalone question, in the follow-up's language.",
    )


def messages(data: CondenseQuestionInput) -> list[BaseMessage]:
    return [
        SystemMessage(
            content=(
                "You rewrite a reader's follow-up question so that it can be understood "
                "without the conversation: replace pronouns and references such as 'he', "
                "'that book' or 'and the second one?' by what they refer to in the earlier "
                "turns. Keep the reader's meaning and language; do not answer the question, "
                "do not add anything the reader did not ask. If the question already stands "
                "on its own, return it unchanged."
            )
        ),
        HumanMessage(
            content=(
                f"Conversation so far:\n{turn_lines(data.history)}\n\n---\n"
                f"Follow-up question: {data.question}\n\n"
                "Give `question`: the follow-up as one standalone question."
            )
        ),
    ]
