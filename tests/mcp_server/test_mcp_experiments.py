"""start_experiment, the MCP tool that proposes an experiment's plan up to the reader's review,
with its focus term checked by the rule the CLI and the web app share (issue 31: the term's
domain), on the real SQLite store with the fake LLM and the hash embedder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from experiment_books import add_books
from zettelgraph.mcp_server.state import McpState, open_state
from zettelgraph.mcp_server.tools_experiments import start_experiment
from zettelgraph.settings import Settings


@pytest.fixture
def state(tmp_path: Path) -> Iterator[McpState]:
    settings = Settings(home=tmp_path / "home", llm="fake", embeddings="hash", llm_backoff=0.0)
    with open_state(settings) as opened:
        yield opened


def test_start_experiment_takes_the_terms_domain_and_stops_at_the_review(
    state: McpState,
) -> None:
    ids = add_books(state.services)
    out = start_experiment(
        state, "temporal", "honra", [i[:8] for i in ids], domain="derecho", anchors=["fama"]
    )
    assert out.status == "awaiting_review" and out.experiment_id.startswith("exp-")
    assert out.term is not None and out.term["domain"] == "derecho"
    assert out.term["anchors"] == ["fama"] and len(out.documents) == 2
    assert f"experiment review {out.experiment_id}" in out.next_step

    with pytest.raises(ToolError, match="domain: String should have at most 100"):
        start_experiment(state, "temporal", "honra", ids, domain="d" * 101)
    with pytest.raises(ToolError, match="compares contents"):
        start_experiment(state, "temporal", "honra", ids[:1])
