"""`zettelgraph ingest PATH...`: book notes and documents into the store through the Quote
Parse Graph.

A folder is scanned for book notes (.md, .txt with a quotes section; others are skipped) and
for PDF, Word and PowerPoint files. Code files and chat exports (.json) are ingested when
named, not found by a scan: a folder of notes often holds scripts and settings files that
are not reading.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from zettelgraph.cli.common import (
    fail,
    open_services_or_fail,
    print_json,
    require_same_embedder,
    settings_from,
    stderr,
    stdout,
)

if TYPE_CHECKING:
    from zettelgraph.workflows.context import Services

# Found by a folder scan: book notes and office documents.
SCAN_SUFFIXES = (".md", ".markdown", ".txt", ".pdf", ".docx", ".pptx")


class FileSet:
    """The files to ingest, remembering which folder argument each came from."""

    def __init__(self, paths: list[Path]) -> None:
        self.files: list[Path] = []
        self.folder_of: dict[Path, Path] = {}
        self.errors: list[dict[str, str]] = []
        for path in paths:
            if path.is_dir():
                found = sorted(
                    p
                    for p in path.rglob("*")
                    if p.is_file()
                    and p.suffix.lower() in SCAN_SUFFIXES
                    and not any(part.startswith(".") for part in p.relative_to(path).parts)
                )
                if not found:
                    self.errors.append(
                        {
                            "path": str(path),
                            "error": f"{path}: nothing to ingest found (looked for "
                            f"{', '.join(SCAN_SUFFIXES)} files); point at a file or a "
                            "folder that holds some",
                        }
                    )
                for file in found:
                    self.folder_of.setdefault(file, path)
                self.files.extend(found)
            elif path.exists():
                self.files.append(path)
            else:
                self.errors.append({"path": str(path), "error": f"{path}: no such file or folder"})
        self.files = list(dict.fromkeys(self.files))

    def folders_without_notes(self, skipped: list[dict[str, str]]) -> list[dict[str, str]]:
        """Errors for folders in which every file was skipped as not being a book note."""
        skipped_paths = {Path(s["path"]) for s in skipped}
        errors = []
        for folder in dict.fromkeys(self.folder_of.values()):
            members = [f for f, parent in self.folder_of.items() if parent == folder]
            if members and all(m in skipped_paths for m in members):
                errors.append(
                    {
                        "path": str(folder),
                        "error": f"{folder}: no book notes found: none of its {len(members)} "
                        "files has a '# Citas' (or '# Quotes' / '# Highlights') section; "
                        "to read one as a document, name it: `zettelgraph ingest FILE`",
                    }
                )
        return errors


def ingest(
    ctx: typer.Context,
    paths: Annotated[list[Path], typer.Argument(help="Note files or folders of notes.")],
    title: Annotated[str | None, typer.Option(help="Title (beats the front matter).")] = None,
    author: Annotated[str | None, typer.Option(help="Author (beats the front matter).")] = None,
    file_type: Annotated[
        str | None,
        typer.Option(
            "--type",
            help="Read every file as: notes, pdf, docx, pptx, markdown, text, code, transcript "
            "(default: by file type and content).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON report.")] = False,
) -> None:
    """Read book notes ('# Citas' section) and documents (PDF, Word, slides, Markdown, text,
    code, chat transcripts) into the graph: Contents, authors, sections and passages."""
    reports, errors, skipped = ingest_files(
        ctx, paths, title, author, file_type=file_type, quiet=as_json
    )
    if as_json:
        print_json({"contents": reports, "errors": errors, "skipped": skipped})
    if errors:
        raise typer.Exit(1)


def ingest_files(
    ctx: typer.Context,
    paths: list[Path],
    title: str | None = None,
    author: str | None = None,
    *,
    file_type: str | None = None,
    quiet: bool,
    usage: dict[str, Any] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, str]], list[dict[str, str]]]:
    """Ingest and (unless quiet) print the human report: reports, errors and skipped files.

    `usage`, when given, receives the LLM usage per call name (summaries, author notes)."""
    from typing import get_args

    from zettelgraph.ingest.parsed import FileType

    if file_type is not None and file_type not in ("notes", *get_args(FileType)):
        fail(f"unknown --type {file_type!r}; use notes, {', '.join(get_args(FileType))}", code=2)
    file_set = FileSet(paths)
    errors = file_set.errors
    if (title or author) and len(file_set.files) > 1:
        fail("--title and --author apply to a single file; give one file", code=2)
    settings = settings_from(ctx)
    services = open_services_or_fail(settings)
    skipped: list[dict[str, str]] = []
    try:
        reports = _run(
            services, file_set, errors, skipped, title, author, file_type=file_type, quiet=quiet
        )
        for report in reports:
            content = services.store.get_content(report["id"])
            report["processed"] = bool(content and content.processed_date)
    finally:
        services.close()
    if usage is not None:
        usage.update(services.usage.as_dict())
    errors.extend(file_set.folders_without_notes(skipped))
    if not quiet:
        _print_report(reports, errors, skipped, services)
    return reports, errors, skipped


def _run(
    services: Services,
    file_set: FileSet,
    errors: list[dict[str, str]],
    skipped: list[dict[str, str]],
    title: str | None,
    author: str | None,
    *,
    file_type: str | None,
    quiet: bool,
) -> list[dict[str, Any]]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from zettelgraph.embeddings import EmbeddingError
    from zettelgraph.extras import MissingExtraError
    from zettelgraph.ingest.errors import BookNotesError, NoQuotesSectionError
    from zettelgraph.llm.factory import LLMConfigError
    from zettelgraph.store.base import EmbedderMismatchError, StoreError
    from zettelgraph.workflows.quote_parse.graph import RECURSION_LIMIT, build_quote_parse_graph

    # Checked before any file so no LLM call is spent on notes that cannot be stored.
    require_same_embedder(services)
    graph = build_quote_parse_graph(services)
    reports: list[dict[str, Any]] = []
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=stderr(),
        disable=quiet,
        transient=True,
    )
    with progress:
        task = progress.add_task("ingesting", total=len(file_set.files))
        for path in file_set.files:
            progress.update(task, description=f"{path.name}: reading")
            try:
                for job in _jobs(path, file_set, file_type, services):
                    final: dict[str, Any] = {}
                    job.update(title_flag=title, author_flag=author)
                    for mode, chunk in graph.stream(
                        job,
                        config={"recursion_limit": RECURSION_LIMIT},
                        stream_mode=["updates", "values"],
                    ):
                        if mode == "updates":
                            step = next(iter(chunk), "")
                            progress.update(task, description=f"{path.name}: {step} done")
                        elif isinstance(chunk, dict):
                            final = chunk
                    reports.append(_content_report(path, final))
            except (LLMConfigError, MissingExtraError, EmbedderMismatchError) as exc:
                # Configuration problems would fail every file the same way: stop here.
                errors.append({"path": str(path), "error": str(exc)})
                break
            except NoQuotesSectionError as exc:
                if path in file_set.folder_of:
                    # Found by scanning a folder: an index note or README, not a book note.
                    skipped.append({"path": str(path), "reason": exc.message})
                else:
                    errors.append({"path": str(path), "error": str(exc)})
            except (BookNotesError, StoreError, EmbeddingError) as exc:
                errors.append({"path": str(path), "error": str(exc)})
            except Exception as exc:  # an unexpected failure still must not stop other files
                errors.append({"path": str(path), "error": f"{path}: {type(exc).__name__}: {exc}"})
            progress.advance(task)
    return reports


def _jobs(
    path: Path, file_set: FileSet, file_type: str | None, services: Services
) -> list[dict[str, Any]]:
    """Graph inputs for one file: book notes go in by path; a document is read here, so a
    chat export's conversations each become a Content of their own."""
    from typing import cast

    from zettelgraph.ingest.booknotes import NOTE_SUFFIXES
    from zettelgraph.ingest.documents import read_documents
    from zettelgraph.ingest.parsed import FileType

    if file_type == "notes" or (file_type is None and path.suffix.lower() in NOTE_SUFFIXES):
        # From a folder scan only book notes are taken; named, a file without quotes is
        # read as a document.
        scanned = path in file_set.folder_of or file_type == "notes"
        return [{"file_path": str(path), "file_type": "notes" if scanned else None}]
    max_bytes = int(services.settings.max_file_mb * 1024 * 1024)
    forced = cast(FileType | None, file_type)  # checked against FileType by ingest_files
    documents = read_documents(path, max_bytes=max_bytes, file_type=forced)
    return [
        {"file_path": str(path), "document": document.model_dump(mode="json")}
        for document in documents
    ]


