"""The objects that are slow to build are built once per process, not once per run or per
Services: the embedder's model (USE took 2-5 s to load), the language detector (lingua's
models, 3 s on first use), the stemmers, and a runs API's compiled graph. A benchmark, a test
session, the web app and the MCP server open Services many times in one process."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import Stemmer
from harness import QUOTES, Harness

from zettelgraph.llm import embeddings
from zettelgraph.services import extraction_runs
from zettelgraph.text import language, stemming


def counted(built: Counter[str], name: str, build: Callable[..., Any]) -> Callable[..., Any]:
    def count(*args: Any, **kwargs: Any) -> Any:
        built[name] += 1
        return build(*args, **kwargs)

    return count


def test_the_expensive_objects_are_built_once_per_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: Counter[str] = Counter()
    # As in a fresh process: nothing built yet.
    embeddings.shared_embedder.cache_clear()
    language.detector_for.cache_clear()
    stemming._stemmer.cache_clear()
    monkeypatch.setattr(
        embeddings, "build_embedder", counted(built, "embedder", embeddings.build_embedder)
    )
    build_detector = language.LinguaDetector._build
    monkeypatch.setattr(
        language.LinguaDetector,
        "_build",
        lambda self: counted(built, "detector", build_detector)(self),
    )
    monkeypatch.setattr(Stemmer, "Stemmer", counted(built, "stemmer", Stemmer.Stemmer))
    monkeypatch.setattr(
        extraction_runs,
        "build_concept_extraction_graph",
        counted(built, "graph", extraction_runs.build_concept_extraction_graph),
    )

    harnesses = [Harness(tmp_path / "first"), Harness(tmp_path / "second")]
    try:
        # Two runs on the first runs API, one on the second.
        for h, title in [(harnesses[0], "Uno"), (harnesses[0], "Dos"), (harnesses[1], "Uno")]:
            view = h.runs.start(h.add_content(title, QUOTES))
            assert view.status == "awaiting_review"
    finally:
        for h in harnesses:
            h.close()
    # Three runs over two Services: one model, one detector, one stemmer per language (the
    # quotes are Spanish), and one compiled graph per runs API, reused by its runs.
    assert built == {"embedder": 1, "detector": 1, "stemmer": 1, "graph": 2}
