"""One-token answers read as probabilities: the model's own yes/no, for the doubt checks.

The request asks for a single token with its top log-probabilities (OpenAI-compatible servers,
the local llama.cpp one among them, and Ollama through its OpenAI endpoint). A provider that
returns none gives no signal (None), never a guess; transient errors are retried as every
call's are, and the call is recorded in the usage log under its name.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage

from zettelgraph.llm.fake import CALL_NAME_KEY
from zettelgraph.llm.structured import invoke_with_retries
from zettelgraph.llm.usage import UsageLog

TOP = 10


def first_token_logprobs(
    llm: BaseChatModel,
    *,
    name: str,
    messages: Sequence[BaseMessage],
    usage: UsageLog,
    retries: int = 3,
    backoff: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
) -> list[Mapping[str, Any]] | None:
    """The top log-probabilities of the first token of the answer, or None without them."""
    runnable = llm.bind(logprobs=True, top_logprobs=TOP, max_tokens=1, temperature=0).with_config(
        run_name=name, metadata={CALL_NAME_KEY: name}
    )
    stats = usage.start(name)
    try:
        _, message = invoke_with_retries(runnable, [*messages], stats, retries, backoff, sleep)
    finally:
        usage.finish(stats)
    return _top_of_first(message)


def _top_of_first(message: AIMessage | None) -> list[Mapping[str, Any]] | None:
    if message is None:
        return None
    logprobs = message.response_metadata.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, Mapping) else None
    if not content or not isinstance(content, list):
        return None
    first = content[0]
    top = first.get("top_logprobs") if isinstance(first, Mapping) else None
    return [entry for entry in top if isinstance(entry, Mapping)] if top else None
