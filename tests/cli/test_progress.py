"""Progress of extraction runs on stderr: the step renderer in both modes, and the real CLI on the
fake LLM with stderr piped (the case where a user used to see nothing for minutes)."""

from __future__ import annotations

import json
import re
import threading
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.cli.progress import (
    PHASE_OF_NODE,
    FinishedStep,
    announce,
    phase_of,
    step_line,
    step_progress,
)

REPO = Path(__file__).resolve().parents[2]
# The time is matched loosely on purpose: tests never depend on how long a step took.
STEP_LINE = re.compile(
    r"^\[ *\d+\.\ds\] (?P<phase>[a-z ]+): (?P<node>\w+) done \((?P<count>\d+)\)$"
)


def console(*, terminal: bool) -> Console:
    return Console(file=StringIO(), force_terminal=terminal, width=120)


def output(of: Console) -> str:
    file = of.file
    assert isinstance(file, StringIO)
    return file.getvalue()


def plain_lines(nodes: list[str]) -> list[str]:
    piped = console(terminal=False)
    with step_progress(piped) as step:
        for node in nodes:
            step(node)
    return output(piped).splitlines()


def test_step_line_format() -> None:
    line = step_line(FinishedStep("extract_batch", "extracting", 2, 42.14))
    assert line == "[  42.1s] extracting: extract_batch done (2)"


def test_plain_mode_writes_one_line_per_step_with_phase_and_count() -> None:
    nodes = [
        "check_content_processed",
        "load_content_quotes",
        "extract_batch",
        "extract_batch",
        "extract_batch",
        "merge_candidates",
        "detect_duplicate",
        "collect_duplicates",
        "create_relations",
        "self_critique",
        "refine",
        "self_critique",
        "present_for_review",
        "commit",
        "write_vault",
    ]
    lines = plain_lines(nodes)
    assert len(lines) == len(nodes)
    parsed = [STEP_LINE.match(line) for line in lines]
    assert all(parsed), lines
    got = [(m["phase"], m["node"], int(m["count"])) for m in parsed if m]
    assert got == [
        ("reading", "check_content_processed", 1),
        ("reading", "load_content_quotes", 1),
        ("extracting", "extract_batch", 1),
        ("extracting", "extract_batch", 2),
        ("extracting", "extract_batch", 3),
        ("extracting", "merge_candidates", 1),
        ("duplicates", "detect_duplicate", 1),
        ("duplicates", "collect_duplicates", 1),
        ("relations", "create_relations", 1),
        ("critique", "self_critique", 1),
        ("critique", "refine", 1),
        ("critique", "self_critique", 2),
        ("review", "present_for_review", 1),
        ("writing", "commit", 1),
        ("writing", "write_vault", 1),
    ]


def test_plain_mode_has_no_ansi_codes() -> None:
    text = "\n".join(plain_lines(["check_content_processed", "extract_batch"]))
    assert "\x1b" not in text


def test_unknown_node_is_a_phase_of_its_own() -> None:
    assert "summarise_chapter" not in PHASE_OF_NODE
    assert phase_of("summarise_chapter") == "summarise chapter"
    [line] = plain_lines(["summarise_chapter"])
    assert STEP_LINE.match(line)
    assert line.endswith("] summarise chapter: summarise_chapter done (1)")


def test_proposal_checks_have_their_phase() -> None:
    names = ("check_concepts", "repair_concept", "collect_repairs", "check_relations")
    assert {phase_of(name) for name in names} == {"checks"}


def test_terminal_mode_draws_a_row_per_phase_not_lines() -> None:
    terminal = console(terminal=True)
    with step_progress(terminal) as step:
        for node in ("load_content_quotes", "extract_batch", "extract_batch", "summarise_chapter"):
            step(node)
    shown = output(terminal)
    for phase in ("reading", "extracting", "summarise chapter"):
        assert phase in shown
    assert not STEP_LINE.search(shown)


