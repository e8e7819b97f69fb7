"""What every card of a target records, whether the target is a concept or a passage: what
it tests and cites, the line that says what it is about, and how a check's drop is reported."""

from __future__ import annotations

from typing import Any

from zettelgraph.context import Services
from zettelgraph.models import ItemType, LearningItem
from zettelgraph.workflows.learning_items.items import Made, wording
from zettelgraph.workflows.learning_items.state import DroppedItem, QuoteView, Target

# A card (None when there is nothing to show) and why a check dropped it (None: it passed).
Outcome = tuple[LearningItem | None, DroppedItem | None]


def tested(target: Target) -> list[str]:
    """The concepts a target's cards test: its concept; none for a passage (its cards cite it)."""
    return [] if target["passage_kind"] else [target["id"]]


def made_for(
    target: Target,
    quote: QuoteView,
    services: Services,
    provenance: dict[str, Any],
    warnings: list[str],
) -> Made:
    return Made(
        concept_ids=tested(target),
        quote_ids=[quote["id"]],
        content_ids=[*target["content_ids"], quote["content_id"]],
        language=services.settings.concept_language,
        provenance=provenance,
        warnings=tuple(warnings),
    )


def idea(target: Target, services: Services) -> str:
    """The concept a recall card is about, shown with the answer; for a card made from a
    passage, where the passage is."""
    words = wording(services.settings.concept_language)
    if target["passage_kind"]:
        return words["passage"].format(title=target["title"], place=target["place"] or "—")
    return words["idea"].format(
        title=target["title"], summary=target["summary_short"] or target["concept"]
    )


def dropped_item(
    front: str, item_type: ItemType, guard: str, reason: str, concept_ids: list[str]
) -> DroppedItem:
    return DroppedItem(
        front=front,
        item_type=str(item_type),
        guard=guard,
        reason=reason,
        concept_ids=concept_ids,
    )
