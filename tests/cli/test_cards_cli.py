"""`cards ...` and `study` end to end: a graph committed by `run` + `review --approve` on the
fake LLM, a real SQLite store, scripted answers through Typer's runner, a fixed clock.

The cards of most tests are written straight into the store (the committed concepts and their
quotes, as generation would cite them), so list, review, study and export are tested apart
from what the generator proposes; `test_generate_then_review_study_and_export` runs the whole
chain from `cards generate`.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fsrs import Card, Rating, Scheduler
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.context import open_services
from zettelgraph.models import (
    ChangeSet,
    Concept,
    Difficulty,
    ItemType,
    LearningItem,
    Quote,
    learning_item_id,
)
from zettelgraph.packs.relations import SUPPORTS
from zettelgraph.settings import Settings
from zettelgraph.store import GraphStore

REPO = Path(__file__).resolve().parents[2]
WALDEN = "Walden; or, Life in the Woods"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def cli(home: Path, *args: str, input: str | None = None) -> Any:
    return CliRunner().invoke(
        app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args], input=input
    )


def ok(result: Any) -> Any:
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home where the example notes are extracted and approved (built once, copied per
    test): a concept from each book."""
    home = tmp_path_factory.mktemp("committed") / "home"
    with pytest.MonkeyPatch.context() as env:
        for name in [n for n in os.environ if n.startswith("ZETTELGRAPH_")]:
            env.delenv(name)
        runs = json.loads(ok(cli(home, "run", str(REPO / "examples"), "--json")).stdout)
        for run in runs["runs"]:
            ok(cli(home, "review", run["run_id"], "--approve", "--json"))
    return home


