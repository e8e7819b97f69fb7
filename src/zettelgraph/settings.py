"""Effective configuration: the only module that reads environment variables.

Precedence is explicit argument > environment > `.env` file > default, which is what
pydantic-settings gives for keyword arguments passed to `Settings(...)`. A blank value
(`ZETTELGRAPH_VAULT=` in a `.env` copied from a template, or an empty flag) counts as unset
at every level, so the next level applies instead of an empty path or name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)


def default_home() -> Path:
    return Path.home() / ".zettelgraph"


class Settings(BaseSettings):
    """Everything a run can be configured with; every field maps to `ZETTELGRAPH_<NAME>`."""

    model_config = SettingsConfigDict(
        env_prefix="ZETTELGRAPH_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        validate_default=True,
        env_ignore_empty=True,
    )

    home: Path = Field(default_factory=default_home, description="Data directory.")
    llm: str | None = Field(
        default=None,
        description="Chat model as provider:model (google_genai:gemini-2.5-flash, "
        "openai:gpt-4.1-mini, ollama:qwen3:8b, openai-compatible:NAME, local, local:0.5b, fake).",
    )
    llm_fast: str | None = Field(
        default=None, description="Model for cheap calls; defaults to llm."
    )
    llm_base_url: str | None = Field(default=None, description="Base URL for openai-compatible.")
    llm_api_key: SecretStr | None = Field(
        default=None, description="API key for openai-compatible."
    )
    llm_max_tokens: int = Field(default=2048, ge=64, le=65536)
    llm_timeout: float = Field(default=120.0, gt=0, description="Seconds per LLM request.")
    llm_retries: int = Field(default=3, ge=0, le=10, description="Retries on transient errors.")
    llm_backoff: float = Field(default=1.0, ge=0, le=60, description="First retry delay, seconds.")
    local_threads: int = Field(default=2, ge=1, le=64, description="CPU threads for local.")
    local_context: int = Field(default=8192, ge=512, le=131072, description="Context for local.")
    embeddings: str = Field(
        default="use-multilingual",
        description="Embedder: use-multilingual, ollama:MODEL, openai:MODEL, "
        "google_genai:MODEL, sentence-transformers:PATH, hash.",
    )
    store: str | None = Field(default=None, description="Graph store URL; default sqlite in home.")
    checkpoints: str | None = Field(default=None, description="Checkpoint URL; default in home.")
    vault: Path | None = Field(default=None, description="Obsidian vault; default home/vault.")
    concept_language: str = Field(default="es", min_length=2, max_length=16)
    extraction_batch_size: int = Field(default=40, ge=1, le=500, description="Quotes per call.")
    duplicate_top_k: int = Field(default=50, ge=1, le=500, description="Concepts per check.")
    # Calibrated on STS-es dev (benchmarks/calibrate_duplicates.py): 0.602 keeps 99.2% of
    # true duplicates (score >= 4.5) above it; 0.60 leaves a little margin.
    duplicate_threshold: float = Field(
        default=0.60, ge=-1.0, le=1.0, description="Below this similarity: novel, no LLM call."
    )
    merge_threshold: float = Field(
        default=0.9, ge=0.0, le=1.0, description="Similarity that merges batch candidates."
    )
    relation_top_k: int = Field(default=10, ge=1, le=100, description="Hits per query.")
    relation_min_similarity: float = Field(default=0.25, ge=-1.0, le=1.0)
    relation_pool_size: int = Field(default=50, ge=1, le=500)
    critique_max_iterations: int | None = Field(
        default=None, ge=0, le=20, description="Refine rounds; default 3, or 1 on local models."
    )
    review_max_rounds: int = Field(default=10, ge=1, le=100, description="Feedback rounds.")
    max_concurrency: int = Field(default=16, ge=1, le=256, description="Parallel LLM calls.")
    max_file_mb: float = Field(default=20.0, gt=0, description="Largest file accepted.")
    chunk_tokens: int = Field(
        default=256, ge=16, le=4096, description="Tokens per document passage (child chunk)."
    )
    chunk_overlap: int = Field(
        default=32, ge=0, le=1024, description="Tokens a passage repeats from the one before."
    )
    search_recipe: str = Field(
        default="hybrid", description="Search recipe: hybrid, fulltext, vector, rrf."
    )
    search_k: int = Field(default=5, ge=1, le=100, description="Results of search and ask.")
    web_token: SecretStr | None = Field(
        default=None,
        description="Token the web app asks every request for; required to serve beyond 127.0.0.1.",
    )

    @model_validator(mode="after")
    def _overlap_below_chunk(self) -> Settings:
        if self.chunk_overlap >= self.chunk_tokens:
            raise ValueError(
                f"chunk_overlap ({self.chunk_overlap}) must be smaller than chunk_tokens "
                f"({self.chunk_tokens}): lower ZETTELGRAPH_CHUNK_OVERLAP"
            )
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # A blank explicit argument falls through to the environment, like a blank variable.
        if isinstance(init_settings, InitSettingsSource):
            init_settings.init_kwargs = {
                key: value for key, value in init_settings.init_kwargs.items() if not _blank(value)
            }
        return init_settings, env_settings, dotenv_settings, file_secret_settings

    @field_validator(
        "llm",
        "llm_fast",
        "llm_base_url",
        "llm_api_key",
        "web_token",
        "store",
        "checkpoints",
        "vault",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        # Whitespace-only values that got past the sources (e.g. "  " in the environment).
        return None if _blank(value) else value

    def refine_rounds(self, main_llm: str) -> int:
        """Self-critique refinement rounds: as configured, else 3, or 1 for the small local
        models, whose critiques are the least reliable part of their output and whose calls
        take tens of seconds each on a laptop CPU."""
        if self.critique_max_iterations is not None:
            return self.critique_max_iterations
        return 1 if main_llm.startswith("local") else 3

    @property
    def store_url(self) -> str:
        return self.store or f"sqlite:///{self.home / 'zettelgraph.db'}"

    @property
    def checkpoints_url(self) -> str:
        return self.checkpoints or f"sqlite:///{self.home / 'checkpoints.db'}"

    @property
    def vault_path(self) -> Path:
        return self.vault or self.home / "vault"

    @property
    def models_dir(self) -> Path:
        return self.home / "models"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    def masked(self) -> dict[str, str]:
        """Effective values for display, with secrets and URL passwords hidden."""
        shown: dict[str, str] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                text = "********" if value.get_secret_value() else ""
            elif value is None:
                text = ""
            else:
                text = mask_url_password(str(value))
            shown[name] = text
        shown["store"] = mask_url_password(self.store_url)
        shown["checkpoints"] = mask_url_password(self.checkpoints_url)
        shown["vault"] = str(self.vault_path)
        return shown


def _blank(value: Any) -> bool:
    return isinstance(value, str) and not value.strip()


def mask_url_password(url: str) -> str:
    """Hide the password of `scheme://user:password@host` URLs."""
    if "://" not in url or "@" not in url:
        return url
    scheme, rest = url.split("://", 1)
    credentials, host = rest.rsplit("@", 1)
    if ":" in credentials:
        user = credentials.split(":", 1)[0]
        return f"{scheme}://{user}:********@{host}"
    return url
