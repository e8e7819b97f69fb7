"""`zettelgraph search QUERY` (no LLM) and `zettelgraph ask QUESTION` (a cited answer, a turn
of a chat), both narrowed by `--content`, `--kind`, `--author` and `--where`.

Help texts go through Rich markup: a literal bracket is written `\\[` there (`[n]` would be
read as a style and vanish), and their line breaks are kept, so help lines stay short.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from zettelgraph.cli.common import (
    JsonOption,
    command_services,
    fail,
    print_json,
    stdout,
)
from zettelgraph.cli.output import styled

if TYPE_CHECKING:
    from collections.abc import Callable

    from zettelgraph.context import Services
    from zettelgraph.models import Answer, SearchResult

T = TypeVar("T")
RecipeOption = Annotated[
    str | None,
    typer.Option(
        "--recipe",
        help="hybrid (default), fulltext, vector, rrf, or propositions (hybrid plus the "
        "passages' statements: `propositions make`).",
    ),
]
KOption = Annotated[int | None, typer.Option("-k", min=1, max=100, help="How many passages.")]
ContentOption = Annotated[
    list[str] | None,
    typer.Option(
        "--content",
        help="Only this source: its id (or first characters) or its title. Repeatable.",
        show_default=False,
    ),
]
KindOption = Annotated[
    list[str] | None,
    typer.Option(
        "--kind",
        help="Only sources of this kind: book, pdf, pptx, docx, transcript... Repeatable.",
        show_default=False,
    ),
]
AuthorOption = Annotated[
    list[str] | None,
    typer.Option(
        "--author",
        help="Only sources by this author (case and accents ignored). Repeatable.",
        show_default=False,
    ),
]
WhereOption = Annotated[
    list[str] | None,
    typer.Option(
        "--where",
        help="Only passages in this stretch: pages=12-40 (or p. 12-40), slides=3-5, "
        "turns=2-6, time=00:10:00-00:20:00; open ends as pages=100-. Repeatable (any).",
        show_default=False,
    ),
]
ChatOption = Annotated[
    str | None,
    typer.Option(
        "--chat",
        help="Continue this chat (every answer prints its chat id); without a question, "
        "show the conversation.",
        show_default=False,
    ),
]


def _result_json(result: SearchResult) -> dict[str, Any]:
    return result.model_dump(mode="json")


def _print_results(results: list[SearchResult]) -> None:
    out = stdout()
    for r in results:
        where = ", ".join(part for part in (r.content_title, r.author, r.location_label) if part)
        methods = "+".join(r.methods)
        score = f"{r.score:.3f}"
        out.print(styled("[bold]{}[/] {}  [dim]{} {}[/]", f"[{r.n}]", where, score, methods))
        text = f"{r.text[:400]}{'…' if len(r.text) > 400 else ''}"
        out.print(f"    {text}")
        if r.concepts:
            titles = "; ".join(c["title"] for c in r.concepts)
            out.print(f"    concepts: {titles}", style="dim")
        out.print(f"    passage {r.passage_id}", style="dim")


def _served(ctx: typer.Context, work: Callable[[Services], T]) -> T:
    """Run `work` with the configured services, turning known failures into clear errors."""
    from zettelgraph.store.base import EmbedderMismatchError

    with command_services(ctx, EmbedderMismatchError, model=True) as services:
        try:
            return work(services)
        except ValueError as exc:  # an unknown recipe, a filter that cannot be used, no such chat
            fail(str(exc), code=2)


def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="What to look for, in your own words.")],
    k: KOption = None,
    recipe: RecipeOption = None,
    content: ContentOption = None,
    kind: KindOption = None,
    author: AuthorOption = None,
    where: WhereOption = None,
    as_json: JsonOption = False,
) -> None:
    """Find passages in everything you have read: full-text + vector + graph, with citations."""
    from zettelgraph.services.ask import passage_filter
    from zettelgraph.services.ask import search as run_search

    def work(services: Services) -> list[SearchResult]:
        passages = passage_filter(
            services, contents=content, kinds=kind, authors=author, where=where
        )
        return run_search(services, query, k=k, recipe=recipe, passages=passages)

    results = _served(ctx, work)
    if as_json:
        print_json({"query": query, "results": [_result_json(r) for r in results]})
        return
    if not results:
        stdout().print("no passage matches; try other words, or `zettelgraph ingest` more")
        return
    _print_results(results)


def ask(
    ctx: typer.Context,
    question: Annotated[
        str | None,
        typer.Argument(help="A question about what you have read.", show_default=False),
    ] = None,
    k: KOption = None,
    recipe: RecipeOption = None,
    content: ContentOption = None,
    kind: KindOption = None,
    author: AuthorOption = None,
    where: WhereOption = None,
    chat: ChatOption = None,
    as_json: JsonOption = False,
) -> None:
    """Answer a question from your passages, citing them as \\[n]; the answer is stored.

    Every answer starts a chat and prints its id.
    `--chat ID QUESTION` asks a follow-up ("and the second one?") that
    uses the earlier turns, within the last filter unless you give one.
    `--chat ID` alone shows the conversation so far.
    """
    from zettelgraph.services.ask import ask as run_ask
    from zettelgraph.services.ask import chat_thread, passage_filter

    if not (question or "").strip():
        if chat is None:
            fail("write a question, or give --chat ID to show a conversation", code=2)
        turns = _served(ctx, lambda services: chat_thread(services, chat))
        _show_thread(turns, as_json)
        return
    asked = (question or "").strip()

    def work(services: Services) -> Any:
        passages = passage_filter(
            services, contents=content, kinds=kind, authors=author, where=where
        )
        return run_ask(services, asked, k=k, recipe=recipe, passages=passages, chat_id=chat)

    outcome = _served(ctx, work)
    answer = outcome.answer
    if as_json:
        print_json(outcome.as_dict())
        return
    out = stdout()
    if answer.standalone_question:
        out.print(f"searched: {answer.standalone_question}", style="dim")
    out.print(answer.answer)
    cited = [
        r for r in outcome.results if any(c["n"] == r.n and c["cited"] for c in answer.citations)
    ]
    if cited:
        out.print("")
        _print_results(cited)
    for warning in outcome.warnings:
        out.print(styled("[yellow]warning:[/] {}", warning))
    out.print("")
    out.print(
        f"chat {answer.chat_id}, turn {answer.turn}: continue with "
        f'zettelgraph ask --chat {answer.chat_id} "..."',
        style="dim",
    )


def _show_thread(turns: list[Answer], as_json: bool) -> None:
    """A chat's turns: each question, its answer and the passages it cites."""
    from zettelgraph.services.ask import answer_dict

    if as_json:
        print_json({"chat_id": turns[0].chat_id, "turns": [answer_dict(a) for a in turns]})
        return
    out = stdout()
    for answer in turns:
        out.print(f"{answer.turn}. {answer.question}", style="bold")
        if answer.standalone_question:
            out.print(f"   searched: {answer.standalone_question}", style="dim")
        out.print(f"   {answer.answer}")
        for citation in answer.citations:
            if citation.get("cited"):
                where = ", ".join(
                    str(citation[key])
                    for key in ("content_title", "author", "location")
                    if citation.get(key)
                )
                out.print(f"   [{citation['n']}] {where}", style="dim")
        out.print("")
