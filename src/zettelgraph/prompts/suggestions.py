"""The reader's suggestions for a run, as every proposal prompt shows them (extraction,
critique, refinement): one wording, so the model reads them the same way at each step."""

from __future__ import annotations


def suggestions_block(suggestions: str | None, *, keep: bool = False, end: str = "") -> str:
    """The reader's suggestions as every proposal prompt shows them (extraction, critique,
    refinement), ending in a newline and `end`; empty without any. `keep`: the proposal
    already follows them, and a rewrite must not undo that."""
    if not suggestions or not suggestions.strip():
        return ""
    how = "keep following them; do not undo what they ask for" if keep else "follow them"
    return f"The reader's suggestions ({how}):\n{suggestions.strip()}\n{end}"
