"""The one id resolver (services/ids.py) on a real SQLite store: a whole id, a unique prefix
of at least four characters (a kind prefix such as `run-` may be left out), ambiguous
prefixes refused with the candidates, unknown and too short ones with what to do."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from zettelgraph.context import open_services
from zettelgraph.models import ChangeSet, Content, NodeLabel
from zettelgraph.services.ids import (
    MIN_PREFIX,
    AmbiguousIdError,
    IdKind,
    UnknownIdError,
    resolve_id,
    resolve_node_id,
)
from zettelgraph.settings import Settings
from zettelgraph.store.base import GraphStore

IDS = [
    "abcd1111-0000-5000-8000-000000000001",
    "abcd2222-0000-5000-8000-000000000002",
    "abce3333-0000-5000-8000-000000000003",
    "ffff4444-0000-5000-8000-000000000004",
]
RUNS = IdKind("run", "zettelgraph runs", ("run-", "graph-"))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GraphStore]:
    services = open_services(Settings(home=tmp_path, llm="fake", embeddings="hash"))
    services.store.apply(
        ChangeSet(contents=[Content(id=i, title=f"Libro {n}") for n, i in enumerate(IDS)])
    )
    try:
        yield services.store
    finally:
        services.close()


def test_a_whole_id_or_a_unique_prefix_names_the_node(store: GraphStore) -> None:
    assert resolve_node_id(store, NodeLabel.CONTENT, IDS[0]) == IDS[0]
    assert resolve_node_id(store, NodeLabel.CONTENT, "abcd1") == IDS[0]
    assert resolve_node_id(store, NodeLabel.CONTENT, " abce ") == IDS[2]
    assert resolve_node_id(store, NodeLabel.CONTENT, "ffff4444-0000") == IDS[3]


def test_an_ambiguous_prefix_is_refused_with_its_candidates(store: GraphStore) -> None:
    with pytest.raises(AmbiguousIdError) as refused:
        resolve_node_id(store, NodeLabel.CONTENT, "abcd")
    assert refused.value.candidates == IDS[:2]
    assert IDS[0] in str(refused.value) and IDS[1] in str(refused.value)
    assert "give more characters" in str(refused.value)


def test_unknown_and_too_short_prefixes_say_what_to_do(store: GraphStore) -> None:
    with pytest.raises(UnknownIdError, match=r"no content with id '0000'.*`zettelgraph contents`"):
        resolve_node_id(store, NodeLabel.CONTENT, "0000")
    with pytest.raises(UnknownIdError, match=f"at least its first {MIN_PREFIX} characters"):
        resolve_node_id(store, NodeLabel.CONTENT, "abc")
    with pytest.raises(UnknownIdError, match="give a concept id"):
        resolve_node_id(store, NodeLabel.CONCEPT, "  ")
    # A content's id does not name a concept.
    with pytest.raises(UnknownIdError, match="no concept"):
        resolve_node_id(store, NodeLabel.CONCEPT, IDS[0])


def test_a_kind_prefix_may_be_left_out_and_does_not_count() -> None:
    known = ["run-eb06aa11bb22", "run-eb07cc33dd44", "graph-eb06ee55ff66"]
    assert resolve_id("run-eb06", RUNS, known) == known[0]
    assert resolve_id("graph-eb06", RUNS, known) == known[2]
    assert resolve_id("eb07", RUNS, known) == known[1]
    with pytest.raises(AmbiguousIdError) as refused:
        resolve_id("eb06", RUNS, known)  # a concept run and a graph run start so
    assert refused.value.candidates == ["graph-eb06ee55ff66", "run-eb06aa11bb22"]
    # Four characters after the kind prefix: `run-eb0` is three.
    with pytest.raises(UnknownIdError, match="at least its first 4"):
        resolve_id("run-eb0", RUNS, known)
    with pytest.raises(UnknownIdError, match="no run with id 'run-eb08'"):
        resolve_id("run-eb08", RUNS, known)
