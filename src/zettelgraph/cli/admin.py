"""`zettelgraph config`, `doctor` and `reindex`."""

from __future__ import annotations

import time
from typing import Annotated, Any

import typer

from zettelgraph.cli.common import (
    JsonOption,
    command_services,
    open_services_or_fail,
    print_json,
    settings_from,
    stderr,
    stdout,
)
from zettelgraph.cli.output import count_line, styled


def config(
    ctx: typer.Context,
    as_json: JsonOption = False,
) -> None:
    """Show the effective settings (flags > environment/.env > defaults), secrets masked."""
    from zettelgraph.services.configuration import effective_settings

    shown = effective_settings(settings_from(ctx))
    if as_json:
        print_json(shown)
        return
    from rich.table import Table

    table = Table(title="Effective settings")
    table.add_column("setting")
    table.add_column("value", overflow="fold")
    for name, value in shown.items():
        table.add_row(f"ZETTELGRAPH_{name.upper()}", value)
    stdout().print(table)


def doctor(
    ctx: typer.Context,
    skip_llm: Annotated[bool, typer.Option("--no-llm", help="Do not call the LLM.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Check that the store opens, the embedder embeds and the LLM answers with valid JSON."""
    from zettelgraph.services.model_check import check_model

    services = open_services_or_fail(settings_from(ctx))
    checks: list[dict[str, Any]] = []

    def check(name: str, action: Any) -> None:
        started = time.perf_counter()
        try:
            detail = action()
            checks.append({"check": name, "ok": True, "detail": detail})
        except Exception as exc:
            checks.append({"check": name, "ok": False, "detail": f"{type(exc).__name__}: {exc}"})
        checks[-1]["seconds"] = round(time.perf_counter() - started, 3)

    def store_check() -> str:
        counts = services.store.counts()
        info = services.store.embedding_info()
        embedded = f", embedded with {info.model} ({info.dim} dims)" if info else ""
        return f"{services.store.url}: {count_line(counts)}{embedded}"

    def embedder_check() -> str:
        vector = services.embedder.embed(["El ejercicio aeróbico mejora la salud."])
        info = services.store.embedding_info()
        if info is not None and (info.model, info.dim) != (services.embedder.name, vector.shape[1]):
            raise RuntimeError(
                f"store uses {info.model} ({info.dim}); run `zettelgraph reindex` or set "
                f"ZETTELGRAPH_EMBEDDINGS={info.model}"
            )
        return f"{services.embedder.name}: {vector.shape[1]} dims"

    try:
        check("store", store_check)
        check("embedder", embedder_check)
        if not skip_llm:
            # One line either way: what failed (key, address, model, schema) or the latency.
            model = check_model(services)
            checks.append(
                {"check": "llm", "ok": model.ok, "detail": model.line, "seconds": model.seconds}
            )
    finally:
        services.close()
    if as_json:
        print_json(checks)
    else:
        out = stdout()
        for item in checks:
            line = f"{item['check']:<9} {item['detail']}"
            out.print(
                styled("[green]ok[/]    {}", line)
                if item["ok"]
                else styled("[bold red]FAIL[/]  {}", line)
            )
    if not all(item["ok"] for item in checks):
        raise typer.Exit(1)


def reindex(ctx: typer.Context) -> None:
    """Re-embed every quote and concept with the configured embedder and rebuild the
    full-text index."""
    from zettelgraph.services.reindex import ReindexError
    from zettelgraph.services.reindex import reindex as reindex_store

    # The configured embedder (the default, unless named), not the one the store was built
    # with: moving the store to it is the point.
    with command_services(ctx, ReindexError, follow_store=False) as services:
        stderr().print(f"re-embedding every quote and concept with {services.embedder.name} ...")
        done = reindex_store(services)
    stdout().print(
        f"re-embedded {done.texts} texts with {done.embedder} ({done.dim} dims): "
        + count_line(done.counts)
    )
    stdout().print(f"rebuilt the full-text index: {done.fulltext} texts analysed")
