"""The store's claims (`GraphStore.swap_claim`), on every backend: a compare-and-set every
process sees, which decides the one open run per content across machines
(`services/run_claims.py`)."""

from __future__ import annotations

import threading

from zettelgraph.store import GraphStore, open_store


def test_a_claim_is_set_only_over_what_the_caller_expects(empty_store: GraphStore) -> None:
    store = empty_store
    assert store.swap_claim("content-a", None, "run-1") == "run-1"
    # Someone who expected no claim, or another one, changes nothing and is told what holds.
    assert store.swap_claim("content-a", None, "run-2") == "run-1"
    assert store.swap_claim("content-a", "run-9", "run-2") == "run-1"
    assert store.swap_claim("content-a", "run-1", "run-2") == "run-2"
    # Claims of other keys are apart; None removes a claim.
    assert store.swap_claim("content-b", None, "run-3") == "run-3"
    assert store.swap_claim("content-a", "run-2", None) is None
    assert store.swap_claim("content-a", None, "run-4") == "run-4"
    assert store.swap_claim("content-b", "run-3", "run-3") == "run-3"


def test_of_writers_claiming_at_once_exactly_one_wins(empty_store: GraphStore) -> None:
    """Eight connections (as eight processes would have) claim one new key at the same
    moment, twenty times over: the claim node does not exist yet, so all eight go to create
    it at once (on FalkorDB, 1 race in 6 to 8 had several winners before its key was made
    unique)."""
    writers, rounds = 8, 20
    stores = [open_store(empty_store.url) for _ in range(writers)]
    try:
        for key in (f"content-{n}" for n in range(rounds)):
            gate = threading.Barrier(writers)
            results: dict[str, str | None] = {}

            def claim(
                index: int,
                key: str = key,
                gate: threading.Barrier = gate,
                results: dict[str, str | None] = results,
            ) -> None:
                gate.wait()
                results[f"run-{index}"] = stores[index].swap_claim(key, None, f"run-{index}")

            threads = [threading.Thread(target=claim, args=(i,)) for i in range(writers)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            winners = [run for run, held in results.items() if held == run]
            assert len(winners) == 1, (key, results)
            assert set(results.values()) == {winners[0]}
    finally:
        for store in stores:
            store.close()
