"""ChatModels: provider strings, the fake model, configuration errors, default choice."""

from __future__ import annotations

import importlib.util

import pytest
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from zettelgraph.llm import local
from zettelgraph.llm.factory import FAKE_NOTICE, ChatModels, LLMConfigError, default_spec
from zettelgraph.llm.fake import FakeChatModel
from zettelgraph.settings import Settings
from zettelgraph.system.extras import MissingExtraError

OPTIONS = (
    "google_genai:",
    "openai:",
    "anthropic:",
    "ollama:",
    "openai-compatible:MODEL",
    "ZETTELGRAPH_LLM_BASE_URL",
    "local",
    "fake",
)


def models(**settings: object) -> tuple[ChatModels, list[str]]:
    notices: list[str] = []
    return ChatModels(Settings(**settings), on_notice=notices.append), notices  # type: ignore[arg-type]


def test_fake_is_built_once_with_one_notice() -> None:
    chat, notices = models(llm="fake")
    main = chat.main
    assert isinstance(main, FakeChatModel)
    assert chat.main is main
    assert chat.fast is main  # llm_fast defaults to llm
    assert notices == [FAKE_NOTICE]
    assert chat.notices == [FAKE_NOTICE]


def test_fake_options_are_applied_and_the_notice_is_not_repeated() -> None:
    chat, notices = models(llm="fake", llm_fast="fake:latency=0,seed=3")
    main, fast = chat.main, chat.fast
    assert isinstance(fast, FakeChatModel)
    assert fast is not main
    assert (fast.seed, fast.latency) == (3, 0.0)
    assert notices == [FAKE_NOTICE]


def test_close_forgets_built_models() -> None:
    chat, notices = models(llm="fake")
    first = chat.main
    chat.close()
    assert chat.main is not first
    assert notices == [FAKE_NOTICE]


@pytest.mark.parametrize("spec", ["acme:model-1", "gpt-4", "openai", "anthropic", "ollama:"])
def test_unknown_provider_or_missing_model_lists_the_options(spec: str) -> None:
    chat, _ = models(llm=spec)
    with pytest.raises(LLMConfigError) as info:
        _ = chat.main
    message = str(info.value)
    assert repr(spec) in message
    for option in OPTIONS:
        assert option in message, option


@pytest.mark.parametrize("spec", ["fake:bogus=1", "fake:seed=abc", "fake:transient=2"])
def test_bad_fake_options_are_configuration_errors(spec: str) -> None:
    chat, _ = models(llm=spec)
    with pytest.raises(LLMConfigError):
        _ = chat.main


def test_openai_compatible_needs_a_base_url() -> None:
    chat, _ = models(llm="openai-compatible:qwen3")
    with pytest.raises(LLMConfigError, match="ZETTELGRAPH_LLM_BASE_URL") as info:
        _ = chat.main
    assert "openai-compatible:MODEL" in str(info.value)


def test_openai_compatible_needs_a_model_name() -> None:
    chat, _ = models(llm="openai-compatible", llm_base_url="http://127.0.0.1:9/v1")
    with pytest.raises(LLMConfigError, match="openai-compatible:MODEL"):
        _ = chat.main


def test_openai_compatible_builds_a_client_for_the_server() -> None:
    chat, notices = models(
        llm="openai-compatible:qwen3",
        llm_base_url="http://127.0.0.1:9/v1",
        llm_api_key="sk-test",
        llm_max_tokens=300,
        llm_timeout=7.5,
    )
    client = chat.main
    assert isinstance(client, ChatOpenAI)
    assert client.openai_api_base == "http://127.0.0.1:9/v1"
    assert client.model_name == "qwen3"
    assert isinstance(client.openai_api_key, SecretStr)
    assert client.openai_api_key.get_secret_value() == "sk-test"
    assert client.max_tokens == 300
    assert client.request_timeout == 7.5
    assert client.max_retries == 0  # call_structured owns retries
    assert notices == []


@pytest.mark.parametrize(
    ("spec", "module", "extra"),
    [
        ("anthropic:claude-sonnet-4-5", "langchain_anthropic", "anthropic"),
        ("ollama:qwen3:8b", "langchain_ollama", "ollama"),
        ("google_genai:gemini-2.5-flash", "langchain_google_genai", "gemini"),
    ],
)
def test_provider_without_its_package_says_what_to_install(
    spec: str, module: str, extra: str
) -> None:
    if importlib.util.find_spec(module) is not None:
        pytest.skip(f"{module} is installed")
    chat, _ = models(llm=spec)
    with pytest.raises(MissingExtraError, match=rf"pip install 'zettelgraph\[{extra}\]'"):
        _ = chat.main


def test_main_spec_defaults_to_the_best_installed_local_model() -> None:
    # The `local` extra installs 1.5B; the `dev` extra (CI) only the 0.5B model.
    if local.is_installed(local.LOCAL_MODELS[local.DEFAULT_LOCAL]):
        expected = "local"
    elif local.is_installed(local.LOCAL_MODELS["0.5b"]):
        expected = "local:0.5b"
    else:
        pytest.skip("no local model is installed")
    assert default_spec() == expected
    chat, notices = models()
    assert chat.main_spec == expected
    assert chat.fast_spec == expected
    assert notices == []  # nothing was built


def test_provider_configuration_errors_are_llm_config_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    chat, _ = models(llm="openai:gpt-4.1-mini")
    with pytest.raises(LLMConfigError, match="OPENAI_API_KEY"):
        _ = chat.main


def test_fast_spec_is_its_own_when_set() -> None:
    chat, _ = models(llm="fake", llm_fast="fake:seed=9")
    assert (chat.main_spec, chat.fast_spec) == ("fake", "fake:seed=9")
