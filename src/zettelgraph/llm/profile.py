"""What a configured model is asked to do, and how hard it is driven: the model-size policy.

The bundled offline models (`local`, `local:<size>`) are slow on a laptop CPU and the least
reliable writers, so several defaults differ for them. A setting you give wins over the
default (`ZETTELGRAPH_COMPACT_ANSWERS`, `ZETTELGRAPH_EXTRACTION_BATCH_SIZE`, ...). A profile is
resolved once per model (`ChatModels.main_profile`, `fast_profile`, `sizing_profile`) and read
by the workflows, so the rule for each default lives here only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from zettelgraph.settings import Settings, SmallModelTask

T = TypeVar("T")

# Seconds a request to a local model may take (see `request_timeout` below).
LOCAL_TIMEOUT = 600.0


@dataclass(frozen=True)
class ModelProfile:
    """The model-size policy of one model spec, with the reader's overrides applied."""

    spec: str
    small: bool
    covers_quotes: bool
    compact: bool
    task: SmallModelTask
    writes_book_summary: bool
    writes_author_bio: bool
    only_confirmed_relations: bool
    critique_enabled: bool
    batch_size: int
    request_timeout: float
    retries_on_timeout: bool
    concurrency: int
    refine_rounds: int

    @classmethod
    def of(cls, settings: Settings, spec: str) -> ModelProfile:
        """The profile of `spec` under `settings`; an empty spec (no model configured) is
        sized as a large model, since nothing will be called."""
        s = settings
        # The bundled offline models: slow on a laptop CPU and the least reliable writers.
        small = spec.startswith("local")
        compact = s.compact_answers if s.compact_answers is not None else small
        return cls(
            spec=spec,
            small=small,
            # Whether a quote no candidate cites gets a focused call of its own. Large models
            # list the quotes they leave out with a reason the reader sees; the compact answer
            # of a small model has no such list, so a skipped quote is as likely a miss as a
            # choice.
            covers_quotes=_given(s.cover_quotes, small),
            compact=compact,
            # What a call writes for a quote: `small_model_task` on compact answers, otherwise
            # the full design (which paraphrases).
            task=s.small_model_task if compact else "paraphrase",
            writes_book_summary=_given(s.book_summary, not small),
            writes_author_bio=_given(s.author_bio, s.author_search != "none" or not small),
            # A small model's typed relations rarely held (0 of 14 on unseen books, graded
            # blind), so it shows a type only when its own check agrees; the rest become
            # untyped suggestions.
            only_confirmed_relations=_given(s.confirmed_relations, small),
            critique_enabled=_given(s.self_critique, not small),
            # Quotes per extraction call: 40, or one on the small local models, which write
            # one sound idea from one quote but lose track of which quote says what in a long
            # batch (and spend about the same tokens either way: the output is the cost).
            batch_size=_given(s.extraction_batch_size, 1 if small else 40),
            # The local models write at about ten tokens a second on two cores, so a long
            # answer (a feedback patch, up to 2,048 tokens, after a prompt of thousands) takes
            # minutes: 120 s cut such calls off and every retry was cut off the same way.
            request_timeout=_given(s.llm_timeout, LOCAL_TIMEOUT if small else 120.0),
            # Not on the local models: the same prompt at temperature 0 takes as long again.
            retries_on_timeout=not small,
            # Workflow branches in flight at once: 16, or one on the local models, whose
            # server answers one request at a time; more would only queue there and run into
            # the request timeout (seen: 3 of 6 extraction calls timed out and were retried,
            # then lost).
            concurrency=_given(s.max_concurrency, 1 if small else 16),
            # Self-critique refinement rounds: 3, or 1 for the small local models, whose
            # critiques are the least reliable part of their output and whose calls take tens
            # of seconds each on a laptop CPU.
            refine_rounds=_given(s.critique_max_iterations, 1 if small else 3),
        )


def _given(value: T | None, default: T) -> T:
    """The reader's setting when given, else the model's default."""
    return value if value is not None else default