@pytest.fixture
def home(committed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(committed, copy)
    # Due dates without FSRS's random spread, so they can be compared with the package's own.
    monkeypatch.setenv("ZETTELGRAPH_STUDY_FUZZ", "false")
    return copy


class Clock:
    """A fixed clock that moves `step` on every reading: a reader who takes a while."""

    def __init__(self, start: datetime, step: timedelta = timedelta(seconds=7)) -> None:
        self.now, self.step = start, step

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    chosen = Clock(T0)
    monkeypatch.setattr("zettelgraph.cli.common.now", chosen)
    return chosen


@contextmanager
def opened(home: Path) -> Iterator[GraphStore]:
    """The home's store, as the CLI opens it."""
    services = open_services(Settings(home=home, llm="fake", embeddings="hash"))
    try:
        yield services.store
    finally:
        services.close()


def seed_cards(home: Path) -> dict[str, LearningItem]:
    """One card of each type from the committed concepts and the quotes they cite."""
    with opened(home) as store:
        # The Walden concept first; the other books' concepts are its MCQ's distractors.
        concepts = sorted(store.list_concepts(), key=lambda c: book_of(store, c) != WALDEN)
        first, second, third = concepts[:3]
        quote = quote_of(store, first)
        word = max(quote.text.rstrip(".").split(), key=len)
        cards = {
            "flashcard": item(
                ItemType.FLASHCARD,
                [first],
                [quote],
                front=f"¿Qué dice «{first.title}»?",
                back=first.summary_short or first.concept,
            ),
            "cloze": item(
                ItemType.CLOZE,
                [first],
                [quote],
                front=quote.text.replace(word, "[...]", 1),
                back=word,
                cloze=quote.text.replace(word, "{{c1::" + word + "}}", 1),
            ),
            "mcq": item(
                ItemType.MCQ,
                [first, second, third],
                [quote],
                front="¿Qué idea recoge la cita?",
                back=first.title,
                options=[first.title, second.title, third.title],
                correct=0,
                difficulty=Difficulty.MEDIUM,
            ),
            "relation": item(
                ItemType.RELATION,
                [first, second],
                [quote, quote_of(store, second)],
                front=f"¿Cómo se relaciona «{first.title}» con «{second.title}»?",
                back="Una apoya a la otra.",
                difficulty=Difficulty.MEDIUM,
            ),
        }
        store.apply(ChangeSet(learning_items=list(cards.values())))
    return cards


def quote_of(store: GraphStore, concept: Concept) -> Quote:
    [relation, *_] = store.relations(concept.id, relation_type=SUPPORTS, direction="in")
    [quote] = store.get_quotes([relation.source_id])
    return quote


def book_of(store: GraphStore, concept: Concept) -> str:
    content = store.get_content(quote_of(store, concept).content_id)
    return content.title if content else ""


def item(
    item_type: ItemType, concepts: list[Concept], quotes: list[Quote], **fields: Any
) -> LearningItem:
    ids = [c.id for c in concepts]
    return LearningItem(
        id=learning_item_id(str(item_type), ids, fields["front"]),
        item_type=item_type,
        concept_ids=ids,
        quote_ids=[q.id for q in quotes],
        content_ids=[quotes[0].content_id],
        explanation="Lo dice la cita.",
        warnings=["generated by the test"],
        **fields,
    )


def flat(text: str) -> str:
    """Text with Rich's line wrapping undone."""
    return " ".join(text.split())


def listed(home: Path, *flags: str) -> dict[str, dict[str, Any]]:
    rows = json.loads(ok(cli(home, "cards", "list", *flags, "--json")).stdout)
    return {row["item_type"]: row for row in rows}


def test_list_review_approve_drop_edit_round_trip(home: Path) -> None:
    cards = seed_cards(home)
    rows = listed(home)
    assert set(rows) == {"flashcard", "cloze", "mcq", "relation"}
    assert {row["status"] for row in rows.values()} == {"proposed"}
    assert rows["mcq"]["quotes"][0]["content"] == WALDEN
    assert [c["id"] for c in rows["relation"]["concepts"]] == cards["relation"].concept_ids

    table = ok(cli(home, "cards", "list")).stdout
    assert "4 cards" in table and cards["cloze"].id[:8] in table and "proposed" in table

    shown = flat(ok(cli(home, "cards", "review")).stdout)
    assert "4 proposed cards" in shown
    mcq = cards["mcq"]
    assert f"✓ 1. {mcq.options[0]}" in shown  # the right option is marked
    assert "[...]" in shown and "Lo dice la cita." in shown and WALDEN in shown
    assert "warning generated by the test" in shown
    assert "zettelgraph cards approve --all" in shown
    assert len(json.loads(ok(cli(home, "cards", "review", "--json")).stdout)) == 4

    approved = ok(cli(home, "cards", "approve", mcq.id[:8]))
    assert "approved 1 card" in approved.stdout
    ok(cli(home, "cards", "drop", cards["relation"].id[:10]))
    rest = json.loads(ok(cli(home, "cards", "approve", "--all", "--json")).stdout)
    assert sorted(row["item_type"] for row in rest) == ["cloze", "flashcard"]
    assert set(listed(home, "--status", "approved")) == {"flashcard", "cloze", "mcq"}
    assert set(listed(home, "--status", "dropped")) == {"relation"}
    assert set(listed(home, "--type", "mcq")) == {"mcq"}
    concept = cards["relation"].concept_ids[1]
    assert set(listed(home, "--concept", concept[:8])) == {"mcq", "relation"}
    assert "no card waits for review" in ok(cli(home, "cards", "review")).stdout

    edited = json.loads(
        ok(
            cli(home, "cards", "edit", cards["flashcard"].id[:8], "--front", "¿Y bien?", "--json")
        ).stdout
    )
    assert edited["front"] == "¿Y bien?" and edited["status"] == "approved"
    assert edited["provenance"]["decisions"][-1]["edited"] == ["front"]
    # A cloze's answer is other words of its quote: they are hidden instead.
    word = cards["cloze"].back
    other = next(w for w in cards["cloze"].cloze.split() if w.isalpha() and w != word)
    hidden = json.loads(
        ok(cli(home, "cards", "edit", cards["cloze"].id[:8], "--back", other, "--json")).stdout
    )
    assert hidden["back"] == other and "{{c1::" + other + "}}" in hidden["cloze"]
    assert word in hidden["front"] and "[...]" in hidden["front"]
    outside = cli(home, "cards", "edit", cards["cloze"].id[:8], "--back", "zzz")
    assert outside.exit_code == 1 and "not in the card's quote" in outside.stderr


def test_approving_again_writes_the_card_files_a_killed_approval_left_out(home: Path) -> None:
    seed_cards(home)
    ok(cli(home, "cards", "approve", "--all"))
    folder = home / "vault" / "Cards"
    written = {path.name: path.read_text(encoding="utf-8") for path in folder.iterdir()}
    assert written
    for path in folder.iterdir():  # as a kill after the store's write and before the files
        path.unlink()
    again = ok(cli(home, "cards", "approve", "--all"))
    assert "approved 0 cards" in again.stdout or "no card" in again.stdout, again.stdout
    assert {path.name: path.read_text(encoding="utf-8") for path in folder.iterdir()} == written


def test_card_commands_refuse_clearly(home: Path) -> None:
    cards = seed_cards(home)
    mcq = cli(home, "cards", "edit", cards["mcq"].id[:8], "--back", "Otra")
    assert mcq.exit_code == 1 and "multiple-choice" in mcq.stderr
    nothing = cli(home, "cards", "edit", cards["mcq"].id[:8])
    assert nothing.exit_code == 1 and "--front" in nothing.stderr
    unknown = cli(home, "cards", "approve", "ffffffff")
    assert unknown.exit_code == 1 and "zettelgraph cards list" in unknown.stderr
    assert cli(home, "cards", "approve").exit_code == 2
    assert cli(home, "cards", "approve", cards["mcq"].id, "--all").exit_code == 2
    assert cli(home, "cards", "approve", cards["mcq"].id, "--content", "x").exit_code == 2
    assert cli(home, "cards", "list", "--status", "maybe").exit_code == 2
    assert cli(home, "cards", "list", "--type", "essay").exit_code == 2
    # Nothing of the refused commands was written.
    assert {row["status"] for row in listed(home).values()} == {"proposed"}


def replay(ratings_at: list[tuple[int, datetime]], card_id: int) -> Card:
    """The fsrs package's own state after these ratings at these moments (no fuzz)."""
    scheduler = Scheduler(enable_fuzzing=False, desired_retention=0.9)
    card = Card(card_id=card_id, due=ratings_at[0][1])
    for rating, when in ratings_at:
        card, _ = scheduler.review_card(card, Rating(rating), review_datetime=when)
    return card


def history(home: Path, card_id: str) -> tuple[LearningItem, list[tuple[int, datetime, int]]]:
    with opened(home) as store:
        [stored] = store.get_learning_items([card_id])
        logs = sorted(store.review_logs(card_id), key=lambda log: log.reviewed_at)
    return stored, [(log.rating, log.reviewed_at, log.duration_ms or 0) for log in logs]


def test_study_session_schedules_as_fsrs_does(home: Path, clock: Clock) -> None:
    cards = seed_cards(home)
    cloze, mcq = cards["cloze"], cards["mcq"]
    ok(cli(home, "cards", "approve", cloze.id, mcq.id))
    # The cloze (easy) first: forgotten, so it comes back after the multiple choice (picked
    # right, good); then both again through FSRS's learning steps (1m, 10m).
    script = ["", "1", "1", "3", "", "3", "", "3", "", "4"]
    session = ok(cli(home, "study", input="\n".join(script) + "\n"))
    out = flat(session.stdout)

    assert "2 cards: 0 due, 2 new" in out
    assert flat(cloze.front) in out and "[...]" in out
    assert f"1. {mcq.options[0]}" in out and "you chose 1: right" in out
    assert "1 again 1m 2 hard 6m 3 good 10m 4 easy 8d" in out  # a new card's buttons
    assert WALDEN in out and "Lo dice la cita." in out
    assert "studied 2 cards (5 ratings: again 1, good 3, easy 1)" in out
    assert "next card due in" in out

    for card, ratings in ((cloze, [1, 3, 4]), (mcq, [3, 3])):
        stored, logs = history(home, card.id)
        assert [rating for rating, _, _ in logs] == ratings
        expected = replay([(r, when) for r, when, _ in logs], stored.schedule["card_id"])
        assert stored.schedule == dict(expected.to_dict())
        assert stored.due == expected.due
        # Time from the front shown to the rating, on the clock's 7-second readings.
        assert all(ms > 0 and ms % 7000 == 0 for _, _, ms in logs)

    # Nothing is due until the learned cards come back; the next one is named.
    clock.now = T0 + timedelta(minutes=30)
    later = ok(cli(home, "study")).stdout
    assert "nothing to study now" in later and "next card due in" in later

    # A month on, both are due: one recalled, one forgotten (and relearned in the session).
    clock.now = T0 + timedelta(days=30)
    ok(cli(home, "study", input="\n3\n\n1\n\n3\n"))
    stats = json.loads(ok(cli(home, "cards", "stats", "--json")).stdout)
    assert (stats["retention"], stats["retention_reviews"]) == (0.5, 2)
    assert stats["approved"] == 2 and stats["reviews_today"] == 3
    assert [book["title"] for book in stats["books"]] == [WALDEN]
    with pytest.MonkeyPatch.context() as wide:
        wide.setenv("COLUMNS", "200")  # the table on one line per book
        table = ok(cli(home, "cards", "stats")).stdout
    assert WALDEN in table and "50% of 2" in table and "total" in table


def test_study_stops_cleanly_at_any_prompt(home: Path, clock: Clock) -> None:
    cards = seed_cards(home)
    ok(cli(home, "cards", "approve", "--all"))
    # q at the second card's front: the first card's rating is kept, nothing else written.
    quit_early = ok(cli(home, "study", input="\n3\nq\n"))
    assert "session stopped" in quit_early.stdout
    assert "studied 1 card (1 rating: good 1)" in quit_early.stdout
    rated = [c for c in cards.values() if history(home, c.id)[1]]
    assert len(rated) == 1
    # The end of input (as Ctrl-C) at the rating prompt: that card is not rated.
    ended = ok(cli(home, "study", "--limit", "1", input="\n"))
    assert "session stopped" in ended.stdout
    assert sum(len(history(home, c.id)[1]) for c in cards.values()) == 1
    # A wrong answer at the rating prompt is asked again, not taken for one.
    again = ok(cli(home, "study", "--limit", "1", input="\nbien\n2\n"))
    assert "use 1-4 or again, hard, good, easy" in again.stdout
    assert "hard 1" in again.stdout


def test_ctrl_c_while_a_rating_is_written_waits_for_it() -> None:
    from zettelgraph.cli.study import _uninterrupted

    written = []
    # As in a terminal, whatever started the suite (a background job ignores SIGINT); what
    # was found is put back after.
    found = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt), _uninterrupted():
            signal.raise_signal(signal.SIGINT)
            written.append("rating")  # the write and its count finish first
        assert written == ["rating"]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, found)


