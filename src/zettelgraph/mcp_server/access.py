"""What an MCP client may touch beyond reading the graph.

An MCP client is a model acting for someone, possibly steered by text it read (a web page, a
file): it reads files only inside the folders the reader listed in ZETTELGRAPH_MCP_ROOTS (none
by default), and approves nothing unless ZETTELGRAPH_MCP_ALLOW_APPROVE says so. Every refusal
names the setting that would allow the request, so the reader can decide.
"""

from __future__ import annotations

from pathlib import Path

from mcp.types import ToolAnnotations

from zettelgraph.services.ingest import FileSet
from zettelgraph.settings import Settings

ROOTS_SETTING = "ZETTELGRAPH_MCP_ROOTS"
APPROVE_SETTING = "ZETTELGRAPH_MCP_ALLOW_APPROVE"
# What every reading tool tells the client: it changes nothing and reaches nothing outside
# the reader's own graph.
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


class AccessError(ValueError):
    """A request outside what the reader allowed; the message names the setting."""


def _roots(settings: Settings) -> list[Path]:
    # Resolved, so a root given through a link or with `..` compares as the folder it is.
    return [root.expanduser().resolve() for root in settings.mcp_roots]


def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def allowed_paths(settings: Settings, given: list[str]) -> list[Path]:
    """The files and folders to ingest, each resolved (links and `..` followed) and inside a
    root. A relative path is taken in the first root that has it. Refused as a whole, naming
    the first path that is not allowed, so nothing is read when anything is wrong."""
    roots = _roots(settings)
    if not roots:
        raise AccessError(
            "reading files is off for MCP clients: the reader must list the folders it may "
            f"read in {ROOTS_SETTING} (separated by ':', or ';' on Windows) and restart the "
            "server; until then, ask them to run `zettelgraph ingest PATH` themselves"
        )
    if not given:
        raise AccessError("give at least one file or folder to ingest")
    allowed = [str(root) for root in roots]
    chosen: list[Path] = []
    for text in given:
        path = _locate(Path(text).expanduser(), roots)
        if path is None or not _inside(path, roots):
            raise AccessError(
                f"{text}: outside the folders MCP clients may read ({', '.join(allowed)}); "
                f"the reader can add a folder to {ROOTS_SETTING}"
            )
        chosen.append(path)
    # A folder is scanned: a link inside it may lead out, so every file found is checked too.
    for found in FileSet(chosen).files:
        if not _inside(found.resolve(), roots):
            raise AccessError(
                f"{found}: leads outside the folders MCP clients may read ({', '.join(allowed)})"
            )
    return chosen


def _locate(path: Path, roots: list[Path]) -> Path | None:
    if path.is_absolute():
        return path.resolve()
    for root in roots:
        candidate = (root / path).resolve()
        if candidate.exists():
            return candidate
    return None


def approve_allowed(settings: Settings) -> bool:
    return settings.mcp_allow_approve
