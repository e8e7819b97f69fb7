"""A passage split into propositions: self-contained statements, one claim each.

A question often asks about one claim of a passage that makes several ("¿Cuántos puntos
dejaron escapar los Panthers?" against a paragraph about a whole defence). Each proposition
names what it is about instead of "he", "it" or "this team", so it can be embedded and
matched on its own; search then returns the passage that makes it (docs/design.md,
"Propositions"). The parent section, when there is one, is shown as context only: it tells
the model who "he" is, and the statements must still come from the passage.
"""

from __future__ import annotations

from typing import Annotated

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from zettelgraph.llm.structured import Sampling
from zettelgraph.models import MAX_PROPOSITION_CHARS, MAX_PROPOSITIONS

NAME = "split_propositions"
# Up to 16 statements of about 30 words: well under 1,000 tokens.
SAMPLING = Sampling(max_tokens=1200, temperature=0.0)
# Context, not evidence: the start of the parent section is enough to resolve a pronoun.
MAX_CONTEXT_CHARS = 1200


class PropositionsInput(BaseModel):
    passage: str
    title: str = ""  # the Content's title
    section: str = ""  # the parent section's title
    context: str = ""  # the parent section's text (cut to MAX_CONTEXT_CHARS)


StatementText = Annotated[str, Field(min_length=1, max_length=MAX_PROPOSITION_CHARS)]


class Propositions(BaseModel):
    statements: list[StatementText] = Field(
        max_length=MAX_PROPOSITIONS,
        description="The passage's claims, one per statement, each understandable alone.",
    )


def messages(data: PropositionsInput) -> list[BaseMessage]:
    """The rules and where the passage comes from (context), then the passage alone: what
    the statements are made of is the whole of the reader's message."""
    context = data.context[:MAX_CONTEXT_CHARS]
    where = "\n".join(
        line
        for line in (
            f"Source: {data.title}" if data.title else "",
            f"Section: {data.section}" if data.section else "",
            f"Section text (context only, do not split it):\n{context}" if context else "",
        )
        if line
    )
    return [
        SystemMessage(
            content=(
                "You split the passage the reader sends into propositions: short declarative "
                "statements, each making exactly one claim the passage makes, in the "
                "passage's language, in the passage's order.\n"
                "Rules:\n"
                "- One claim per statement: split compound sentences; keep a number, date or "
                "name with the claim it belongs to.\n"
                "- Each statement stands alone: replace pronouns and references such as 'he', "
                "'it', 'this team' or 'the latter' by the name they refer to.\n"
                "- Only what the passage says: add no fact, opinion or explanation of your own; "
                "the context below shows who or what is meant, it is not a source of "
                "statements.\n"
                f"- At most {MAX_PROPOSITIONS} statements of at most "
                f"{MAX_PROPOSITION_CHARS} characters each, as `statements`."
                + (f"\n\nWhere the passage comes from:\n{where}" if where else "")
            )
        ),
        HumanMessage(content=data.passage),
    ]