def test_study_with_nothing_to_study_says_what_to_do(home: Path, clock: Clock) -> None:
    assert "cards generate" in ok(cli(home, "study")).stdout
    cards = seed_cards(home)
    assert "4 proposed cards wait" in ok(cli(home, "study")).stdout
    ok(cli(home, "cards", "approve", cards["flashcard"].id))
    assert "today's new cards are done" in ok(cli(home, "study", "--new", "0")).stdout
    content_id = cards["flashcard"].content_ids[0]
    one = ok(cli(home, "study", "--content", content_id[:8], input="\n4\n")).stdout
    assert "studied 1 card (1 rating: easy 1)" in one


def test_export_apkg_and_csv(home: Path, tmp_path: Path) -> None:
    cards = seed_cards(home)
    none = cli(home, "cards", "export", str(tmp_path / "deck.apkg"))
    assert none.exit_code == 1 and "approve" in none.stderr
    ok(cli(home, "cards", "approve", "--all"))

    deck = tmp_path / "deck.apkg"
    written = ok(cli(home, "cards", "export", str(deck))).stdout
    assert "4 approved cards" in written and WALDEN in written
    with zipfile.ZipFile(deck) as package:
        assert "collection.anki2" in package.namelist()
    data = json.loads(ok(cli(home, "cards", "export", str(deck), "--json")).stdout)
    assert data["notes"] == 4 and data["per_book"] == {WALDEN: 4}

    table = tmp_path / "cards.csv"
    content = cards["mcq"].content_ids[0]
    ok(cli(home, "cards", "export", str(table), "--content", content[:8]))
    with table.open(encoding="utf-8", newline="") as handle:
        assert len(list(csv.DictReader(handle))) == 4
    forced = tmp_path / "cards.txt"
    ok(cli(home, "cards", "export", str(forced), "--csv"))
    assert forced.read_text(encoding="utf-8").startswith("id,")
    assert cli(home, "cards", "export", str(tmp_path / "deck.txt")).exit_code == 2


