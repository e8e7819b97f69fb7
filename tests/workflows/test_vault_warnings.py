"""What a commit's vault step tells the reader about notes it could not write: one line per note,
naming it, and how to repair them (issue 29: both workflows word it in one place)."""

from __future__ import annotations

from harness import Harness

from zettelgraph.workflows.concept_extraction.nodes_commit import write_vault
from zettelgraph.workflows.concept_extraction.state import Committed


def test_a_note_that_cannot_be_written_is_named_by_its_id_when_it_has_no_title(
    harness: Harness,
) -> None:
    # A committed id the store no longer holds: its error entry has an id and no title.
    committed = Committed(concepts=["missing-id"], touched_existing=[])
    out = write_vault({"committed": committed}, harness.services)
    assert out["committed"]["vault_errors"] == ["missing-id: no such concept in the store"]
    assert out["warnings"] == ["1 notes not written: run `zettelgraph vault sync` to repair"]
