"""Optional dependencies are imported lazily, with an install hint when missing."""

from __future__ import annotations

import importlib
from types import ModuleType


class MissingExtraError(ImportError):
    """An optional dependency is not installed; the message says which extra adds it."""


def require(module: str, extra: str, what: str) -> ModuleType:
    """Import `module`, or explain which `zettelgraph[extra]` to install for `what`."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(
            f"{what} needs the {module!r} package: pip install 'zettelgraph[{extra}]'"
        ) from exc
