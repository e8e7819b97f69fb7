"""Does speculative decoding make the offline 1.5B model faster on this CPU?

Starts the llama.cpp server three ways (no speculation, n-gram drafts from the prompt, the 0.5B
model as a draft) and times the same real extraction calls (one quote each, the workflow's own
prompt and schema) on each, after one warm-up call. Prints one JSON object: per mode, seconds
and generated tokens per call, and tokens per second. Needs `local` and `local-small` installed.

    python benchmarks/local_speculative.py [--calls 4]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from zettelgraph.llm import local
from zettelgraph.llm.factory import _openai_client
from zettelgraph.llm.structured import call_structured
from zettelgraph.llm.usage import UsageLog
from zettelgraph.prompts import extract_concepts
from zettelgraph.settings import Settings

QUOTES = [
    "Cada uno es hijo de sus obras.",
    "La libertad, Sancho, es uno de los más preciosos dones que a los hombres dieron los cielos.",
    "The universe is change; our life is what our thoughts make it.",
    "I went to the woods because I wished to live deliberately.",
    "Del poco dormir y del mucho leer se le secó el celebro, y vino a perder el juicio.",
]


def time_mode(mode: str, settings: Settings, calls: int) -> dict[str, object]:
    main = local.ensure_model_file(local.LOCAL_MODELS["1.5b"], settings.models_dir)
    draft = local.ensure_model_file(local.LOCAL_MODELS["0.5b"], settings.models_dir)
    server = local.LocalServer(
        main, threads=settings.local_threads, speculative=mode, draft_path=draft
    )
    try:
        llm = _openai_client(
            base_url=server.base_url, api_key="none", model=server.alias, settings=settings
        )
        seconds, tokens = [], []
        for index in range(calls + 1):  # the first call warms the prompt cache up
            usage = UsageLog()
            data = extract_concepts.ExtractConceptsInput(
                title="Notas",
                author=None,
                quotes=[extract_concepts.PromptQuote(id="q1", text=QUOTES[index % len(QUOTES)])],
            )
            started = time.perf_counter()
            call_structured(
                llm,
                name=extract_concepts.NAME,
                messages=extract_concepts.messages(data),
                response_model=extract_concepts.ExtractedConcepts,
                usage=usage,
                sampling=extract_concepts.SAMPLING,
            )
            if index:
                seconds.append(time.perf_counter() - started)
                tokens.append(int(usage.as_dict()[extract_concepts.NAME]["output_tokens"]))
    finally:
        server.close()
    return {
        "median_seconds": round(statistics.median(seconds), 2),
        "seconds": [round(s, 2) for s in seconds],
        "generated_tokens": tokens,
        "tokens_per_second": round(sum(tokens) / sum(seconds), 2),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=4)
    parser.add_argument("--modes", default=",".join(local.SPECULATIVE))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="zg-spec-") as home:
        settings = Settings(home=Path(home))
        results = {m: time_mode(m, settings, args.calls) for m in args.modes.split(",")}
    print(
        json.dumps(
            {
                "modes": results,
                "date": dt.date.today().isoformat(),
                "cpu_count": os.cpu_count(),
                "python": platform.python_version(),
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
