"""One tiny structured call to the configured model, and what failed in one line: the key
is missing or refused, the server is unreachable, the model is not there, the schema was
refused, the answer was not valid; or ok with the latency. `zettelgraph doctor` shows it."""

from __future__ import annotations

import time
from dataclasses import dataclass

from zettelgraph.context import Services
from zettelgraph.llm.factory import LLMConfigError
from zettelgraph.llm.structured import StructuredOutputError, call_structured, error_kind
from zettelgraph.llm.usage import UsageLog
from zettelgraph.prompts import health_check
from zettelgraph.settings import PROVIDER_KEYS
from zettelgraph.system.extras import MissingExtraError


@dataclass(frozen=True)
class ModelCheck:
    ok: bool
    line: str
    seconds: float


def check_model(services: Services) -> ModelCheck:
    """Call the main model once (no retries: a doctor reports, it does not insist).

    Args:
        services: the open services whose main model is called.

    Returns:
        A `ModelCheck`: `ok`, a line naming the model and how it answered (or what failed and what
        to do), and the seconds it took.
    """
    started = time.perf_counter()
    spec = "(none)"
    try:
        spec = services.llms.main_spec
        call_structured(
            services.llms.main,
            name=health_check.NAME,
            messages=health_check.messages(),
            response_model=health_check.HealthCheck,
            usage=UsageLog(),
            retries=0,
        )
    except Exception as exc:
        seconds = time.perf_counter() - started
        return ModelCheck(False, f"{spec}: {failure(spec, exc, services)}", seconds)
    seconds = time.perf_counter() - started
    return ModelCheck(True, f"{spec}: ok, a structured answer in {seconds:.1f} s", seconds)


def failure(spec: str, exc: BaseException, services: Services) -> str:
    """What failed, in the reader's words, with what to do.

    Args:
        spec: the model as configured (`provider:model`).
        exc: what the call raised.
        services: the open services (for the timeout and base URL named in the line).

    Returns:
        One line: not installed, key missing or refused, model not found, schema refused, timed out,
        unreachable, or the error's first line.
    """
    provider = spec.partition(":")[0]
    cause = exc.__cause__ or exc
    text = f"{type(cause).__name__}: {cause}"
    lowered = text.lower()
    status = getattr(cause, "status_code", None) or getattr(
        getattr(cause, "response", None), "status_code", None
    )
    if isinstance(exc, MissingExtraError):
        return f"not installed: {exc}"
    if isinstance(exc, LLMConfigError):
        if "api_key" in lowered or "api key" in lowered:
            return f"key missing: set {key_variable(provider)}"
        return f"not configured: {exc}"
    if isinstance(exc, StructuredOutputError):
        return "answered, but not with valid JSON for the schema (twice)"
    if status in (401, 403):
        return f"key refused ({status}): check {key_variable(provider)}"
    if status == 404 or "model not found" in lowered or "does not exist" in lowered:
        return f"model not found ({status or 'no such model'}): check the name in {spec!r}"
    if status == 400 and any(w in lowered for w in ("schema", "response_format", "format")):
        return f"schema refused (400): {_first_line(str(cause))}"
    kind = error_kind(cause)
    if kind.kind == "timeout":
        return f"timed out after {services.settings.llm_timeout:.0f} s (ZETTELGRAPH_LLM_TIMEOUT)"
    if "connect" in lowered or isinstance(cause, ConnectionError):
        where = services.settings.llm_base_url or "the provider"
        return f"unreachable: no answer from {where}"
    return f"failed: {_first_line(text)}"


def key_variable(provider: str) -> str:
    """The environment variable that holds a provider's API key.

    Args:
        provider: the provider's name, as a model spec starts (`openai`).

    Returns:
        Its variable (`OPENAI_API_KEY`), or ZETTELGRAPH_LLM_API_KEY for a provider without one of
        its own.
    """
    return PROVIDER_KEYS.get(provider, "ZETTELGRAPH_LLM_API_KEY")


def _first_line(text: str, limit: int = 200) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
