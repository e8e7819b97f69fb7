"""`zettelgraph search QUERY` (no LLM) and `zettelgraph ask QUESTION` (a cited answer)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from zettelgraph.cli.common import (
    fail,
    open_services_or_fail,
    print_json,
    settings_from,
    stdout,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from zettelgraph.models import SearchResult
    from zettelgraph.workflows.context import Services

T = TypeVar("T")
RecipeOption = Annotated[
    str | None,
    typer.Option("--recipe", help="hybrid (default), fulltext, vector or rrf."),
]
KOption = Annotated[int | None, typer.Option("-k", min=1, max=100, help="How many passages.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _result_json(result: SearchResult) -> dict[str, Any]:
    return result.model_dump(mode="json")


def _print_results(results: list[SearchResult]) -> None:
    out = stdout()
    for r in results:
        where = ", ".join(part for part in (r.content_title, r.author, r.location_label) if part)
        methods = "+".join(r.methods)
        out.print(f"[bold][{r.n}][/] {where}  [dim]{r.score:.3f} {methods}[/]", highlight=False)
        out.print(f"    {r.text[:400]}{'…' if len(r.text) > 400 else ''}", highlight=False)
        if r.concepts:
            titles = "; ".join(c["title"] for c in r.concepts)
            out.print(f"    [dim]concepts: {titles}[/]", highlight=False)
        out.print(f"    [dim]passage {r.passage_id}[/]", highlight=False)


def _served(ctx: typer.Context, work: Callable[[Services], T]) -> T:
    """Run `work` with the configured services, turning known failures into clear errors."""
    from zettelgraph.services.errors import MODEL_ERRORS, model_error_message
    from zettelgraph.store.base import EmbedderMismatchError

    services = open_services_or_fail(settings_from(ctx))
    try:
        return work(services)
    except EmbedderMismatchError as exc:
        fail(str(exc))
    except ValueError as exc:  # an unknown recipe
        fail(str(exc), code=2)
    except MODEL_ERRORS as exc:
        fail(model_error_message(exc))
    finally:
        services.close()


def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="What to look for, in your own words.")],
    k: KOption = None,
    recipe: RecipeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Find passages in everything you have read: full-text + vector + graph, with citations."""
    from zettelgraph.services.ask import search as run_search

    results = _served(ctx, lambda services: run_search(services, query, k=k, recipe=recipe))
    if as_json:
        print_json({"query": query, "results": [_result_json(r) for r in results]})
        return
    if not results:
        stdout().print("no passage matches; try other words, or `zettelgraph ingest` more")
        return
    _print_results(results)


def ask(
    ctx: typer.Context,
    question: Annotated[str, typer.Argument(help="A question about what you have read.")],
    k: KOption = None,
    recipe: RecipeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Answer a question from your passages, citing them as [n]; the answer is stored."""
    from zettelgraph.services.ask import ask as run_ask

    outcome = _served(ctx, lambda services: run_ask(services, question, k=k, recipe=recipe))
    answer = outcome.answer
    if as_json:
        print_json(outcome.as_dict())
        return
    out = stdout()
    out.print(answer.answer, highlight=False)
    cited = [
        r for r in outcome.results if any(c["n"] == r.n and c["cited"] for c in answer.citations)
    ]
    if cited:
        out.print("")
        _print_results(cited)
    for warning in outcome.warnings:
        out.print(f"[yellow]warning:[/] {warning}", highlight=False)
