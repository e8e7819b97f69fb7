"""W3C PROV export: what `zettelgraph export prov` and the web app's provenance downloads call.

One export covers exactly one scope: a concept, a run (concept or graph extraction, or a card
generation `gen-...`), an experiment (its record, loaded by the caller), or everything. The
formats are `FORMATS` (JSON-LD, Turtle, PROV-N). The heavy parts (`prov`, `rdflib`) are
imported when an export is made, so the command line can list the formats without them.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

from zettelgraph.provenance import FORMATS, Format

if TYPE_CHECKING:
    from zettelgraph.analysis.models import ExperimentRecord
    from zettelgraph.models import Concept
    from zettelgraph.provenance.scope import Selection
    from zettelgraph.store.base import GraphStore
    from zettelgraph.workflows.context import Services

__all__ = [
    "FORMATS",
    "Format",
    "ProvenanceError",
    "ProvenanceNotFoundError",
    "export_provenance",
    "load_experiment",
    "write_export",
]

SCOPES = "--concept ID, --run ID, --experiment ID or --all"


class ProvenanceError(ValueError):
    """An export that cannot be made as asked; the message says what to ask instead."""


class ProvenanceNotFoundError(ProvenanceError):
    """The concept, run or experiment named is not in the graph."""


def check_format(fmt: str) -> Format:
    if fmt not in FORMATS:
        raise ProvenanceError(
            f"unknown provenance format {fmt!r}; choose one of: {', '.join(FORMATS)}"
        )
    return FORMATS[fmt]


def find_concept(store: GraphStore, given: str) -> Concept:
    """The concept with id `given`, or the one whose id starts with it (as listings show)."""
    from zettelgraph.models import Concept, NodeLabel
    from zettelgraph.store.base import every_node

    concept = store.get_concept(given)
    if concept is not None:
        return concept
    found = [c for c in every_node(store, NodeLabel.CONCEPT, Concept) if c.id.startswith(given)]
    if not found or not given:
        raise ProvenanceNotFoundError(
            f"no concept with id {given!r}; `zettelgraph concepts` lists them"
        )
    if len(found) > 1:
        raise ProvenanceNotFoundError(
            f"{given!r} matches {len(found)} concepts; give more characters of the id"
        )
    return found[0]


def export_provenance(
    services: Services,
    *,
    concept: str | None = None,
    run: str | None = None,
    experiment: ExperimentRecord | None = None,
    everything: bool = False,
    fmt: str = "jsonld",
) -> str:
    """The provenance of one scope as `fmt`: a concept (id or a unique prefix), a run id, an
    experiment's record, or `everything`."""
    from zettelgraph.provenance.document import build_document
    from zettelgraph.provenance.formats import serialize

    check_format(fmt)
    chosen = [concept is not None, run is not None, experiment is not None, everything]
    if sum(chosen) != 1:
        raise ProvenanceError(f"give exactly one of {SCOPES}")
    # The selection is passed on, not kept: on a large graph it is half the memory.
    selection = _select(services.store, concept=concept, run=run, experiment=experiment)
    document = build_document(selection, reader=services.settings.reader, experiment=experiment)
    del selection
    return serialize(document, fmt)


def _select(
    store: GraphStore,
    *,
    concept: str | None,
    run: str | None,
    experiment: ExperimentRecord | None,
) -> Selection:
    from zettelgraph.provenance import scope

    if concept is not None:
        return scope.for_concept(store, find_concept(store, concept))
    if run is not None:
        selection = scope.for_run(store, run)
        if selection.empty:
            raise ProvenanceNotFoundError(
                f"no run {run!r} wrote anything to the graph (a run waiting for review or "
                "aborted has written nothing); `zettelgraph runs` lists extraction runs, and "
                "card generations are the `generation_id` of `zettelgraph cards generate --json`"
            )
        return selection
    if experiment is not None:
        return scope.for_experiment(store, experiment)
    return scope.everything(store)


def load_experiment(services: Services, experiment_id: str) -> ExperimentRecord:
    """An experiment's record, from the experiments service when this install has it."""
    try:
        # By name: the experiments service is optional here, and loading it costs a workflow.
        experiments = importlib.import_module("zettelgraph.services.experiments")
    except ImportError as exc:
        raise ProvenanceError(f"experiments are not available in this install ({exc})") from exc
    try:
        record: ExperimentRecord = experiments.load_experiment(services, experiment_id)
    except ValueError as exc:  # RunError: no such experiment, with how to list them
        raise ProvenanceNotFoundError(str(exc)) from exc
    return record


def write_export(path: Path, text: str) -> None:
    """Write an export so that a reader of `path` sees the old file or the new one whole."""
    from zettelgraph.vault.writer import atomic_write

    atomic_write(path, text)
