"""An approved card never studied, testing one concept: what Study's order of new cards is
tested with (tests/unit/test_study_order.py, tests/workflows/test_prerequisites.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from zettelgraph.models import Difficulty, ItemStatus, ItemType, LearningItem

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def new_card(concept: str, difficulty: Difficulty = Difficulty.EASY, n: int = 0) -> LearningItem:
    """Card `n` of `concept` (id `concept-n`), made `n` minutes after T0."""
    return LearningItem(
        id=f"{concept}-{n}",
        item_type=ItemType.FLASHCARD,
        front=f"¿{concept} {n}?",
        back="Sí.",
        difficulty=difficulty,
        concept_ids=[concept],
        content_ids=["book"],
        status=ItemStatus.APPROVED,
        created_at=T0 + timedelta(minutes=n),
    )
