"""Start, review, resume and list graph extraction runs (`graph-...`).

The run rules are every reviewed workflow's (`runs.WorkflowRuns`): checkpointed threads that
wait for the reader, one open run per content, one process driving a run at a time. Graph runs
share the checkpoint database with concept runs and are told apart by their id prefix, so
`zettelgraph review RUN_ID` and `resume RUN_ID` serve both; a content may have an open concept
run and an open graph run at once (they write different nodes).

Before a run starts, its packs are resolved (an unknown pack is refused with the list of the
packs there are) and checked against the store's relation vocabulary: a relationship type the
store would refuse at commit is refused now, naming the setting that fixes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from zettelgraph.context import Services
from zettelgraph.packs.schema import PackError, PackSchema
from zettelgraph.services.proposal_runs import ProposalRuns
from zettelgraph.services.run_view import RunError, RunView, StepCallback
from zettelgraph.workflows.graph_extraction.graph import (
    RECURSION_LIMIT,
    build_graph_extraction_graph,
)
from zettelgraph.workflows.graph_extraction.packs import (
    PackResolver,
    file_resolver,
    for_graph_extraction,
)

GRAPH_RUN_PREFIX = "graph-"


class GraphRuns(ProposalRuns):
    """Graph extraction runs of one store and checkpoint database."""

    run_prefix = GRAPH_RUN_PREFIX
    recursion_limit = RECURSION_LIMIT

    def __init__(
        self,
        services: Services,
        checkpointer: BaseCheckpointSaver[Any],
        packs: PackResolver | None = None,
    ) -> None:
        self.packs = packs or file_resolver(services.settings)
        super().__init__(services, checkpointer)
        self._extraction_schema = for_graph_extraction(self.packs)

    def _build_graph(self) -> CompiledStateGraph[Any, Any, Any, Any]:
        return build_graph_extraction_graph(self.services, self.checkpointer, self.packs)

    def _content_lock(self, content_id: str) -> str:
        return f"graph-content-{content_id}"

    def schema(self, packs: Sequence[str] | None) -> PackSchema:
        """The merged schema of `packs`.

        Args:
            packs: pack names; None for the active packs (ZETTELGRAPH_PACKS).

        Returns:
            Their merged schema.

        Raises:
            RunError: an unknown or broken pack, a pack with no entity types, or a relationship type
                the store does not accept.
        """
        try:
            schema = self._extraction_schema(list(packs) if packs is not None else None)
        except PackError as exc:
            raise RunError(str(exc)) from exc
        names = ", ".join(pack.name for pack in schema.packs)
        if not schema.entity_types:
            raise RunError(
                f"pack {names} has no entity types to extract (Concepts come from `zettelgraph "
                "extract`): choose a pack such as narrative or research (`zettelgraph packs list`)"
            )
        accepted = self.services.store_vocabulary.types
        refused = [name for name in schema.relationship_types if name not in accepted]
        if refused:
            raise RunError(
                f"the store does not accept the relationship types of pack {names} "
                f"({', '.join(refused[:5])}): add {names} to ZETTELGRAPH_PACKS, which "
                "decides the relation types the graph may hold"
            )
        return schema

    def start(
        self,
        content_id: str,
        *,
        packs: Sequence[str] | None = None,
        suggestions: str | None = None,
        on_step: StepCallback | None = None,
    ) -> RunView:
        """Extract entities and relationships of `packs` (None: the active packs) from a
        content's passages, up to the review.

        Args:
            content_id: the content to extract from.
            packs: pack names; None for the active packs.
            suggestions: the reader's hints for the extraction, if any.
            on_step: told each step's name as it finishes.

        Returns:
            The run, waiting for review.

        Raises:
            RunError: an unknown content or a pack the store cannot hold.
            OpenRunError: the content has an open graph run.
            BusyError: another process is starting one.
        """
        schema = self.schema(packs)
        if self.services.store.get_content(content_id) is None:
            raise RunError(f"no content with id {content_id}: `zettelgraph contents` lists them")
        payload = {"packs": [pack.name for pack in schema.packs], "suggestions": suggestions}
        return self._start(content_id, payload, on_step)
