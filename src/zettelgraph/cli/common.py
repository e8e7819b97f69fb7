"""Helpers shared by the commands: settings from flags, services, output and failures."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

# The output layer's names, here too because every command imports its helpers from here.
from zettelgraph.cli.output import fail as fail
from zettelgraph.cli.output import notices
from zettelgraph.cli.output import stderr as stderr
from zettelgraph.cli.output import stdout as stdout

if TYPE_CHECKING:
    from collections.abc import Iterator

    from zettelgraph.context import Services
    from zettelgraph.models import NodeLabel
    from zettelgraph.models.labels import Labels
    from zettelgraph.settings import Settings


# The flag of every command that can print what it shows as JSON instead.
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def now() -> datetime:
    """The commands' clock: local time with its offset, so a study "today" is the reader's
    day. Tests replace it (monkeypatch `zettelgraph.cli.common.now`) with a fixed clock."""
    return datetime.now().astimezone()


def settings_from(ctx: typer.Context) -> Settings:
    from pydantic import ValidationError

    from zettelgraph.settings import Settings

    try:
        return Settings(**(ctx.obj or {}))
    except ValidationError as exc:
        fail(f"invalid configuration:\n{exc}", code=2)


def concept_labels() -> Labels:
    """The labels of a concept's parts in the concept language of the running command
    (`ZETTELGRAPH_CONCEPT_LANGUAGE`), as the vault and the web show them."""
    import click

    from zettelgraph.models.labels import labels_for
    from zettelgraph.settings import Settings

    ctx = click.get_current_context(silent=True)
    # The command's flags live in its context's `obj` (see `settings_from`).
    settings = Settings(**(ctx.find_root().obj or {})) if ctx is not None else Settings()
    return labels_for(settings.concept_language)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def open_services_or_fail(settings: Settings, *, follow_store: bool = True) -> Services:
    """Services for a command; configuration problems end the command with a clear error.
    Without `follow_store`, the configured embedder is used even on a store built with
    another (`reindex`)."""
    from zettelgraph.context import open_services
    from zettelgraph.llm.embeddings import EmbeddingError
    from zettelgraph.packs.schema import PackError
    from zettelgraph.store.base import StoreError
    from zettelgraph.system.extras import MissingExtraError

    try:
        return open_services(settings, on_notice=notices(), follow_store=follow_store)
    except (StoreError, EmbeddingError, MissingExtraError, PackError, OSError) as exc:
        fail(str(exc))


@contextmanager
def command_services(
    ctx: typer.Context,
    *refusals: type[Exception],
    model: bool = False,
    follow_store: bool = True,
) -> Iterator[Services]:
    """The command's services, closed when it ends. An error of `refusals` (the services
    turning a request down, with a message that says why) ends the command with that message;
    with `model`, so does a model that cannot be used or did not answer. Model errors are
    opt-in: a missing extra in a command that calls no model is not the LLM's fault (and a
    command that calls none need not import the LLM modules)."""
    model_errors: tuple[type[Exception], ...] = ()
    if model:
        from zettelgraph.services.errors import MODEL_ERRORS

        model_errors = MODEL_ERRORS
    services = open_services_or_fail(settings_from(ctx), follow_store=follow_store)
    try:
        yield services
    except refusals as exc:
        fail(str(exc))
    except model_errors as exc:
        from zettelgraph.services.errors import model_error_message

        fail(model_error_message(exc))
    finally:
        services.close()


def resolve_node(services: Services, label: NodeLabel, given: str) -> str:
    """The id of the node of `label` that `given` names: the id or a unique prefix of it
    (services/ids.py); the command ends saying why otherwise."""
    from zettelgraph.services.ids import IdError, resolve_node_id

    try:
        return resolve_node_id(services.store, label, given)
    except IdError as exc:
        fail(str(exc))


def resolve_content_id(services: Services, given: str) -> str:
    from zettelgraph.models import NodeLabel

    return resolve_node(services, NodeLabel.CONTENT, given)


def resolve_concept_id(services: Services, given: str) -> str:
    from zettelgraph.models import NodeLabel

    return resolve_node(services, NodeLabel.CONCEPT, given)


def require_same_embedder(services: Services) -> None:
    """Stop before any work when the store's vectors come from another embedder."""
    from zettelgraph.store.base import EmbedderMismatchError

    try:
        services.check_embedder()
    except EmbedderMismatchError as exc:
        fail(str(exc))


class DefaultCommandGroup(TyperGroup):
    """A command group that runs its `default` command when its first argument names none of
    its commands: `zettelgraph concept ID` is `concept show ID`, `zettelgraph contents` is
    `contents list`, beside `concept edit ID` and `contents remove ID`."""

    default = ""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if self.default and (not args or (args[0] not in self.commands and args[0] != "--help")):
            args = [self.default, *args]
        return super().parse_args(ctx, args)


def on_a_terminal() -> bool:
    """Whether a person can answer a prompt (stdin and stdout are a terminal)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def repair_notes(services: Services, *, quiet_stdout: bool = False) -> None:
    """Write the notes a failed write left unwritten before a server starts (`serve`, `mcp`),
    and say so: on stdout, or on stderr when stdout carries a protocol (`quiet_stdout`)."""
    from zettelgraph.cli.output import repaired_line
    from zettelgraph.services.maintenance import repair_pending_notes

    report = repair_pending_notes(services)
    if line := repaired_line(report.written + report.updated):
        (stderr() if quiet_stdout else stdout()).print(
            f"vault: {line}", markup=False, highlight=False
        )
    for error in [*report.error_lines(), *report.repair_warnings()]:
        stderr().print(f"vault: {error}", markup=False, highlight=False)
