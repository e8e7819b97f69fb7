"""Routing of the Quote Parse Graph (pure functions of state)."""

from __future__ import annotations

from typing import Literal

from zettelgraph.workflows.quote_parse.state import QuoteParseState


def after_parse(state: QuoteParseState) -> Literal["make_summary", "__end__"]:
    """An unchanged file (same content hash) needs no LLM call and no write."""
    return "__end__" if state.get("status") == "unchanged" else "make_summary"
