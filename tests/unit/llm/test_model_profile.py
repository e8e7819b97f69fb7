"""The model-size policy: what the small local models are asked to do differs from the larger
models, and every setting the reader gives wins over the model's default."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from zettelgraph.llm.factory import ChatModels
from zettelgraph.llm.profile import LOCAL_TIMEOUT, ModelProfile
from zettelgraph.settings import Settings

SMALL = ("local", "local:0.5b")
LARGE = ("openai:gpt-4.1-mini", "ollama:qwen2.5:7b", "fake", "")


def profile(tmp_path: Path, spec: str, **settings: Any) -> ModelProfile:
    return ModelProfile.of(Settings(home=tmp_path, **settings), spec)


@pytest.mark.parametrize("spec", SMALL)
def test_the_small_local_models_are_driven_gently_and_asked_for_less(
    tmp_path: Path, spec: str
) -> None:
    model = profile(tmp_path, spec)
    assert (model.spec, model.small) == (spec, True)
    assert model.compact and model.task == "titles"
    assert model.covers_quotes and model.only_confirmed_relations
    assert not model.writes_book_summary and not model.writes_author_bio
    assert not model.critique_enabled and model.refine_rounds == 1
    assert (model.batch_size, model.concurrency) == (1, 1)
    # ~10 tokens a second on two cores: a long answer takes minutes, and a timed-out request
    # is not tried again (it would take as long).
    assert model.request_timeout == LOCAL_TIMEOUT == 600.0
    assert not model.retries_on_timeout


@pytest.mark.parametrize("spec", LARGE)
def test_the_larger_models_get_the_full_design(tmp_path: Path, spec: str) -> None:
    model = profile(tmp_path, spec)
    assert (model.spec, model.small) == (spec, False)
    assert not model.compact and model.task == "paraphrase"
    assert not model.covers_quotes and not model.only_confirmed_relations
    assert model.writes_book_summary and model.writes_author_bio
    assert model.critique_enabled and model.refine_rounds == 3
    assert (model.batch_size, model.concurrency) == (40, 16)
    assert model.request_timeout == 120.0
    assert model.retries_on_timeout


# Each setting the reader may give, and the profile's field it decides.
SWITCHES = [
    ("compact_answers", "compact"),
    ("cover_quotes", "covers_quotes"),
    ("book_summary", "writes_book_summary"),
    ("author_bio", "writes_author_bio"),
    ("confirmed_relations", "only_confirmed_relations"),
    ("self_critique", "critique_enabled"),
]
AMOUNTS = [
    ("extraction_batch_size", 7, "batch_size"),
    ("max_concurrency", 3, "concurrency"),
    ("critique_max_iterations", 2, "refine_rounds"),
    ("llm_timeout", 30.0, "request_timeout"),
]
OVERRIDES = [(setting, on, field) for setting, field in SWITCHES for on in (True, False)]


@pytest.mark.parametrize(("setting", "value", "field"), OVERRIDES + AMOUNTS)
@pytest.mark.parametrize("spec", ["local", "openai:gpt-4.1-mini"])
def test_a_setting_the_reader_gives_wins_over_the_models_default(
    tmp_path: Path, spec: str, setting: str, value: object, field: str
) -> None:
    assert getattr(profile(tmp_path, spec, **{setting: value}), field) == value


def test_an_override_from_the_environment_wins_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZETTELGRAPH_CRITIQUE_MAX_ITERATIONS", "2")
    monkeypatch.setenv("ZETTELGRAPH_COVER_QUOTES", "false")
    model = profile(tmp_path, "local")
    assert (model.refine_rounds, model.covers_quotes) == (2, False)


def test_the_task_is_the_small_model_task_only_on_compact_answers(tmp_path: Path) -> None:
    assert profile(tmp_path, "local", small_model_task="gloss").task == "gloss"
    forced = profile(
        tmp_path, "openai:gpt-4.1-mini", compact_answers=True, small_model_task="meaning"
    )
    assert forced.task == "meaning"
    assert profile(tmp_path, "local", compact_answers=False).task == "paraphrase"


def test_web_search_lets_a_small_model_write_author_biographies(tmp_path: Path) -> None:
    # A biography from search results cites them; from a small model's memory nothing can.
    assert profile(tmp_path, "local", author_search="duckduckgo").writes_author_bio
    assert not profile(tmp_path, "local", author_search="none").writes_author_bio


def test_the_models_of_a_run_carry_their_profiles(tmp_path: Path) -> None:
    models = ChatModels(Settings(home=tmp_path, llm="fake", llm_fast="local:0.5b"))
    assert (models.main_profile.spec, models.main_profile.small) == ("fake", False)
    assert (models.fast_profile.spec, models.fast_profile.small) == ("local:0.5b", True)
    assert models.sizing_profile == models.main_profile
    assert models.profile("fake") is models.main_profile  # resolved once
