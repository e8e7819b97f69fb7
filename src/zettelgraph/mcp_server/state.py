"""What every tool and resource shares: the collaborators, opened once for the server's life.

The same bundle the web app opens (`web/state.py`): Services, the checkpoint database, and the
runs of both reviewed workflows on them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from zettelgraph.context import Services, open_services
from zettelgraph.services.checkpoints import open_checkpointer
from zettelgraph.services.experiments import ExperimentRuns
from zettelgraph.services.extraction_runs import ExtractionRuns
from zettelgraph.services.graph_runs import GraphRuns
from zettelgraph.services.proposal_runs import ProposalRuns, find_run
from zettelgraph.settings import Settings


@dataclass
class McpState:
    settings: Settings
    services: Services
    runs: ExtractionRuns
    graph_runs: GraphRuns
    experiments: ExperimentRuns

    @property
    def every_run(self) -> list[ProposalRuns]:
        """Concept runs first, then graph extraction runs: their ids tell them apart."""
        return [self.runs, self.graph_runs]

    def run_named(self, given: str) -> tuple[ProposalRuns, str]:
        """The workflow and whole id of the run `given` names (its id or a unique prefix,
        services/ids.py); IdError when it names none or several."""
        return find_run(self.every_run, given)


@contextmanager
def open_state(settings: Settings, *, services: Services | None = None) -> Iterator[McpState]:
    """The server's collaborators; injected `services` are used and left open (their owner
    closes them), those opened here are closed on exit."""
    opened = services or open_services(settings)
    try:
        with open_checkpointer(settings) as checkpointer:
            yield McpState(
                settings=settings,
                services=opened,
                runs=ExtractionRuns(opened, checkpointer),
                graph_runs=GraphRuns(opened, checkpointer),
                experiments=ExperimentRuns(opened, checkpointer),
            )
    finally:
        if services is None:
            opened.close()
