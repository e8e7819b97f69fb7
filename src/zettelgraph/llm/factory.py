"""Chat models from `provider:model` strings, plus the offline `local` and test `fake` models."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from zettelgraph.llm import local
from zettelgraph.llm.better import better_model_hint
from zettelgraph.llm.fake import FakeChatModel, parse_fake_spec
from zettelgraph.llm.profile import ModelProfile
from zettelgraph.llm.structured import Sampling, call_structured
from zettelgraph.llm.usage import UsageLog
from zettelgraph.settings import Settings
from zettelgraph.system.extras import MissingExtraError

T = TypeVar("T", bound=BaseModel)

# provider prefix accepted by init_chat_model -> zettelgraph extra that installs it
PROVIDER_EXTRAS = {
    "google_genai": "gemini",
    "openai": "openai",
    "anthropic": "anthropic",
    "ollama": "ollama",
}
OPTIONS_HELP = (
    "set ZETTELGRAPH_LLM to one of: google_genai:gemini-2.5-flash, openai:gpt-4.1-mini, "
    "anthropic:claude-sonnet-4-5, ollama:qwen3:8b, openai-compatible:MODEL (with "
    "ZETTELGRAPH_LLM_BASE_URL), local (pip install 'zettelgraph[local]'), or fake (tests only)"
)
SMALL_MODEL_NOTICE = (
    "Using a small offline model ({spec}): expect rough summaries and concepts. For better "
    "results set ZETTELGRAPH_LLM, e.g. google_genai:gemini-2.5-flash, openai:gpt-4.1-mini "
    "or ollama:qwen3:8b."
)
BETTER_AT_HAND_NOTICE = (
    "Using a small offline model ({spec}), which misreads many quotes; a better one is at "
    "hand: {hint}."
)
FAKE_NOTICE = (
    "Using the fake LLM: answers are built deterministically from each prompt, for tests and "
    "benchmarks only. Set ZETTELGRAPH_LLM to use a real model."
)


class LLMConfigError(ValueError):
    """The configured model cannot be used; the message lists what can."""


def default_spec() -> str:
    """`local` when an offline model is installed, else an error listing the options."""
    for key in (local.DEFAULT_LOCAL, *local.LOCAL_MODELS):
        if local.is_installed(local.LOCAL_MODELS[key]):
            return "local" if key == local.DEFAULT_LOCAL else f"local:{key}"
    raise LLMConfigError(f"no LLM is configured and no local model is installed: {OPTIONS_HELP}")


class ChatModels:
    """The main and fast chat models of a run, built on first use and closed together, with
    the profile of each (what it is asked to do, how hard it is driven).

    Building is lazy because the local model takes seconds to load and many runs (re-ingesting
    unchanged notes, listing contents) never call an LLM.
    """

    def __init__(
        self,
        settings: Settings,
        on_notice: Callable[[str], None] | None = None,
        *,
        preset: dict[str, BaseChatModel] | None = None,
    ) -> None:
        self.settings = settings
        # Models given by the caller for a spec (tests script a fake; an app reuses a client).
        self._models: dict[str, BaseChatModel] = dict(preset or {})
        self._profiles: dict[str, ModelProfile] = {}
        self._servers: dict[str, local.LocalServer] = {}
        self.notices: list[str] = []
        self._on_notice = on_notice

    def _notice(self, text: str) -> None:
        """Say once per run what kind of model answers, e.g. that small models are rough."""
        if text not in self.notices:
            self.notices.append(text)
            if self._on_notice is not None:
                self._on_notice(text)

    @property
    def main_spec(self) -> str:
        return self.settings.llm or default_spec()

    @property
    def configured_spec(self) -> str | None:
        """The main model's spec, or None when no model is configured or installed: viewing
        a run, listing and ingesting book notes need no model and must not stop there."""
        try:
            return self.main_spec
        except LLMConfigError:
            return None

    @property
    def sizing_spec(self) -> str:
        """The spec that sizes a workflow (batches, concurrency, which steps run), read
        when a workflow is built, also only to view its runs: with no model configured
        nothing will be called, and the first call says what to do."""
        return self.configured_spec or ""

    @property
    def fast_spec(self) -> str:
        return self.settings.llm_fast or self.main_spec

    @property
    def main_profile(self) -> ModelProfile:
        return self.profile(self.main_spec)

    @property
    def fast_profile(self) -> ModelProfile:
        return self.profile(self.fast_spec)

    @property
    def sizing_profile(self) -> ModelProfile:
        """The profile that sizes a workflow (see `sizing_spec`)."""
        return self.profile(self.sizing_spec)

    def profile(self, spec: str) -> ModelProfile:
        """The model-size policy of `spec` with this run's settings, resolved once."""
        known = self._profiles.get(spec)
        if known is None:
            known = self._profiles[spec] = ModelProfile.of(self.settings, spec)
        return known

    @property
    def main(self) -> BaseChatModel:
        return self.get(self.main_spec)

    @property
    def fast(self) -> BaseChatModel:
        return self.get(self.fast_spec)

    def get(self, spec: str) -> BaseChatModel:
        if spec not in self._models:
            self._models[spec] = self._build(spec)
        return self._models[spec]

    def spec_of(self, model: BaseChatModel) -> str | None:
        """The spec a model built here was built from (None for a model from elsewhere)."""
        return next((spec for spec, built in self._models.items() if built is model), None)

    def structured(
        self,
        llm: BaseChatModel,
        *,
        name: str,
        messages: Sequence[BaseMessage],
        response_model: type[T],
        usage: UsageLog,
        sampling: Sampling | None = None,
        schema: dict[str, Any] | None = None,
    ) -> T:
        """`call_structured` with the retry settings and the profile of `llm` (whether a
        timeout is retried), recorded in `usage`."""
        return call_structured(
            llm,
            name=name,
            messages=messages,
            response_model=response_model,
            usage=usage,
            retries=self.settings.llm_retries,
            backoff=self.settings.llm_backoff,
            sampling=sampling,
            schema=schema,
            retry_timeouts=self.profile(self.spec_of(llm) or "").retries_on_timeout,
        )

    def close(self) -> None:
        for server in self._servers.values():
            server.close()
        self._servers.clear()
        self._models.clear()

    def _build(self, spec: str) -> BaseChatModel:
        provider, _, model = spec.partition(":")
        s = self.settings
        if provider == "fake":
            self._notice(FAKE_NOTICE)
            try:
                return FakeChatModel(**parse_fake_spec(model))
            except ValueError as exc:
                raise LLMConfigError(str(exc)) from exc
        if provider == "local":
            return self._local(spec)
        if provider == "openai-compatible":
            if not s.llm_base_url or not model:
                raise LLMConfigError(
                    "openai-compatible needs a model name (openai-compatible:MODEL) and "
                    "ZETTELGRAPH_LLM_BASE_URL"
                )
            return _openai_client(
                base_url=s.llm_base_url,
                api_key=s.llm_api_key.get_secret_value() if s.llm_api_key else "none",
                model=model,
                settings=s,
                timeout=self.profile(spec).request_timeout,
            )
        if provider not in PROVIDER_EXTRAS or not model:
            raise LLMConfigError(f"unknown LLM {spec!r}: {OPTIONS_HELP}")
        return _init_chat_model(provider, model, s, self.profile(spec).request_timeout)

    def _local(self, spec: str) -> BaseChatModel:
        s = self.settings
        try:
            chosen = local.resolve_local(spec)
            # `local` and `local:1.5b` name one model: one server, not two.
            server = self._servers.get(chosen.key)
            if server is None:
                # Said before the model loads, so the reader can switch before a long run.
                self._small_model_notice(spec)
                server = local.LocalServer(
                    local.ensure_model_file(chosen, s.models_dir, on_join=self._notice),
                    threads=s.local_threads,
                    context=s.local_context,
                    max_tokens=s.llm_max_tokens,
                    alias=f"local-{chosen.key}",
                )
                self._servers[chosen.key] = server
        except local.LocalModelError as exc:
            raise LLMConfigError(str(exc)) from exc
        return _openai_client(
            base_url=server.base_url,
            api_key="none",
            model=server.alias,
            settings=s,
            timeout=self.profile(spec).request_timeout,
        )

    def _small_model_notice(self, spec: str) -> None:
        hint = better_model_hint()
        if hint is None:
            self._notice(SMALL_MODEL_NOTICE.format(spec=spec))
        else:
            self._notice(BETTER_AT_HAND_NOTICE.format(spec=spec, hint=hint))


