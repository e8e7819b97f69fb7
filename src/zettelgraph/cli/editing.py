"""A concept of a run edited in $EDITOR during its review, as an `edit` decision."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zettelgraph.cli.common import fail
from zettelgraph.cli.editor import concept_in_editor

if TYPE_CHECKING:
    from zettelgraph.services.review import ItemDecision
    from zettelgraph.services.run_view import RunView


def edited_in_editor(view: RunView, key: str) -> ItemDecision:
    """The concept `key` of the run, as the reader rewrites it in $EDITOR."""
    from zettelgraph.services.review import ItemDecision

    concept = next((c for c in (view.report or {}).get("concepts", []) if c["key"] == key), None)
    if concept is None:
        fail(f"edit {key}: no such concept in run {view.run_id}", code=2)
    title, statement, analysis = concept_in_editor(
        concept["title"], concept["concept"], concept.get("analysis") or ""
    )
    return ItemDecision(item=key, action="edit", title=title, concept=statement, analysis=analysis)