def test_generate_then_review_study_and_export(home: Path, clock: Clock, tmp_path: Path) -> None:
    generated = ok(cli(home, "cards", "generate", "--json"))
    report = json.loads(generated.stdout)
    proposed = report["proposed"]
    assert proposed and all(card["status"] == "proposed" for card in proposed)
    assert sum(report["per_type"].values()) == len(proposed)
    assert "select_targets done" in generated.stderr  # progress, one line per step

    shown = flat(ok(cli(home, "cards", "review")).stdout)
    assert f"{len(proposed)} proposed cards" in shown
    assert all(card["id"][:8] in shown for card in proposed)
    ok(cli(home, "cards", "approve", "--all"))

    # Easy on every card: each leaves the learning steps at once, so none comes back today.
    session = flat(ok(cli(home, "study", input="\n4\n" * len(proposed))).stdout)
    many = "card" if len(proposed) == 1 else "cards"
    assert f"studied {len(proposed)} {many}" in session and "easy" in session

    deck = tmp_path / "deck.apkg"
    exported = json.loads(ok(cli(home, "cards", "export", str(deck), "--json")).stdout)
    assert exported["notes"] == len(proposed) and deck.is_file()


def test_generate_human_summary_and_refusals(home: Path) -> None:
    [concept, *_] = json.loads(ok(cli(home, "concepts", "--json")).stdout)
    one = ok(cli(home, "cards", "generate", "--concept", concept["id"][:8]))
    assert "cards proposed" in one.stdout and "LLM calls" in one.stdout
    unknown = cli(home, "cards", "generate", "--content", "ffffffff")
    assert unknown.exit_code == 1 and "zettelgraph contents" in unknown.stderr
    missing = cli(home, "cards", "generate", "--concept", "ffffffff")
    assert missing.exit_code == 1 and "zettelgraph concepts" in missing.stderr