def _openai_client(
    *, base_url: str, api_key: str, model: str, settings: Settings, timeout: float
) -> BaseChatModel:
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(
        base_url=base_url,
        api_key=api_key,
        model=model,
        temperature=0,
        max_completion_tokens=settings.llm_max_tokens,
        timeout=timeout,
        max_retries=0,  # structured.call_structured owns retries
    )


def _init_chat_model(
    provider: str, model: str, settings: Settings, timeout: float
) -> BaseChatModel:
    from langchain.chat_models import init_chat_model

    kwargs: dict[str, Any] = {"temperature": 0}
    if provider == "ollama":
        kwargs["num_predict"] = settings.llm_max_tokens
    else:
        kwargs.update(
            max_tokens=settings.llm_max_tokens,
            timeout=timeout,
        )
        kwargs["max_retries"] = 0
    try:
        chat: BaseChatModel = init_chat_model(model, model_provider=provider, **kwargs)
    except ImportError as exc:
        raise MissingExtraError(
            f"{provider} models need their LangChain integration: "
            f"pip install 'zettelgraph[{PROVIDER_EXTRAS[provider]}]'"
        ) from exc
    except Exception as exc:  # e.g. a missing API key, raised by the client's constructor
        raise LLMConfigError(f"cannot use {provider}:{model}: {exc}") from exc
    return chat
