"""Keeping a graph in shape: `vault sync` (files of every kind the store has but the vault
lacks or has stale, and leftovers of interrupted writes) and `store copy` (a whole graph to
another store, verified, resumable)."""

from __future__ import annotations

from collections.abc import Callable

from zettelgraph.context import Services
from zettelgraph.packs.loader import active_schema
from zettelgraph.packs.relations import vocabulary_from
from zettelgraph.packs.schema import PackError
from zettelgraph.services.checkpoints import CheckpointError
from zettelgraph.services.experiment_notes import vault_notes
from zettelgraph.settings import Settings
from zettelgraph.store import open_store
from zettelgraph.store.base import StoreError
from zettelgraph.store.copy import CopyError, CopyReport, copy_store
from zettelgraph.system.extras import MissingExtraError
from zettelgraph.text.masking import mask_url_password
from zettelgraph.vault.cards import sync_card_files
from zettelgraph.vault.experiments import sync_experiment_notes
from zettelgraph.vault.report import EXPERIMENT_NOTE
from zettelgraph.vault.sync import SyncReport, sync_pending, sync_vault


def sync_notes(services: Services, *, check: bool = False) -> SyncReport:
    """Bring every file zettelgraph keeps in the vault in step with the store: the concept,
    book and author notes, the active packs' entity notes, the card files of the approved
    cards and the notes of the completed experiments; each kind with the writer its normal
    path uses, so a repaired file is the one an uninterrupted command would have written.
    Temporary files that killed writes left are removed. With `check`, only report what
    differs (nothing written, in the vault or the store). Concept notes go first: the card
    files link them by their names.

    Args:
        services: the open services (store, settings and vault).
        check: only report what differs, writing nothing; False (the default) repairs.

    Returns:
        What was (or, with `check`, would be) written, updated and removed, and each file that could
        not be written.
    """
    vault = services.vault  # one index of the notes, so the card files link the names chosen
    report = sync_vault(
        services.store,
        vault,
        check=check,
        schema=services.packs,
        entity_folders=services.settings.entity_folders,
    )
    report.absorb(sync_card_files(services.store, vault, check=check))
    try:
        experiments = vault_notes(services.settings)
    except (CheckpointError, OSError) as exc:
        error = f"the experiments cannot be read, so their notes are not checked: {exc}"
        report.errors.append({"kind": EXPERIMENT_NOTE, "path": None, "error": error})
    else:
        report.absorb(sync_experiment_notes(vault.root, experiments, check=check))
    return report


def repair_pending_notes(services: Services) -> SyncReport:
    """Write the concept notes an earlier write left unwritten (their concepts still carry
    `vault_sync_pending`), as `serve` does before it listens: a note a failed commit left
    behind is repaired the next time the vault is opened for writing, without `vault sync`.

    Args:
        services: the open services (store and vault).

    Returns:
        The notes written or updated, and each that still could not be (its flag kept).
    """
    return sync_pending(services.store, services.vault)


def copy_graph(
    settings: Settings,
    target_url: str,
    *,
    source_url: str | None = None,
    progress: Callable[[str, int], None] | None = None,
) -> CopyReport:
    """Copy every node, relation and vector of the configured (or `source_url`) store to an
    empty `target_url` store, then verify the counts. Run again after an interruption: it
    resumes where it stopped.

    Args:
        settings: the settings naming the configured store, the active packs and the home folder
            (where the copy's progress is kept).
        target_url: the store to copy into (`sqlite:///PATH`, `falkordb://...`, `neo4j://...`),
            empty unless an interrupted copy into it began here.
        source_url: the store to copy from; None (the default) copies the configured store.
        progress: called with a phase's name and how many it has copied so far, to show progress;
            None for silence.

    Returns:
        The `CopyReport`: the two stores, how many of each were copied and removed, the passes made,
        the counts verified and whether it resumed.

    Raises:
        CopyError: the packs cannot be read, a store cannot be opened, the target is not empty or
            was written by something else, the source kept changing, or the copy does not match its
            source (the message says what to do).
    """
    source = source_url or settings.store_url
    try:
        # Both ends accept the active packs' types, entity relationships included.
        vocabulary = vocabulary_from(active_schema(settings))
    except PackError as exc:
        raise CopyError(f"cannot read the active packs: {exc}") from exc
    try:
        source_store = open_store(source, vocabulary)
    except (StoreError, MissingExtraError) as exc:
        raise CopyError(f"cannot open the source store {mask_url_password(source)}: {exc}") from exc
    try:
        try:
            target_store = open_store(target_url, vocabulary)
        except (StoreError, MissingExtraError) as exc:
            raise CopyError(
                f"cannot open the target store {mask_url_password(target_url)}: {exc}"
            ) from exc
        try:
            return copy_store(
                source_store,
                target_store,
                settings.home / "copies",
                progress=progress,
            )
        finally:
            target_store.close()
    finally:
        source_store.close()
