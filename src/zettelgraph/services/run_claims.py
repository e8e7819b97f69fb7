"""A content's claim in the store while a run of it starts and stays open: what decides, across
machines, that a content has one open run of a workflow.

Lock files (`run_locks.RunLocks`) serialise the processes of one machine. Two
machines sharing a server store and a checkpoint database each see only their own lock files:
both may look for an open run, find none, and start one. So a start also claims the content
in the store, with one compare-and-set every process sees (`GraphStore.swap_claim`). The claim
names the run; a second start finds it and is refused, naming that run.

A claim is never released by the run it names: it stands while that run is open (awaiting
review, interrupted or running) and a later start replaces it once the run has ended. A claim
whose run is not in the checkpoint database is a start in progress (its first checkpoint is
written within moments), unless it is older than CLAIM_SECONDS or its process is known dead
on this machine: a process killed between the claim and its first checkpoint holds nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

from zettelgraph.services.run_view import (
    OPEN_STATUSES,
    BusyError,
    OpenRunError,
    RunError,
    RunView,
)
from zettelgraph.store import GraphStore
from zettelgraph.system.processes import dead_here, this_process

# A start writes its first checkpoint moments after its claim; one still without a checkpoint
# after this long belongs to a process that died (on another machine: on this one a dead
# process is seen at once).
CLAIM_SECONDS = 60.0
# Replacing a claim that no longer holds can lose to another start replacing it too; after
# this many rounds the start is refused as busy rather than retried for ever.
TRIES = 5


@dataclass(frozen=True)
class Claim:
    """Run `run_id`, started by `holder` ("host:pid") at `at` (seconds since the epoch)."""

    run_id: str
    holder: str
    at: float

    def text(self) -> str:
        """The claim as the store keeps it.

        Returns:
            JSON of `run_id`, `holder` and `at`, keys sorted (two equal claims are the same text).
        """
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def read(cls, text: str) -> Claim | None:
        """The claim `text` records, or None for one this version cannot read (replaced).

        Args:
            text: a claim as the store keeps it (`Claim.text`).

        Returns:
            The claim, or None when `text` is not a claim this version wrote.
        """
        try:
            data = json.loads(text)
            return cls(run_id=str(data["run_id"]), holder=str(data["holder"]), at=float(data["at"]))
        except (ValueError, TypeError, KeyError):
            return None

    def starting(self) -> bool:
        """Whether the claim's run may still be starting: recent, and its process not known
        to be gone.

        Returns:
            True when it is younger than `CLAIM_SECONDS` and its process is not seen to be dead on
            this machine.
        """
        return time.time() - self.at < CLAIM_SECONDS and not dead_here(self.holder)


def claim(
    store: GraphStore, key: str, run_id: str, holds: Callable[[Claim], bool]
) -> tuple[Claim, bool]:
    """Claim `key` for `run_id`: (this run's claim, True), or (the claim in its way, False)
    when `holds` says another run still has it.

    Args:
        store: the graph store that keeps the claims (one atomic swap each).
        key: what is claimed (a content's start).
        run_id: the run that claims it.
        holds: whether a claim found in the way still holds (its run is open or starting).

    Returns:
        (the claim, True) when this run now holds `key`; (the claim in its way, False) otherwise,
        after `TRIES` rounds at most.
    """
    mine = Claim(run_id, this_process(), time.time())
    expected: str | None = None
    theirs = mine
    for _ in range(TRIES):
        held = store.swap_claim(key, expected, mine.text())
        if held == mine.text():
            return mine, True
        found = Claim.read(held) if held is not None else None
        if found is not None:
            theirs = found
            if holds(found):
                return found, False
        expected = held
    return theirs, False


def claim_content(
    store: GraphStore, key: str, run_id: str, view: Callable[[str], RunView]
) -> Claim:
    """Claim the content `key` for `run_id`, or refuse naming the run that holds it:
    OpenRunError once that run is in the checkpoint database, BusyError before. `view` reads
    a run (RunError when the checkpoint database does not have it).

    Args:
        store: the graph store that keeps the claims.
        key: the content's claim key.
        run_id: the run being started.
        view: reads a run by id from the checkpoint database.

    Returns:
        This run's claim, to `release` if the start leaves no run.

    Raises:
        OpenRunError: an open run of the content is in the checkpoint database (the message says how
            to go on with it).
        BusyError: another run of the content is being started right now.
    """

    def holds(found: Claim) -> bool:
        """Whether the run a claim names still owns its content."""
        try:
            return view(found.run_id).status in OPEN_STATUSES
        except RunError:
            # Not in the checkpoint database: being started, or its start died.
            return found.starting()

    found, won = claim(store, key, run_id, holds)
    if won:
        return found
    if found.run_id == run_id:  # others kept replacing the claim: no run to name
        raise BusyError("another run of this content is being started right now; try again")
    try:
        theirs: RunView | None = view(found.run_id)
    except RunError:
        theirs = None
    if theirs is not None and theirs.status in OPEN_STATUSES:
        raise OpenRunError(theirs)
    host = found.holder.partition(":")[0]
    raise BusyError(
        f"run {found.run_id} of this content is being started right now (on {host}); "
        "`zettelgraph runs` lists it"
    )


def release(store: GraphStore, key: str, mine: Claim) -> None:
    """Give up `mine` (a start that left no run behind), unless it was replaced meanwhile.

    Args:
        store: the graph store that keeps the claims.
        key: the claimed key.
        mine: the claim `claim_content` returned.
    """
    store.swap_claim(key, mine.text(), None)
