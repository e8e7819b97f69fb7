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
    from zettelgraph.context import Services
    from zettelgraph.experiments.models import ExperimentRecord
    from zettelgraph.models import Concept
    from zettelgraph.provenance.scope import Selection
    from zettelgraph.store.base import GraphStore

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
    """The provenance format named `fmt`.

    Args:
        fmt: the format's name: `jsonld`, `turtle` or `provn`.

    Returns:
        The `Format` (its name, media type and file suffix).

    Raises:
        ProvenanceError: no format has this name (the message lists them).
    """
    if fmt not in FORMATS:
        raise ProvenanceError(
            f"unknown provenance format {fmt!r}; choose one of: {', '.join(FORMATS)}"
        )
    return FORMATS[fmt]


def find_concept(store: GraphStore, given: str) -> Concept:
    """The concept with id `given`, or the one whose id starts with it (as listings show).

    Args:
        store: the graph store to read.
        given: a concept's whole id or its first characters.

    Returns:
        The concept.

    Raises:
        ProvenanceNotFoundError: `given` names no concept or several.
    """
    from zettelgraph.models import NodeLabel
    from zettelgraph.services.ids import IdError, resolve_node_id

    try:
        concept = store.get_concept(resolve_node_id(store, NodeLabel.CONCEPT, given))
    except IdError as exc:
        raise ProvenanceNotFoundError(str(exc)) from exc
    assert concept is not None
    return concept


def export_provenance(
    services: Services,
    *,
    concept: str | None = None,
    run: str | None = None,
    experiment: ExperimentRecord | None = None,
    everything: bool = False,
    fmt: str = "jsonld",
) -> str:
    """The provenance of one scope as `fmt`.

    Args:
        services: the open services.
        concept: a concept's id or a unique prefix.
        run: a run's id.
        experiment: an experiment's record.
        everything: the whole graph's provenance.
        fmt: one of FORMATS.

    Returns:
        The document, serialised.

    Raises:
        ProvenanceError: not exactly one scope is given.
    """
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
        selection = scope.for_run(store, _run_id(store, run))
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


def _run_id(store: GraphStore, given: str) -> str:
    """The run that wrote to the graph that `given` names: its id or a unique prefix (`ab12`,
    `run-ab12`); as given when it names none, for the caller's "wrote nothing"."""
    from zettelgraph.provenance.scope import run_ids
    from zettelgraph.services.card_generation import GENERATION_PREFIX
    from zettelgraph.services.extraction_runs import ExtractionRuns
    from zettelgraph.services.graph_runs import GraphRuns
    from zettelgraph.services.ids import AmbiguousIdError, IdKind, UnknownIdError, resolve_id

    # What writes to the graph: concept and graph extraction runs, and card generations.
    prefixes = (ExtractionRuns.run_prefix, GraphRuns.run_prefix, GENERATION_PREFIX)
    writers = IdKind("run", "zettelgraph runs", prefixes)
    try:
        return resolve_id(given, writers, run_ids(store))
    except UnknownIdError:
        return given
    except AmbiguousIdError as exc:
        raise ProvenanceError(str(exc)) from exc


def load_experiment(services: Services, experiment_id: str) -> ExperimentRecord:
    """An experiment's record, from the experiments service when this install has it.

    Args:
        services: the open services.
        experiment_id: the experiment's id or a unique prefix of it.

    Returns:
        The experiment's `ExperimentRecord`.

    Raises:
        ProvenanceError: this install has no experiments service.
        ProvenanceNotFoundError: there is no such experiment.
    """
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
    """Write an export so that a reader of `path` sees the old file or the new one whole.

    Args:
        path: the file to write (replaced if it exists).
        text: the serialized provenance.
    """
    from zettelgraph.vault.writer import atomic_write

    atomic_write(path, text)
