"""Query text for FalkorDB: parameters as its query header reads them (why: `falkordb.py`'s
docstring)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np


def literal(value: Any) -> str:
    """A parameter value as FalkorDB's query header reads it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        number = float(value)
        if not math.isfinite(number):
            raise ValueError(f"cannot store the number {number}")
        return repr(number)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, np.ndarray):
        # json.dumps writes each float with repr: exact for the float32 values it came from.
        return json.dumps(value.astype(np.float64).tolist())
    if isinstance(value, list | tuple):
        return "[" + ",".join(literal(item) for item in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"`{key}`:{literal(item)}" for key, item in value.items()) + "}"
    raise TypeError(f"cannot send a {type(value).__name__} to FalkorDB")


def with_params(query: str, params: Mapping[str, Any] | None) -> str:
    if not params:
        return query
    header = " ".join(f"{name}={literal(value)}" for name, value in params.items())
    return f"CYPHER {header} {query}"
