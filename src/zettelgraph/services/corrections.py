"""The reader's corrections after the commit: what they share.

A reader who finds a mistake later may rewrite a concept (`concept_edits.py`), delete a
concept or one of its relations (`deletions.py`), or remove a whole content with what only it
supports (`content_removal.py`). Every correction is written like a commit: one `ChangeSet` (the
change, the concepts whose notes it changes marked `vault_sync_pending`, and for a deletion
a `Removal` record of what went), then the notes; a note that cannot be written keeps its
mark, or its removal's record, for `zettelgraph vault sync`. Nothing else in the graph
changes, and each correction is recorded as the reader's: an edit in the concept's
`revisions`, a deletion in its `Removal` (`zettelgraph removals`, the PROV export).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from zettelgraph.context import Services
from zettelgraph.models import (
    Concept,
    LearningItem,
    NodeLabel,
    Relation,
    Removal,
    RemovalKind,
    removal_id,
    utcnow,
)
from zettelgraph.services.cards import refresh_vault
from zettelgraph.services.links import LinkError, find_concept
from zettelgraph.store.base import GraphStore, every_node
from zettelgraph.vault.entities import entity_vaults, write_entity_notes
from zettelgraph.vault.report import REPAIR, NotesReport
from zettelgraph.vault.sync import sync_concepts
from zettelgraph.vault.trash import discard_notes


class CorrectionError(ValueError):
    """A correction that cannot be made as asked; nothing was written. The message names
    what is wrong and what to give instead."""


class UnknownError(CorrectionError):
    """What the correction names is not in the graph."""


class RefusedError(CorrectionError):
    """The graph's state forbids the correction now (a title another concept has, a run
    still open on the content); the message says what to do first."""


def concept_named(store: GraphStore, given: str) -> Concept:
    """The one concept `given` names (its id, an id prefix or its title, as `zettelgraph
    link` takes them); UnknownError naming the candidates otherwise.

    Args:
        store: the graph store to read.
        given: what the reader typed: a concept's id, a unique prefix of one, or its exact title (up
            to case, accents and spacing).

    Returns:
        The concept.

    Raises:
        UnknownError: `given` names no concept or several (the message lists them).
    """
    try:
        return find_concept(store, given)
    except LinkError as exc:
        raise UnknownError(str(exc)) from exc


@dataclass
class NotesOutcome:
    """What became of the vault after a correction: notes written, updated, moved to the
    trash (ids), and the ones that could not be (each with what `vault sync` will do)."""

    notes_written: list[str] = field(default_factory=list)
    notes_updated: list[str] = field(default_factory=list)
    notes_removed: list[str] = field(default_factory=list)
    # Notes of other concepts an earlier write had left unwritten, written with these.
    notes_repaired: list[str] = field(default_factory=list)
    vault_errors: list[str] = field(default_factory=list)

    def add(self, report: NotesReport) -> None:
        """What a write or sync of notes did, added to this outcome.

        Args:
            report: what one write or sync of the vault's notes did.
        """
        self.notes_written += report.written
        self.notes_updated += [i for i in report.updated if i not in self.notes_updated]
        self.notes_removed += report.removed
        self.vault_errors += report.error_lines()

    def as_dict(self) -> dict[str, Any]:
        """What the front ends print or show about the vault after a correction.

        Returns:
            `notes_written`, `notes_updated`, `notes_removed`, `notes_repaired` (ids) and
            `vault_errors` (one line each).
        """
        return {
            "notes_written": self.notes_written,
            "notes_updated": self.notes_updated,
            "notes_removed": self.notes_removed,
            "notes_repaired": self.notes_repaired,
            "vault_errors": self.vault_errors,
        }


def rewrite_notes(
    services: Services,
    *,
    touched: Iterable[str] = (),
    removed: Mapping[str, str] | None = None,
    entities: Iterable[str] = (),
    removed_entities: Mapping[str, str] | None = None,
    cards: bool = False,
) -> NotesOutcome:
    """After a correction's commit: rewrite the notes of the `touched` concepts (and
    `entities`), move the notes of the `removed` ones (id -> title) to the trash, and
    rewrite the card files when `cards` went. Never raises for the vault: the store is
    committed, and what is not written is listed for `vault sync`.

    Args:
        services: the open services (store and vault).
        touched: full ids of the concepts whose notes to rewrite; none by default.
        removed: removed concepts, id -> title, whose notes go to the trash; None for none.
        entities: full ids of the pack entities whose notes to rewrite; none by default.
        removed_entities: removed entities, id -> name, whose notes go to the trash; None for none.
        cards: rewrite the vault's card files too (cards went or changed); False by default.

    Returns:
        What was written, updated and moved to the trash, and each note that could not be.
    """
    store, vault = services.store, services.vault
    outcome = NotesOutcome()
    try:
        written, repaired = sync_concepts(store, vault, touched)
        reports = [written, discard_notes(store, [vault], removed or {})]
        outcome.notes_repaired = repaired.written + repaired.updated
        outcome.vault_errors += repaired.error_lines()
        root, folders = vault.root, services.settings.entity_folders
        if removed_entities:
            packs = [pack.name for pack in services.packs.packs]
            reports.append(
                discard_notes(
                    store,
                    entity_vaults(root, packs, folders),
                    removed_entities,
                    key="entity_id",
                )
            )
        if entities:
            reports.append(
                write_entity_notes(store, root, services.packs, list(entities), folders=folders)
            )
    except OSError as exc:
        outcome.vault_errors.append(f"{exc}: {REPAIR}")
        return outcome
    for report in reports:
        outcome.add(report)
    if cards:
        refresh_vault(services)
    return outcome


class Plan(Protocol):
    """What a deletion will take, read before anything is written (the confirmation)."""

    def as_dict(self) -> dict[str, Any]:
        """What the confirmation shows and `--json` prints of the deletion.

        Returns:
            A JSON-able dict: the ids and titles of what goes, and what stays but changes.
        """
        ...


PlanT = TypeVar("PlanT", bound=Plan)


@dataclass
class Removed(Generic[PlanT]):
    """A deletion done: what it took (its plan), its `Removal` record, and what became of
    the notes."""

    plan: PlanT
    removal_id: str
    notes: NotesOutcome = field(default_factory=NotesOutcome)

    def as_dict(self) -> dict[str, Any]:
        """What `--json` prints after a deletion.

        Returns:
            The plan's `as_dict` with `removal_id` and the `NotesOutcome` fields.
        """
        return {**self.plan.as_dict(), "removal_id": self.removal_id, **self.notes.as_dict()}


def removal_record(
    services: Services, kind: RemovalKind, subject_id: str, title: str, **what: Any
) -> Removal:
    """The record of a removal the reader makes now: `what` it took (`Removal`'s fields).

    Args:
        services: the open services (its settings name the reader).
        kind: what was removed: "concept", "relation" or "content".
        subject_id: the removed concept's or content's full id; for a relation, its source
            concept's.
        title: what the reader removed as they knew it (a title, or "A -[TYPE]-> B").
        **what: the other `Removal` fields (`concepts`, `relations`, `items`, `entities`, `counts`,
            `details`); a relation's removal needs `relations`, its first key naming it.

    Returns:
        The record, dated now, not yet written.
    """
    at = utcnow()
    key = subject_id if kind != "relation" else "/".join(what["relations"][0])
    return Removal(
        id=removal_id(kind, key, at),
        created_at=at,
        kind=kind,
        title=title,
        subject_id=subject_id,
        by=services.settings.reader,
        **what,
    )


def counted_relations(relations: Iterable[Relation]) -> int:
    """Relations as a reader counts them: a relation and the reverse the store added for it
    are one (the reverse carries `inferred_reverse_of`).

    Args:
        relations: relations as the store holds them, reverses included.

    Returns:
        How many relations a reader sees.
    """
    return sum("inferred_reverse_of" not in r.properties for r in relations)


def card_rows(cards: list[LearningItem]) -> list[dict[str, str]]:
    """The cards a correction takes, as its plan lists them.

    Args:
        cards: the learning items.

    Returns:
        One `{id, front, status}` per card, in the order given.
    """
    return [{"id": item.id, "front": item.front, "status": str(item.status)} for item in cards]


def with_history(store: GraphStore, cards: list[LearningItem]) -> list[str]:
    """The ids of `cards` and of their study history (ReviewLogs), which goes with them.

    Args:
        store: the graph store to read.
        cards: the learning items to remove.

    Returns:
        The cards' ids followed by the ids of every review log of them.
    """
    return [
        *(item.id for item in cards),
        *(log.id for item in cards for log in store.review_logs(item.id)),
    ]


def marked_for_notes(store: GraphStore, concept_ids: list[str]) -> list[Concept]:
    """The concepts among `concept_ids`, marked for their notes to be rewritten.

    Args:
        store: the graph store to read.
        concept_ids: full concept ids (repeats and ids no longer stored are skipped).

    Returns:
        Copies of the concepts with `vault_sync_pending` set, to write with the correction.
    """
    found = [store.get_concept(concept_id) for concept_id in dict.fromkeys(concept_ids)]
    return [c.model_copy(update={"vault_sync_pending": True}) for c in found if c is not None]


def removals(store: GraphStore) -> list[Removal]:
    """Every correction that removed part of the graph, newest first.

    Args:
        store: the graph store to read.

    Returns:
        The `Removal` records, newest first.
    """
    found = list(every_node(store, NodeLabel.REMOVAL, Removal))
    return sorted(found, key=lambda removal: (removal.created_at, removal.id), reverse=True)
