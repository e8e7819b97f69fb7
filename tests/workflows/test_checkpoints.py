"""ZETTELGRAPH_CHECKPOINTS: a SQLite file or a real PostgreSQL server keeps a paused workflow
across processes, and a URL that cannot work is a clear error naming the setting."""

from __future__ import annotations

import json
import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.services.checkpoints import CheckpointError, open_checkpointer, thread_heads
from zettelgraph.settings import Settings
from zettelgraph.store.falkordb_server import free_port


class Counter(TypedDict):
    steps: Annotated[list[str], operator.add]


def ask(state: Counter) -> Counter:
    answer = interrupt("continue?")
    return {"steps": [f"answer:{answer}"]}


def counter_graph(saver: Any) -> Any:
    builder = StateGraph(Counter)
    builder.add_node("start", lambda state: {"steps": ["start"]})
    builder.add_node("ask", ask)
    builder.add_edge(START, "start")
    builder.add_edge("start", "ask")
    builder.add_edge("ask", END)
    return builder.compile(checkpointer=saver)


@pytest.fixture(params=["sqlite", "postgres"])
def checkpoints_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'nested' / 'checkpoints.db'}"
    url: str = request.getfixturevalue("postgres_database_url")
    return url


def test_a_paused_thread_survives_reopening(checkpoints_url: str, tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", checkpoints=checkpoints_url)
    config = {"configurable": {"thread_id": "run-1"}}
    with open_checkpointer(settings) as saver:
        graph = counter_graph(saver)
        graph.invoke({"steps": []}, config)
        assert graph.get_state(config).next == ("ask",)

    # A new process (here: a new connection) finds the thread and resumes it.
    with open_checkpointer(settings) as saver:
        assert {item.config["configurable"]["thread_id"] for item in saver.list(None)} == {"run-1"}
        graph = counter_graph(saver)
        result = graph.invoke(Command(resume="yes"), config)
        assert result["steps"] == ["start", "answer:yes"]

    with open_checkpointer(settings) as saver:  # setup() again on existing tables is harmless
        final = counter_graph(saver).get_state(config)
        assert final.next == () and final.values["steps"] == ["start", "answer:yes"]


def test_thread_heads_name_every_thread_and_move_with_its_state(
    checkpoints_url: str, tmp_path: Path
) -> None:
    """Run listings read a run again only when its head moved: the head must move on every
    change a listing shows, an interrupt written on the newest checkpoint included."""
    settings = Settings(home=tmp_path / "home", checkpoints=checkpoints_url)
    first = {"configurable": {"thread_id": "run-1"}}
    with open_checkpointer(settings) as saver:
        assert thread_heads(saver) == {}
        graph = counter_graph(saver)
        graph.invoke({"steps": []}, first)
        paused = thread_heads(saver)
        assert paused is not None and set(paused) == {"run-1"}

        graph.invoke({"steps": []}, {"configurable": {"thread_id": "run-2"}})
        both = thread_heads(saver)
        assert both is not None and both["run-1"] == paused["run-1"]
        listed = {item.config["configurable"]["thread_id"] for item in saver.list(None)}
        assert set(both) == listed

        graph.invoke(Command(resume="yes"), first)
        done = thread_heads(saver)
        assert done is not None and done["run-1"] != paused["run-1"]
        assert done["run-2"] == both["run-2"]

        # A write on the newest checkpoint (as an interrupt or a fan-out's result is) moves
        # the head although no new checkpoint was made.
        head = saver.get_tuple({"configurable": {"thread_id": "run-2"}})
        assert head is not None
        saver.put_writes(head.config, [("steps", ["late"])], task_id="task-late")
        assert thread_heads(saver)["run-2"] != done["run-2"]  # type: ignore[index]


def test_postgres_scheme_alias(postgres_database_url: str, tmp_path: Path) -> None:
    url = postgres_database_url.replace("postgresql://", "postgres://", 1)
    with open_checkpointer(Settings(home=tmp_path, checkpoints=url)) as saver:
        assert list(saver.list(None)) == []


def test_default_is_a_sqlite_file_in_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with open_checkpointer(Settings(home=home)) as saver:
        counter_graph(saver).invoke({"steps": []}, {"configurable": {"thread_id": "t"}})
    assert (home / "checkpoints.db").is_file()


def test_unreachable_postgres_is_a_clear_error(tmp_path: Path) -> None:
    url = f"postgresql://zg:s3cret-pw@127.0.0.1:{free_port()}/zg"
    with (
        pytest.raises(CheckpointError) as caught,
        open_checkpointer(Settings(home=tmp_path, checkpoints=url)),
    ):
        pass
    message = str(caught.value)
    assert message.startswith("ZETTELGRAPH_CHECKPOINTS=postgresql://zg:********@127.0.0.1:")
    assert "cannot connect" in message and "refused" in message
    assert "s3cret-pw" not in message


def test_malformed_postgres_url_never_shows_the_password(tmp_path: Path) -> None:
    # libpq quotes a bad percent-escape back, password and all.
    url = "postgresql://zg:bad%zzsecret@127.0.0.1:5432/zg"
    with (
        pytest.raises(CheckpointError) as caught,
        open_checkpointer(Settings(home=tmp_path, checkpoints=url)),
    ):
        pass
    assert "ZETTELGRAPH_CHECKPOINTS" in str(caught.value)
    assert "zzsecret" not in str(caught.value)


def test_unknown_scheme_is_a_clear_error(tmp_path: Path) -> None:
    url = "redis://user:hidden@127.0.0.1:6379/0"
    with (
        pytest.raises(CheckpointError, match="scheme 'redis' is not supported") as caught,
        open_checkpointer(Settings(home=tmp_path, checkpoints=url)),
    ):
        pass
    assert "hidden" not in str(caught.value) and "postgresql://" in str(caught.value)


def test_cli_reports_a_bad_checkpoint_url_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "ZETTELGRAPH_CHECKPOINTS", f"postgresql://zg:s3cret-pw@127.0.0.1:{free_port()}/zg"
    )
    result = CliRunner().invoke(
        app, ["--home", str(tmp_path / "home"), "--llm", "fake", "--embeddings", "hash", "runs"]
    )
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "ZETTELGRAPH_CHECKPOINTS=postgresql://zg:********@" in result.output
    assert "s3cret-pw" not in result.output