def test_terminal_mode_marks_the_phase_a_failure_stopped() -> None:
    terminal = console(terminal=True)
    with pytest.raises(RuntimeError), step_progress(terminal) as step:
        step("extract_batch")
        raise RuntimeError("model down")
    assert "extracting (stopped)" in output(terminal)


def test_announce_in_both_modes() -> None:
    piped, terminal = console(terminal=False), console(terminal=True)
    announce(piped, "extracting 2/3: Meditations")
    announce(terminal, "extracting 2/3: Meditations")
    assert output(piped) == "extracting 2/3: Meditations\n"
    assert "extracting 2/3: Meditations" in output(terminal)


@pytest.fixture
def fake_models(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake LLM and the hash embedder, and no variable telling Rich stderr is a terminal."""
    monkeypatch.setenv("ZETTELGRAPH_LLM", "fake")
    monkeypatch.setenv("ZETTELGRAPH_EMBEDDINGS", "hash")
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    return isolated_env


def step_lines(stderr: str) -> list[tuple[str, str, int]]:
    steps = []
    for line in stderr.splitlines():
        if " done (" in line:
            match = STEP_LINE.match(line)
            assert match, line
            steps.append((match["phase"], match["node"], int(match["count"])))
    return steps


def test_extract_and_approve_log_each_step_when_stderr_is_piped(fake_models: Path) -> None:
    runner = CliRunner()  # its stderr is not a terminal, as with `2> log` or CI
    ingested = runner.invoke(app, ["ingest", str(REPO / "examples" / "meditations.md"), "--json"])
    content_id = json.loads(ingested.stdout)["contents"][0]["id"]

    started = runner.invoke(app, ["extract", content_id, "--json"])
    assert started.exit_code == 0, started.output
    assert "\x1b" not in started.stderr
    steps = step_lines(started.stderr)
    assert steps[:2] == [
        ("reading", "check_content_processed", 1),
        ("reading", "load_content_quotes", 1),
    ]
    assert ("extracting", "extract_batch", 1) in steps
    assert ("critique", "self_critique", 1) in steps
    assert not any(phase == "writing" for phase, _, _ in steps)  # it waits for the review

    run_id = json.loads(started.stdout)["run_id"]
    approved = runner.invoke(app, ["review", run_id, "--approve", "--json"])
    assert approved.exit_code == 0, approved.output
    steps = step_lines(approved.stderr)
    assert steps[0] == ("review", "present_for_review", 1)
    assert steps[-2:] == [("writing", "commit", 1), ("writing", "write_vault", 1)]


def test_run_says_which_book_it_is_extracting(fake_models: Path) -> None:
    books = [str(REPO / "examples" / name) for name in ("walden.md", "meditations.md")]
    result = CliRunner().invoke(app, ["run", *books, "--json"])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    headings = [i for i, line in enumerate(lines) if re.match(r"extracting \d/\d: ", line)]
    assert [lines[i] for i in headings] == [
        "extracting 1/2: Walden; or, Life in the Woods",
        "extracting 2/2: Meditations",
    ]
    # Each book's steps follow its heading, counted from 1 again.
    for start in headings:
        first_step = next(line for line in lines[start + 1 :] if " done (" in line)
        assert first_step.endswith("reading: check_content_processed done (1)")


def test_a_long_step_gets_a_still_working_line_every_heartbeat() -> None:
    from zettelgraph.cli.progress import PlainSteps, StepCounter

    now = [0.0]
    counter = StepCounter(clock=lambda: now[0])
    file = StringIO()
    with PlainSteps(file, counter, heartbeat=10.0).running() as step:
        step("present_for_review")
        now[0] = 25.0  # a model call of 25 s and counting, with no step finished
        for _ in range(50):  # the heartbeat thread looks once a second
            if "still working" in file.getvalue():
                break
            threading.Event().wait(0.1)
    lines = file.getvalue().splitlines()
    assert STEP_LINE.match(lines[0])
    assert any(
        re.match(r"^\[ *25\.0s\] still working after present_for_review$", line)
        for line in lines[1:]
    ), lines
