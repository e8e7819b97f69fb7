"""The one list of "the model failed" errors, shared by the CLI and the web app."""

from __future__ import annotations

from zettelgraph.llm.factory import LLMConfigError
from zettelgraph.llm.structured import SOFT_LLM_ERRORS, ErrorKind, error_kind
from zettelgraph.system.extras import MissingExtraError

# The configured model cannot be used at all: not configured, or its extra is not installed.
MODEL_UNUSABLE = (LLMConfigError, MissingExtraError)
# The model was reached but did not answer usably (timeouts, refused or malformed answers).
MODEL_FAILED = SOFT_LLM_ERRORS
MODEL_ERRORS = (*MODEL_UNUSABLE, *MODEL_FAILED)


def model_error_message(exc: Exception) -> str:
    """What a reader is told, the same in the terminal and in the browser.

    Args:
        exc: the error caught, one of `MODEL_ERRORS`.

    Returns:
        One line: the model cannot be used (not configured, extra missing), or it did not answer.
    """
    if isinstance(exc, MODEL_UNUSABLE):
        return f"the configured LLM cannot be used: {exc}"
    return f"the LLM could not answer: {exc}"


__all__ = [
    "MODEL_ERRORS",
    "MODEL_FAILED",
    "MODEL_UNUSABLE",
    "ErrorKind",
    "error_kind",
    "model_error_message",
]
