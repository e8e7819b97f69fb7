"""Entry point. Heavy modules are imported inside commands so `zettelgraph --help` is instant."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from zettelgraph.cli import (
    admin,
    cards,
    concepts,
    contents,
    corrections,
    experiments,
    export,
    extract,
    graph,
    ingest,
    links,
    mcp,
    packs,
    propositions,
    review,
    search,
    serve,
    store,
    study,
)
from zettelgraph.cli.common import DefaultCommandGroup
from zettelgraph.cli.help import WordsGroup
from zettelgraph.cli.output import start_command


class _ConceptGroup(DefaultCommandGroup):
    default = "show"


class _ContentsGroup(DefaultCommandGroup):
    default = "list"


# `zettelgraph concept ID` shows a concept, `concept edit ID` and `concept delete ID` correct
# it; `zettelgraph contents` lists the contents, `contents remove ID` removes one.
concept_app = typer.Typer(
    cls=_ConceptGroup, help="One concept: show it, edit it or delete it.", no_args_is_help=True
)
concept_app.command("show")(concepts.show_concept)
concept_app.command("edit")(corrections.edit)
concept_app.command("delete")(corrections.delete)
contents_app = typer.Typer(
    cls=_ContentsGroup, help="Your contents (books, documents): list them, or remove one."
)
contents_app.command("list")(contents.list_contents)
contents_app.command("remove")(corrections.remove_content)

app = typer.Typer(
    cls=WordsGroup,
    name="zettelgraph",
    help="Turn what you read into a knowledge graph of atomic, cited ideas.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(asked: bool) -> None:
    if asked:
        from importlib.metadata import version

        typer.echo(f"zettelgraph {version('zettelgraph')}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    home: Annotated[
        Path | None, typer.Option(help="Data directory (ZETTELGRAPH_HOME).", show_default=False)
    ] = None,
    llm: Annotated[
        str | None, typer.Option(help="Chat model, e.g. local, fake, openai:gpt-4.1-mini.")
    ] = None,
    store: Annotated[str | None, typer.Option(help="Store URL, e.g. sqlite:///graph.db.")] = None,
    embeddings: Annotated[
        str | None, typer.Option(help="Embedder, e.g. use-multilingual, hash.")
    ] = None,
    version: Annotated[
        bool,
        typer.Option(
            "--version", is_eager=True, callback=_print_version, help="Print the version."
        ),
    ] = False,
) -> None:
    """Flags given here beat ZETTELGRAPH_* environment variables, which beat defaults."""
    start_command()
    del version  # handled by its callback, before any command
    overrides = {"home": home, "llm": llm, "store": store, "embeddings": embeddings}
    ctx.obj = {key: value for key, value in overrides.items() if value is not None}


app.command("ingest")(ingest.ingest)
app.command("show")(contents.show)
app.command("passage")(contents.passage)
app.command("config")(admin.config)
app.command("doctor")(admin.doctor)
app.command("reindex")(admin.reindex)
app.command("run")(extract.run)
app.command("extract")(extract.extract)
app.command("review")(review.review)
app.command("calibrate")(review.calibrate)
app.command("runs")(extract.list_runs)
app.command("resume")(extract.resume)
app.command("graph-extract")(graph.graph_extract)
app.command("search")(search.search)
app.command("ask")(search.ask)
app.command("concepts")(concepts.list_concepts)
app.command("link")(links.link)
app.command("unlink")(corrections.unlink)
app.command("removals")(corrections.list_removals)
app.command("serve")(serve.serve)
app.command("mcp")(mcp.mcp)
app.command("study")(study.study)
app.add_typer(concept_app, name="concept")
app.add_typer(contents_app, name="contents")
app.add_typer(concepts.vault_app, name="vault")
app.add_typer(store.store_app, name="store")
app.add_typer(cards.cards_app, name="cards")
app.add_typer(packs.packs_app, name="packs")
app.add_typer(export.export_app, name="export")
app.add_typer(experiments.experiment_app, name="experiment")
app.add_typer(propositions.propositions_app, name="propositions")


def main() -> None:
    app()
