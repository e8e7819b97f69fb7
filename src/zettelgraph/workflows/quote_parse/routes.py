"""Routing of the Quote Parse Graph (pure functions of state)."""

from __future__ import annotations

from typing import Literal

from zettelgraph.workflows.quote_parse.state import QuoteParseState


def after_parse(state: QuoteParseState) -> Literal["make_summary", "write_to_db", "__end__"]:
    """An unchanged file (same content hash) needs no LLM call and no write; an edit that adds
    no quote (a page or section fixed, a quote removed) is written without a new summary."""
    if state.get("status") == "unchanged":
        return "__end__"
    if state.get("status") == "updated" and not state.get("quotes_added"):
        return "write_to_db"
    return "make_summary"
