"""Commit an approved graph extraction in one store transaction, then the entity notes.

Before writing, every relationship is checked once more against the store as it is now and the
packs as they are now: an existing endpoint that disappeared during the review, or a type the
packs no longer allow between the two types, drops the relationship with a warning. An entity
proposed as new that another run wrote meanwhile is merged into, not overwritten. Everything
written derives from the run's state (ids, approval time), so replaying the commit after a
crash writes the same graph.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from typing_extensions import TypedDict

from zettelgraph.context import Services
from zettelgraph.models import ChangeSet, Entity, Relation, embedding_text
from zettelgraph.packs.schema import PackSchema
from zettelgraph.vault.report import REPAIR
from zettelgraph.workflows.graph_extraction.decisions import kept_graph
from zettelgraph.workflows.graph_extraction.packs import PackResolver
from zettelgraph.workflows.graph_extraction.state import Committed, DraftEntity, GraphState

# Provenance lists an entity keeps at most (passages, runs, calls): a person named in every
# book of a library must not grow without bound.
MAX_PROVENANCE_ITEMS = 200


class Provenance(TypedDict):
    """What every entity and relationship the commit writes records of the run."""

    run: str
    content_id: str
    model: str
    approved_at: str | None
    feedback_rounds: int


def _union(old: Any, new: list[str]) -> list[str]:
    items = [str(x) for x in old] if isinstance(old, list) else []
    return list(dict.fromkeys([*items, *new]))[-MAX_PROVENANCE_ITEMS:]


def commit(state: GraphState, services: Services, packs: PackResolver) -> GraphState:
    store = services.store
    schema = packs(state.get("packs"))
    run_id = state["run_id"]
    # Exactly what the reader kept (`decisions.kept_graph`); the rest is reported.
    proposal, left_out = kept_graph(state["proposal"], state.get("review"))
    approved_at = datetime.fromisoformat(state["approved_at"] or "")
    versions = {p["name"]: p["version"] for p in state.get("pack_versions", [])}
    common: Provenance = {
        "run": run_id,
        "content_id": state["content_id"],
        "model": services.llms.main_spec,
        "approved_at": state["approved_at"],
        "feedback_rounds": state.get("review_rounds", 0),
    }
    drafts = proposal["entities"]
    stored = {e.id: e for e in store.get_entities([d["id"] for d in drafts])}
    entities: list[Entity] = []
    embed: list[Entity] = []
    # A commit replayed after a kill finds the entities its first attempt wrote: they are
    # still this run's new ones (reported so), and embedded again, since on a store that
    # cannot roll back (FalkorDB) the first attempt may have stopped before their vectors.
    ours = {i for i, e in stored.items() if e.provenance.get("run") == run_id}
    for draft in drafts:
        before = stored.get(draft["id"])
        entity = _entity(draft, before, schema, versions, common, approved_at)
        entities.append(entity)
        if before is None or entity.id in ours or before.description != entity.description:
            embed.append(entity)
    warnings: list[str] = []
    types = {e.id: e.entity_type for e in entities}
    referenced = [r for r in proposal["referenced"] if r not in types]
    types.update({e.id: e.entity_type for e in store.get_entities(referenced)})
    names = {e.id: e.name for e in entities}
    names.update({k: v["name"] for k, v in proposal["referenced"].items()})
    relations: list[Relation] = []
    for r in proposal["relationships"]:
        source_name = names.get(r["source"], r["source"])
        label = f"{source_name} {r['type']} {names.get(r['target'], r['target'])}"
        source_type, target_type = types.get(r["source"]), types.get(r["target"])
        if source_type is None or target_type is None:
            warnings.append(f"dropped {label}: an endpoint is no longer in the graph")
            continue
        if not schema.allows(r["type"], source_type, target_type):
            warnings.append(f"dropped {label}: the packs no longer allow it between these types")
            continue
        pack = schema.defined_by.get(r["type"], "")
        relations.append(
            Relation(
                source_id=r["source"],
                target_id=r["target"],
                type=r["type"],
                created_at=approved_at,
                properties={
                    **common,
                    "description": r["description"],
                    **({"confidence": r["confidence"]} if r.get("confidence") is not None else {}),
                    "passages": r["passage_ids"],
                    "llm_calls": r["calls"],
                    "pack": pack,
                    "pack_version": versions.get(pack, ""),
                },
            )
        )
    vectors = services.embedder.embed([embedding_text(e) for e in embed]) if embed else None
    store.ensure_embedder(services.embedder.name, services.embedder.dim)
    store.apply(
        ChangeSet(
            entities=entities,
            relations=relations,
            vectors={e.id: vectors[i] for i, e in enumerate(embed)} if vectors is not None else {},
        )
    )
    new = [e.id for e in entities if e.id not in stored or e.id in ours]
    updated = [e.id for e in entities if e.id in stored and e.id not in ours]
    return {
        "status": "committed",
        "committed": {
            "entities_new": new,
            "entities_updated": updated,
            "relationships": len(relations),
            "relationships_dropped_at_commit": len(proposal["relationships"]) - len(relations),
            "left_out": left_out,
        },
        "warnings": warnings,
    }


def _entity(
    draft: DraftEntity,
    before: Entity | None,
    schema: PackSchema,
    versions: dict[str, str],
    common: Provenance,
    at: datetime,
) -> Entity:
    """The entity to write: new, or the stored one with this run's passages, calls and the
    properties it did not have (a stored value is never overwritten)."""
    pack = schema.defined_by.get(draft["type"], "")
    if before is None:
        return Entity(
            id=draft["id"],
            created_at=at,
            name=draft["name"][:300],
            entity_type=draft["type"],
            description=draft["description"][:2000],
            properties=draft["properties"],
            pack=pack,
            provenance={
                **common,
                "runs": [common["run"]],
                "passages": draft["passage_ids"][:MAX_PROVENANCE_ITEMS],
                "llm_calls": draft["calls"],
                "pack": pack,
                "pack_version": versions.get(pack, ""),
                "names": draft["names"],
                "matched_by": draft["matched_by"],
            },
        )
    old = before.provenance
    runs = old.get("runs") or ([old["run"]] if old.get("run") else [])
    return before.model_copy(
        update={
            "description": before.description or draft["description"][:2000],
            "properties": {**draft["properties"], **before.properties},
            "provenance": {
                **old,
                "runs": _union(runs, [common["run"]]),
                "passages": _union(old.get("passages"), draft["passage_ids"]),
                "llm_calls": _union(old.get("llm_calls"), draft["calls"]),
                "names": _union(old.get("names"), draft["names"]),
            },
        }
    )


def write_vault(state: GraphState, services: Services, packs: PackResolver) -> GraphState:
    """Notes for the entities the commit wrote or touched, then the concept notes an earlier
    write left unwritten (a vault failure is a warning: the graph is committed, `zettelgraph
    vault sync` repairs the notes)."""
    from zettelgraph.vault.entities import write_entity_notes
    from zettelgraph.vault.sync import sync_pending

    committed = state.get("committed", Committed()).copy()
    ids = [*committed.get("entities_new", []), *committed.get("entities_updated", [])]
    ids += list(state["proposal"]["referenced"])
    try:
        # Every active pack, as `vault sync` renders them: a note drawn with the run's packs
        # alone would read as changed at the next sync and be rewritten.
        report = write_entity_notes(
            services.store,
            services.settings.vault_path,
            services.packs,
            ids,
            folders=services.settings.entity_folders,
        )
        repaired = sync_pending(services.store, services.vault)
    except OSError as exc:
        return {
            "committed": {**committed, "vault_errors": [str(exc)]},
            "warnings": [f"notes not written ({exc}): {REPAIR}"],
        }
    committed["notes_written"] = len(report.written)
    committed["notes_updated"] = len(report.updated)
    committed["notes_repaired"] = repaired.written + repaired.updated
    committed["vault_errors"] = report.error_lines() + repaired.error_lines()
    warnings = report.repair_warnings("entity notes") + repaired.repair_warnings()
    return {"committed": committed, "warnings": warnings}