def test_runs_are_listed_from_postgres(
    postgres_database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZETTELGRAPH_CHECKPOINTS", postgres_database_url)
    home = tmp_path / "home"
    runner = CliRunner()
    args = ["--home", str(home), "--llm", "fake", "--embeddings", "hash"]
    walden = Path(__file__).resolve().parents[2] / "examples" / "walden.md"
    started = runner.invoke(app, [*args, "run", str(walden), "--json"])
    assert started.exit_code == 0, started.output
    [run] = json.loads(started.stdout)["runs"]
    assert not (home / "checkpoints.db").exists()  # the run's thread lives in Postgres
    listed = json.loads(runner.invoke(app, [*args, "runs", "--json"]).stdout)
    assert [(r["run_id"], r["status"]) for r in listed] == [(run["run_id"], "awaiting_review")]


def test_processes_opening_a_new_postgres_database_at_once_all_set_it_up(
    postgres_database_url: str, tmp_path: Path
) -> None:
    """Two machines' first commands on a new checkpoint database: each sets up the tables,
    none fails on another's migration (they took turns on PostgreSQL's advisory lock)."""
    import threading

    openers = 6
    gate = threading.Barrier(openers)
    failures: list[Exception] = []
    settings = Settings(home=tmp_path, checkpoints=postgres_database_url)

    def open_once() -> None:
        gate.wait()
        try:
            with open_checkpointer(settings):
                pass
        except CheckpointError as exc:
            failures.append(exc)

    threads = [threading.Thread(target=open_once) for _ in range(openers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