def _content_report(path: Path, state: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": state["content_id"],
        "kind": state.get("kind", "book"),
        "title": state["title"],
        "author": state.get("author"),
        "quotes": state.get("quotes_total", 0),
        "warnings": [f"{path}: {w}" for w in state.get("warnings", [])],
        "path": str(path),
        "status": state.get("status"),
        "quotes_added": state.get("quotes_added", 0),
        "removed_quotes": state.get("removed_quotes", []),
    }


def _print_report(
    reports: list[dict[str, Any]],
    errors: list[dict[str, str]],
    skipped: list[dict[str, str]],
    services: Services,
) -> None:
    from rich.table import Table

    out = stdout()
    if reports:
        table = Table(title="Ingested")
        for column in ("id", "title", "author", "kind", "status", "passages", "new"):
            table.add_column(column, overflow="fold")
        for r in reports:
            table.add_row(
                r["id"][:8],
                r["title"],
                r["author"] or "",
                r["kind"],
                r["status"],
                str(r["quotes"]),
                str(r["quotes_added"]),
            )
        out.print(table)
    for r in reports:
        for warning in r["warnings"]:
            out.print(f"[yellow]warning:[/] {warning}", highlight=False)
        for text in r["removed_quotes"]:
            out.print(
                f"[yellow]removed from the file, kept in the store:[/] {text[:80]}",
                highlight=False,
            )
    for item in skipped:
        out.print(f"[dim]skipped {item['path']}: {item['reason']}[/]", highlight=False)
    for error in errors:
        out.print(f"[bold red]error:[/] {error['error']}", highlight=False)
    usage = services.usage.as_dict()
    if usage:
        calls = sum(int(u["calls"]) for u in usage.values())
        tokens_in = sum(int(u["input_tokens"]) for u in usage.values())
        tokens_out = sum(int(u["output_tokens"]) for u in usage.values())
        out.print(f"LLM: {calls} calls, {tokens_in} tokens in, {tokens_out} tokens out")
