"""A card as the terminal shows it: its front, its back, and what it cites (concepts, quotes
with their book and place), for `cards review` and `study`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from zettelgraph.cli.output import styled
from zettelgraph.models import ItemType, LearningItem
from zettelgraph.provenance.card_sources import sources_of
from zettelgraph.store.base import GraphStore


@dataclass
class CardView:
    """An item with the concepts it tests and the quotes it cites, each quote with its book
    and place (read through `card_sources`, as the Anki deck and the vault read them)."""

    item: LearningItem
    author: str | None = None
    concepts: list[dict[str, str]] = field(default_factory=list)
    quotes: list[dict[str, str]] = field(default_factory=list)

    @property
    def short_id(self) -> str:
        return self.item.id[:8]

    @property
    def concept_titles(self) -> str:
        return "; ".join(c["title"] for c in self.concepts)

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.item.model_dump(mode="json"),
            "author": self.author,
            "concepts": self.concepts,
            "quotes": self.quotes,
        }


def card_views(store: GraphStore, items: Iterable[LearningItem]) -> list[CardView]:
    """Each item with its sources, every lookup done once."""
    titles: dict[str, str] = {}

    def book_title(content_id: str) -> str:
        if content_id not in titles:
            content = store.get_content(content_id)
            titles[content_id] = content.title if content else ""
        return titles[content_id]

    views = []
    for sources in sources_of(store, items):
        if sources.book is not None:
            titles.setdefault(sources.book.id, sources.book.title)
        views.append(
            CardView(
                item=sources.item,
                author=sources.author,
                concepts=[{"id": c.id, "title": c.title} for c in sources.concepts],
                quotes=[
                    {
                        "id": quote.id,
                        "text": quote.text,
                        "content_id": quote.content_id,
                        "content": book_title(quote.content_id),
                        "place": place,
                    }
                    for quote, place in zip(sources.quotes, sources.places(), strict=True)
                ],
            )
        )
    return views


def clip(text: str, width: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


class _Lines:
    """Labelled lines with a hanging indent: a long quote wraps under itself, not under its
    label."""

    def __init__(self) -> None:
        self.grid = Table.grid(padding=(0, 1))
        self.grid.add_column(style="dim", no_wrap=True, justify="right")
        self.grid.add_column(overflow="fold")

    def add(self, label: str, text: str | Text) -> None:
        self.grid.add_row(f"  {label}", text)

    def print(self, console: Console) -> None:
        if self.grid.row_count:
            console.print(self.grid)


def _sources(lines: _Lines, view: CardView) -> None:
    item = view.item
    if item.explanation:
        lines.add("why", Text(item.explanation))
    for quote in view.quotes:
        where = ", ".join(part for part in (quote["content"], quote["place"]) if part)
        lines.add(">", Text(clip(quote["text"], 600)))
        if where:
            lines.add("", Text(f"— {where}", style="dim"))
    if view.concepts:
        lines.add("concept", Text(view.concept_titles))


def print_front(console: Console, view: CardView) -> None:
    """The question: for a cloze the quote with [...], for a multiple choice its options."""
    item = view.item
    console.print(Text(item.front, style="bold"))
    if item.item_type == ItemType.MCQ:
        lines = _Lines()
        for number, option in enumerate(item.options, 1):
            lines.add(f"{number}.", Text(option))
        lines.print(console)


def print_back(console: Console, view: CardView) -> None:
    """The answer, its explanation, the quote it comes from with its book and place, and the
    concepts it tests."""
    item = view.item
    answer = item.back
    if item.item_type == ItemType.MCQ and item.correct is not None:
        answer = f"{item.correct + 1}. {item.back}"
    console.print(Text(f"→ {answer}", style="bold green"))
    lines = _Lines()
    _sources(lines, view)
    lines.print(console)


def print_card_for_review(console: Console, view: CardView, number: int) -> None:
    """Everything the reader judges a proposed card by, the right option marked."""
    item = view.item
    console.print(
        styled(
            "\n[bold]{}. {}[/]  [cyan]{}[/] · {} · {}",
            number,
            view.short_id,
            item.item_type,
            item.difficulty,
            item.status,
        )
    )
    lines = _Lines()
    lines.add("Q", Text(item.front, style="bold"))
    if item.item_type == ItemType.MCQ:
        for index, option in enumerate(item.options):
            right = index == item.correct
            lines.add("✓" if right else "", Text(f"{index + 1}. {option}"))
    lines.add("A", Text(item.back, style="green"))
    _sources(lines, view)
    if item.duplicate_of:
        lines.add("repeats", Text(f"card {item.duplicate_of[:8]}", style="yellow"))
    for warning in item.warnings:
        lines.add("warning", Text(warning, style="yellow"))
    lines.print(console)
