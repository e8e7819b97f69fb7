"""The template packs a graph extraction run uses, resolved by name in every node.

A run stores only the pack names (checkpoints stay plain JSON); nodes ask a `PackResolver` for
the merged schema. The default reads the packs from their YAML files (`packs/loader.py`);
tests and embedders of the library pass their own. Either way the workflow sees the schema
through `for_graph_extraction`: Concepts are the concept workflow's (Concept nodes, not
entities), so their type and the relationship types between them are left out.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from zettelgraph.packs.relations import CONCEPT_TYPE
from zettelgraph.packs.schema import PackSchema
from zettelgraph.settings import Settings
from zettelgraph.text.normalize import normalize_name

PackResolver = Callable[[Sequence[str] | None], PackSchema]


def file_resolver(settings: Settings) -> PackResolver:
    """Packs by name from the shipped and the user's pack files (None: the active ones).

    Every node of every batch asks, so a schema is read once and kept while no pack file
    changes (their paths and modification times are compared, a few `stat` calls)."""
    from zettelgraph.packs.loader import active_schema, available_packs

    # One schema per choice of packs: the Sources page asks for each active pack in turn,
    # which with a single entry re-read every pack file on every load (about 90 ms).
    cache: dict[tuple[str, ...] | None, tuple[Any, PackSchema]] = {}
    lock = threading.Lock()  # batches resolve from worker threads

    def resolve(names: Sequence[str] | None) -> PackSchema:
        files = available_packs(settings)
        stamp = tuple(sorted((name, path.stat().st_mtime_ns) for name, path in files.items()))
        key = tuple(names) if names is not None else None
        with lock:
            known = cache.get(key)
            if known is None or known[0] != stamp:
                if len(cache) >= 32:
                    cache.clear()  # many choices of packs: start again, not grow
                known = cache[key] = (stamp, active_schema(settings, names))
            return known[1]

    return resolve


def for_graph_extraction(resolver: PackResolver) -> PackResolver:
    """`resolver` without the Concept type and the relationship types that join only it."""

    # The last schema resolved and what it became, so the same schema is not filtered again.
    last: list[tuple[PackSchema, PackSchema]] = []

    def resolve(names: Sequence[str] | None) -> PackSchema:
        schema = resolver(names)
        if CONCEPT_TYPE not in schema.entity_types:
            return schema
        seen = last[:1]
        if seen and seen[0][0] is schema:
            return seen[0][1]
        scoped = _without_concepts(schema)
        last[:] = [(schema, scoped)]
        return scoped

    return resolve


def _without_concepts(schema: PackSchema) -> PackSchema:
    entity_types = {k: v for k, v in schema.entity_types.items() if k != CONCEPT_TYPE}
    relationship_types = {}
    for name, spec in schema.relationship_types.items():
        sources = tuple(t for t in spec.source_types if t != CONCEPT_TYPE)
        targets = tuple(t for t in spec.target_types if t != CONCEPT_TYPE)
        if sources and targets:
            relationship_types[name] = spec.model_copy(
                update={"source_types": sources, "target_types": targets}
            )
    return PackSchema(
        packs=schema.packs,
        entity_types=entity_types,
        relationship_types=relationship_types,
        defined_by=schema.defined_by,
    )


def pack_versions(schema: PackSchema) -> list[dict[str, str]]:
    return [{"name": pack.name, "version": pack.version} for pack in schema.packs]


def known_type(given: str, known: Sequence[str]) -> str | None:
    """`given` as one of the `known` type names: exactly, or ignoring case, accents, spaces
    and underscores when that names exactly one ("person" -> "Person", "lives in" ->
    "LIVES_IN"). None when it names none."""
    if given in known:
        return given

    def folded(name: str) -> str:
        return normalize_name(name).replace("_", "").replace(" ", "").replace("-", "")

    matches = [name for name in known if folded(name) == folded(given)]
    return matches[0] if len(matches) == 1 else None
