"""A document's passages in their sections: batches that keep a section's passages together,
and the sections an extraction call shows as context (issue 31, item 17).

Book-note quotes have no section and are batched as before, in reading order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import groupby

from zettelgraph.context import Services
from zettelgraph.prompts.ids import LocalIds
from zettelgraph.prompts.source_reading import PromptSection
from zettelgraph.workflows.concept_extraction.state import QuoteItem


def batches_of(quotes: Sequence[QuoteItem], size: int) -> list[list[QuoteItem]]:
    """The quotes in batches of at most `size`, in reading order. A document's passages are
    kept with the others of their section: a batch takes whole sections while they fit, and
    only a section larger than a batch is split. Book notes fill every batch."""
    if not any(q.get("parent_id") for q in quotes):
        return [list(quotes[i : i + size]) for i in range(0, len(quotes), size)]
    batches: list[list[QuoteItem]] = []
    current: list[QuoteItem] = []
    for _, grouped in groupby(quotes, key=lambda q: q.get("parent_id")):
        group = list(grouped)
        if current and len(current) + len(group) > size:
            batches.append(current)
            current = []
        while len(group) > size:
            batches.append(group[:size])
            group = group[size:]
        current.extend(group)
    if current:
        batches.append(current)
    return batches


@dataclass
class SectionContext:
    """The sections one call shows, with their local ids (s1..)."""

    ids: LocalIds = field(default_factory=lambda: LocalIds("s"))
    shown: list[PromptSection] = field(default_factory=list)

    def local(self, parent_id: str) -> str | None:
        return self.ids.local(parent_id) if parent_id in self.ids.reals() else None


def section_context(quotes: Sequence[QuoteItem], services: Services) -> SectionContext:
    """The sections the batch's passages were cut from, in reading order, clipped; none for
    book notes (or a section the store no longer has)."""
    wanted = list(dict.fromkeys(p for q in quotes if (p := q.get("parent_id"))))
    context = SectionContext()
    if not wanted:
        return context
    found = {s.id: s for s in services.store.get_sections(wanted)}
    for parent_id in wanted:
        section = found.get(parent_id)
        if section is not None:
            short = context.ids.local(parent_id)
            context.shown.append(PromptSection.clipped(short, section.title, section.text))
    return context
