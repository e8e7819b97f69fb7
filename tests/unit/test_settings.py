"""Settings: explicit argument > environment > `.env` file > default; blanks are unset."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from zettelgraph.services.configuration import masked
from zettelgraph.settings import Settings
from zettelgraph.text.masking import mask_url_password


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty current directory, so only the `.env` a test writes is read."""
    folder = tmp_path / "cwd"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def write_env(folder: Path, **values: str) -> None:
    lines = [f"ZETTELGRAPH_{name.upper()}={value}" for name, value in values.items()]
    (folder / ".env").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_default_when_nothing_is_set(workdir: Path) -> None:
    settings = Settings()
    assert settings.llm is None
    assert settings.llm_fast is None
    assert settings.concept_language == "es"
    assert settings.embeddings == "e5-small"
    assert settings.llm_retries == 3


def test_dotenv_beats_default(workdir: Path) -> None:
    write_env(workdir, llm="fake:seed=1", concept_language="en", llm_retries="5")
    settings = Settings()
    assert settings.llm == "fake:seed=1"
    assert settings.concept_language == "en"
    assert settings.llm_retries == 5


def test_environment_beats_dotenv(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_env(workdir, llm="fake:seed=1", concept_language="en")
    monkeypatch.setenv("ZETTELGRAPH_LLM", "fake:seed=2")
    settings = Settings()
    assert settings.llm == "fake:seed=2"
    # Fields the environment does not set still come from the file.
    assert settings.concept_language == "en"


def test_explicit_argument_beats_environment_and_dotenv(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_env(workdir, llm="fake:seed=1")
    monkeypatch.setenv("ZETTELGRAPH_LLM", "fake:seed=2")
    assert Settings(llm="fake:seed=3").llm == "fake:seed=3"


def test_home_comes_from_environment(isolated_env: Path, workdir: Path) -> None:
    assert Settings().home == isolated_env


def test_dotenv_home_is_used_when_environment_has_none(
    workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ZETTELGRAPH_HOME")
    write_env(workdir, home=str(tmp_path / "from-dotenv"))
    assert Settings().home == tmp_path / "from-dotenv"


def test_default_home_is_under_the_user_home(
    workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ZETTELGRAPH_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    assert Settings().home == tmp_path / "user" / ".zettelgraph"


def test_blank_environment_value_falls_through_to_dotenv(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_env(workdir, llm="fake:seed=1")
    monkeypatch.setenv("ZETTELGRAPH_LLM", "")
    assert Settings().llm == "fake:seed=1"


def test_blank_dotenv_values_fall_through_to_defaults(workdir: Path, isolated_env: Path) -> None:
    # A `.env` copied from a template with empty values must not mean "empty path/name".
    write_env(workdir, vault="", concept_language="", embeddings="", llm="", store="")
    settings = Settings()
    assert settings.vault is None
    assert settings.vault_path == isolated_env / "vault"
    assert settings.concept_language == "es"
    assert settings.embeddings == "e5-small"
    assert settings.llm is None
    assert settings.store_url == f"sqlite:///{isolated_env / 'zettelgraph.db'}"


def test_blank_explicit_argument_falls_through_to_environment(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZETTELGRAPH_LLM", "fake:seed=2")
    assert Settings(llm="").llm == "fake:seed=2"
    assert Settings(llm="   ").llm == "fake:seed=2"


@pytest.mark.parametrize(
    "field", ["llm", "llm_fast", "llm_base_url", "llm_api_key", "store", "checkpoints", "vault"]
)
def test_whitespace_only_optional_values_are_unset(
    field: str, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(f"ZETTELGRAPH_{field.upper()}", "   ")
    assert getattr(Settings(), field) is None


def test_blank_required_fields_take_their_defaults(workdir: Path, isolated_env: Path) -> None:
    settings = Settings(home="", concept_language="", embeddings="")
    assert settings.home == isolated_env
    assert settings.concept_language == "es"
    assert settings.embeddings == "e5-small"


def test_invalid_values_are_rejected(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZETTELGRAPH_LOCAL_THREADS", "0")
    with pytest.raises(ValidationError, match="local_threads"):
        Settings()


def test_default_paths_live_under_home(tmp_path: Path, workdir: Path) -> None:
    home = tmp_path / "home"
    settings = Settings(home=home)
    assert settings.store_url == f"sqlite:///{home / 'zettelgraph.db'}"
    assert settings.checkpoints_url == f"sqlite:///{home / 'checkpoints.db'}"
    assert settings.vault_path == home / "vault"
    assert settings.models_dir == home / "models"
    assert settings.cache_dir == home / "cache"


def test_explicit_paths_replace_the_defaults(tmp_path: Path, workdir: Path) -> None:
    settings = Settings(
        home=tmp_path / "home",
        vault=tmp_path / "notes",
        store="falkordb://127.0.0.1:6379",
        checkpoints="postgresql://zg@db/zg",
    )
    assert settings.vault_path == tmp_path / "notes"
    assert settings.store_url == "falkordb://127.0.0.1:6379"
    assert settings.checkpoints_url == "postgresql://zg@db/zg"


def test_masked_hides_the_api_key(workdir: Path) -> None:
    settings = Settings(llm_api_key="sk-very-secret-123", llm_base_url="http://127.0.0.1:8000/v1")
    shown = masked(settings)
    assert shown["llm_api_key"] == "********"
    assert shown["llm_base_url"] == "http://127.0.0.1:8000/v1"
    assert not any("sk-very-secret-123" in value for value in shown.values())


def test_masked_hides_url_passwords(workdir: Path) -> None:
    settings = Settings(
        store="neo4j://user:secret@host:7687",
        checkpoints="postgresql://zg:pgsecret@db:5432/zg",
        llm_base_url="https://me:apisecret@llm.example.org/v1",
    )
    shown = masked(settings)
    assert shown["store"] == "neo4j://user:********@host:7687"
    assert shown["checkpoints"] == "postgresql://zg:********@db:5432/zg"
    assert shown["llm_base_url"] == "https://me:********@llm.example.org/v1"
    for secret in ("secret", "pgsecret", "apisecret"):
        assert not any(secret in value for value in shown.values()), secret


def test_masked_shows_every_field_and_the_effective_paths(
    workdir: Path, isolated_env: Path
) -> None:
    settings = Settings()
    shown = masked(settings)
    assert set(Settings.model_fields) <= set(shown)
    assert shown["llm_api_key"] == ""
    assert shown["llm"] == ""
    assert shown["store"] == f"sqlite:///{isolated_env / 'zettelgraph.db'}"
    assert shown["vault"] == str(isolated_env / "vault")


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("neo4j://user:secret@host:7687", "neo4j://user:********@host:7687"),
        ("neo4j://user@host:7687", "neo4j://user@host:7687"),
        ("neo4j://host:7687", "neo4j://host:7687"),
        ("sqlite:////data/zettelgraph.db", "sqlite:////data/zettelgraph.db"),
        ("postgresql://u:p%40ss@db/zg", "postgresql://u:********@db/zg"),
    ],
)
def test_mask_url_password(url: str, expected: str) -> None:
    assert mask_url_password(url) == expected
