"""Whether a better model than the offline one is at hand, said in one line before a long
offline run: a provider's API key in the environment, or an Ollama server on this machine
with an instruct model larger than the offline 1.5B."""

from __future__ import annotations

import re
from typing import Any

from zettelgraph.settings import PROVIDER_KEYS, ollama_url, provider_keys_set

# What each provider's key suggests (the models docs/configuration.md lists), with the extra
# its LangChain integration needs.
SUGGESTED = {
    "google_genai": ("google_genai:gemini-2.5-flash", "gemini"),
    "openai": ("openai:gpt-4.1-mini", None),
    "anthropic": ("anthropic:claude-sonnet-4-5", "anthropic"),
}
OFFLINE_BILLIONS = 1.5
# A quick look only: the hint must not delay a run when nothing listens.
OLLAMA_TIMEOUT = 0.5
_SIZE = re.compile(r"^\s*([\d.]+)\s*([BM])\s*$", re.IGNORECASE)


def billions(parameter_size: str) -> float:
    """Ollama's `parameter_size` ("7.6B", "494.03M") in billions; 0 when unreadable."""
    match = _SIZE.match(parameter_size or "")
    if not match:
        return 0.0
    value = float(match.group(1))
    return value if match.group(2).upper() == "B" else value / 1000


def larger_chat_models(tags: dict[str, Any]) -> list[str]:
    """The models of an Ollama `/api/tags` answer larger than the offline model that chat
    (embedding models left out), largest first."""
    found = []
    for model in tags.get("models", []):
        details = model.get("details") or {}
        families = " ".join([details.get("family") or "", *(details.get("families") or [])])
        name = str(model.get("name") or model.get("model") or "")
        if not name or "embed" in name.lower() or "bert" in families.lower():
            continue
        size = billions(str(details.get("parameter_size") or ""))
        if size > OFFLINE_BILLIONS:
            found.append((size, name))
    return [name for _, name in sorted(found, reverse=True)]


def ollama_models() -> list[str]:
    """The larger chat models of an Ollama server on this machine; none when none answers."""
    import httpx

    try:
        reply = httpx.get(f"{ollama_url()}/api/tags", timeout=OLLAMA_TIMEOUT)
        reply.raise_for_status()
        return larger_chat_models(reply.json())
    except (httpx.HTTPError, ValueError):
        return []


def better_model_hint() -> str | None:
    """One line saying which better model is at hand and how to use it, or None."""
    for provider in provider_keys_set():
        spec, extra = SUGGESTED[provider]
        install = f" (pip install 'zettelgraph[{extra}]')" if extra else ""
        return (
            f"{PROVIDER_KEYS[provider]} is set: ZETTELGRAPH_LLM={spec}{install} reads quotes "
            "far better than the offline model"
        )
    models = ollama_models()
    if models:
        return (
            f"Ollama at {ollama_url()} has {models[0]}: ZETTELGRAPH_LLM=ollama:{models[0]} "
            "(pip install 'zettelgraph[ollama]') reads quotes far better than the offline model"
        )
    return None
