"""The names a provenance export gives things: namespaces, stable identifiers, and the agents
(the reader, zettelgraph itself, each chat model) with what is known of them.

Every identifier is an IRI under `urn:zettelgraph:` built from the node's own id, so exporting
the same graph twice gives the same names, and two exports of one graph can be merged. Each
kind of thing has its own prefix (`concept:`, `quote:`, `run:` ...) so that Turtle and PROV-N
can write the names short.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from zettelgraph import __version__

ZG = "urn:zettelgraph:"
DCTERMS = "http://purl.org/dc/terms/"

# prefix -> namespace IRI; `zg` holds the vocabulary (classes and properties), the others the
# things themselves.
PREFIXES: dict[str, str] = {
    "zg": ZG,
    "dcterms": DCTERMS,
    **{
        kind: f"{ZG}{kind}/"
        for kind in (
            "content",
            "quote",
            "concept",
            "relation",
            "item",
            "entity",
            "answer",
            "person",
            "agent",
            "ingest",
            "run",
            "generation",
            "experiment",
            "removal",
        )
    },
}

# Characters an identifier's local part keeps as they are: letters (any script), digits, and
# "_-./", which PROV-N and IRIs both accept unescaped; anything else becomes "-".
_UNSAFE = re.compile(r"[^\w.\-/]+")


def local_name(text: str) -> str:
    """`text` as the local part of an identifier ("incorporate_feedback#2" ->
    "incorporate_feedback-2", "merged across batches" -> "merged-across-batches")."""
    cleaned = _UNSAFE.sub("-", text).strip("-./")
    return cleaned or "-"


def snippet(text: str, limit: int = 160) -> str:
    """One line of at most `limit` characters: what a label shows of a long text."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


@dataclass(frozen=True)
class ModelInfo:
    """A chat model as its spec names it: `openai:gpt-4.1-mini` -> provider openai, name
    gpt-4.1-mini. `version` is what pins the weights when the spec says it (an Ollama tag,
    the bundled model's file and checksum), else empty: a hosted provider's name is all that
    is recorded of which weights answered."""

    spec: str
    provider: str
    name: str
    version: str


def model_info(spec: str) -> ModelInfo:
    provider, _, rest = spec.partition(":")
    if provider == "local":
        from zettelgraph.llm.local import DEFAULT_LOCAL, LOCAL_MODELS

        known = LOCAL_MODELS.get((rest or DEFAULT_LOCAL).lower())
        if known is not None:
            name = known.file_name.removesuffix(".gguf")
            return ModelInfo(spec, "local (llama.cpp)", name, f"sha256:{known.sha256[:16]}")
        return ModelInfo(spec, provider, rest, "")
    if provider == "fake":
        # The test double ships with zettelgraph: its version is zettelgraph's.
        return ModelInfo(spec, provider, "fake", __version__)
    if provider == "ollama":
        name, _, tag = rest.partition(":")
        return ModelInfo(spec, provider, name, tag or "latest")
    return ModelInfo(spec, provider, rest or provider, "")
