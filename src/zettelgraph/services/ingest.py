"""Ingest runs: which files to read, one Quote Parse Graph job per content, and a report per
file, with errors that name the file and say what to do.

A folder is scanned for book notes (.md, .txt with a quotes section; others are skipped) and
for PDF, Word and PowerPoint files. Code files and chat exports (.json) are ingested when
named, not found by a scan: a folder of notes often holds scripts and settings files that
are not reading. Whether a file is book notes or a document is decided once, by
`ingest.reading.graph_inputs`.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from zettelgraph.context import Services
from zettelgraph.ingest.documents import SUFFIXES
from zettelgraph.ingest.errors import BookNotesError, NoQuotesSectionError
from zettelgraph.ingest.ocr import ocr_config
from zettelgraph.ingest.parsed import FileType
from zettelgraph.ingest.reading import graph_inputs
from zettelgraph.llm.embeddings import EmbeddingError
from zettelgraph.services.errors import MODEL_UNUSABLE
from zettelgraph.store.base import EmbedderMismatchError, StoreError
from zettelgraph.workflows.quote_parse.graph import RECURSION_LIMIT, build_quote_parse_graph

# (files done, files in all, what is happening now)
Progress = Callable[[int, int, str], None]
FILE_TYPES = ("notes", *get_args(FileType))


class IngestError(ValueError):
    """Arguments that cannot be ingested at all (nothing was read)."""


# Found by a folder scan: book notes, office documents and subtitles. Images are read only
# when named: a vault folder is full of attachments that are not reading.
SCAN_SUFFIXES = (".md", ".markdown", ".txt", ".pdf", ".docx", ".pptx", ".srt", ".vtt")


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
        """Errors for folders in which every file was skipped as not being a book note.

        Args:
            skipped: the files skipped, each `{path, ...}` as ingest reports them.

        Returns:
            One `{path, error}` per folder given whose files were all skipped, the error saying how
            to read one as a document.
        """
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


@dataclass
class IngestResult:
    reports: list[dict[str, Any]] = field(default_factory=list)
    errors: list[dict[str, str]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)


def ingest_paths(
    services: Services,
    paths: list[Path],
    *,
    title: str | None = None,
    author: str | None = None,
    file_type: str | None = None,
    replace_kind: bool = False,
    cards: bool = False,
    on_progress: Progress | None = None,
) -> IngestResult:
    """Ingest files and folders; each file's failure is reported and the others go on.

    Args:
        services: the open services.
        paths: files and folders (a folder: the files below it whose kind ingest reads).
        title: the content's title instead of the file's, for a single file.
        author: the content's author instead of the file's, for a single file.
        file_type: read every file as this type (one of FILE_TYPES); by its name otherwise.
        replace_kind: a file may turn a stored content into another kind (book notes into
            a document); without it such a file is refused with what to do.
        cards: also propose cards straight from each content's passages (`cards generate
            --from-passages`); each report then holds what was proposed under `cards`.
        on_progress: told (files done, files in all, what is happening) at each step.

    Returns:
        A report per content ingested, the files that failed and why, and those skipped.

    Raises:
        IngestError: nothing read: an unknown type, or a title or author given for several files.
    """
    if file_type is not None and file_type not in FILE_TYPES:
        raise IngestError(f"unknown --type {file_type!r}; use {', '.join(FILE_TYPES)}")
    file_set = FileSet(paths)
    if (title or author) and len(file_set.files) > 1:
        raise IngestError("--title and --author apply to a single file; give one file")
    result = IngestResult(errors=file_set.errors)
    flags = {"title_flag": title, "author_flag": author, "replace_kind": replace_kind}
    _run(services, file_set, result, flags, file_type, on_progress)
    for report in result.reports:
        content = services.store.get_content(report["id"])
        report["processed"] = bool(content and content.processed_date)
    if cards:
        for report in result.reports:
            report["cards"] = _passage_cards(services, report)
    result.errors.extend(file_set.folders_without_notes(result.skipped))
    return result


def _passage_cards(services: Services, report: dict[str, Any]) -> dict[str, Any]:
    """Cards proposed from one ingested content's passages, in a few numbers; a content the
    cards cannot be made from says why in its warnings."""
    from zettelgraph.services.card_generation import generate_cards
    from zettelgraph.services.cards import CardError

    try:
        made = generate_cards(services, from_passages=report["id"])
    except CardError as exc:
        report["warnings"].append(f"no cards: {exc}")
        return {"proposed": 0, "per_type": {}, "dropped": 0}
    return {
        "generation_id": made.generation_id,
        "proposed": len(made.proposed),
        "per_type": made.per_type,
        "dropped": len(made.dropped),
    }


def _run(
    services: Services,
    file_set: FileSet,
    result: IngestResult,
    flags: dict[str, Any],
    file_type: str | None,
    on_progress: Progress | None,
) -> None:
    def progress(done: int, what: str) -> None:
        if on_progress is not None:
            on_progress(done, len(file_set.files), what)

    # Checked before any file so no LLM call is spent on notes that cannot be stored.
    services.check_embedder()
    graph = build_quote_parse_graph(services)
    max_bytes = int(services.settings.max_file_mb * 1024 * 1024)
    ocr = ocr_config(services.settings)
    for done, path in enumerate(file_set.files):
        progress(done, f"{path.name}: reading")
        scanned = path in file_set.folder_of
        try:
            for job in graph_inputs(
                path, file_type=file_type, max_bytes=max_bytes, scanned=scanned, ocr=ocr
            ):
                final: dict[str, Any] = {}
                job.update(flags)
                for mode, chunk in graph.stream(
                    job,
                    config={"recursion_limit": RECURSION_LIMIT},
                    stream_mode=["updates", "values"],
                ):
                    if mode == "updates":
                        progress(done, f"{path.name}: {next(iter(chunk), '')} done")
                    elif isinstance(chunk, dict):
                        final = chunk
                result.reports.append(_content_report(path, final))
        except (*MODEL_UNUSABLE, EmbedderMismatchError) as exc:
            # Configuration problems would fail every file the same way: stop here.
            result.errors.append({"path": str(path), "error": str(exc)})
            break
        except NoQuotesSectionError as exc:
            if scanned:
                # Found by scanning a folder: an index note, a README or an article, not a
                # book note; named with its type, it is read as a document.
                result.skipped.append({"path": str(path), "reason": _not_notes(path)})
            else:
                result.errors.append({"path": str(path), "error": str(exc)})
        except (BookNotesError, StoreError, EmbeddingError) as exc:
            result.errors.append({"path": str(path), "error": str(exc)})
        except Exception as exc:  # an unexpected failure still must not stop other files
            result.errors.append(
                {"path": str(path), "error": f"{path}: {type(exc).__name__}: {exc}"}
            )
    progress(len(file_set.files), "done")


def _not_notes(path: Path) -> str:
    file_type = SUFFIXES.get(path.suffix.lower(), "text")
    return (
        "not book notes (no '# Citas', '# Quotes' or '# Highlights' section); to read it as "
        f"a document, name it: `zettelgraph ingest --type {file_type} {shlex.quote(str(path))}`"
    )


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
