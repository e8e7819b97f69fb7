"""The Anki package and the CSV file, read back as Anki and a spreadsheet would read them: the
.apkg with `zipfile` + `sqlite3` (notes, cards, note types, decks, GUIDs, tags), the CSV with
`csv`. A real SQLite store and real files; the graph is tests/card_graph.py."""

from __future__ import annotations

import csv
import json
import sqlite3
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import genanki
import pytest

from card_graph import DELIBERATE, CardGraph, card_graph, item, put_code_card
from zettelgraph.export import (
    BASIC_MODEL,
    CLOZE_MODEL,
    CSV_HEADER,
    MCQ_MODEL,
    ExportError,
    anki_id,
    deck_name,
    export_apkg,
    export_csv,
)
from zettelgraph.models import ItemStatus, ItemType
from zettelgraph.services.cards import CardError, ItemFilter


@pytest.fixture
def graph(tmp_path: Path) -> Iterator[CardGraph]:
    (tmp_path / "store").mkdir()
    built = card_graph(tmp_path / "store")
    yield built
    built.store.close()


@dataclass
class Package:
    """An .apkg as Anki imports it: the collection's notes (by GUID), cards, note types, decks."""

    notes: dict[str, dict[str, Any]]
    cards: list[tuple[int, int, int]]  # note id, deck id, ord
    models: dict[str, Any]
    decks: dict[str, Any]

    def fields(self, guid: str) -> dict[str, str]:
        note = self.notes[guid]
        names = [f["name"] for f in self.models[str(note["mid"])]["flds"]]
        return dict(zip(names, note["flds"].split("\x1f"), strict=True))

    def cards_of(self, guid: str) -> list[int]:
        return sorted(ord_ for nid, _, ord_ in self.cards if nid == self.notes[guid]["id"])


def read_apkg(path: Path, tmp_path: Path) -> Package:
    with zipfile.ZipFile(path) as archive:
        assert set(archive.namelist()) == {"collection.anki2", "media"}
        assert json.loads(archive.read("media")) == {}
        collection = tmp_path / "read-back.anki2"
        collection.write_bytes(archive.read("collection.anki2"))
    db = sqlite3.connect(collection)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        notes = {
            guid: {"id": nid, "mid": mid, "tags": tags.split(), "flds": flds}
            for nid, guid, mid, tags, flds in db.execute(
                "SELECT id, guid, mid, tags, flds FROM notes"
            )
        }
        cards = list(db.execute("SELECT nid, did, ord FROM cards"))
        models_json, decks_json = db.execute("SELECT models, decks FROM col").fetchone()
    finally:
        db.close()
    return Package(notes, cards, json.loads(models_json), json.loads(decks_json))


def guid(graph: CardGraph, name: str) -> str:
    return str(genanki.guid_for(graph.items[name].id))


# --- the package --------------------------------------------------------------------------------


def test_one_note_per_approved_card_with_guids_from_item_ids(
    graph: CardGraph, tmp_path: Path
) -> None:
    path = tmp_path / "deck.apkg"
    report = export_apkg(graph.store, path)
    package = read_apkg(path, tmp_path)

    approved = {genanki.guid_for(i.id) for i in graph.approved}
    assert set(package.notes) == approved and len(approved) == 5
    assert report.as_dict() == {
        "path": str(path),
        "notes": 5,
        "cards": 5,
        "per_type": {"cloze": 1, "flashcard": 2, "mcq": 1, "relation": 1},
        "per_book": {"Spark": 1, "Walden": 4},
    }
    assert len(package.cards) == 5
    kinds = {name: package.notes[guid(graph, name)]["mid"] for name in ("cloze", "mcq")}
    assert kinds == {"cloze": CLOZE_MODEL.model_id, "mcq": MCQ_MODEL.model_id}
    for name in ("flashcard", "relation", "spark"):
        assert package.notes[guid(graph, name)]["mid"] == BASIC_MODEL.model_id


def test_note_types_and_decks_have_fixed_ids(graph: CardGraph, tmp_path: Path) -> None:
    # Pinned: Anki matches note types by id, so these numbers may never change.
    assert (BASIC_MODEL.model_id, CLOZE_MODEL.model_id, MCQ_MODEL.model_id) == (
        1216350876,
        1252982302,
        1705300110,
    )
    assert anki_id("deck:zettelgraph::Walden") == 2042004876
    export_apkg(graph.store, tmp_path / "deck.apkg")
    package = read_apkg(tmp_path / "deck.apkg", tmp_path)

    models = {m["name"]: m for m in package.models.values()}
    assert {name: int(m["id"]) for name, m in models.items()} == {
        "zettelgraph basic": 1216350876,
        "zettelgraph cloze": 1252982302,
        "zettelgraph multiple choice": 1705300110,
    }
    assert [f["name"] for f in models["zettelgraph basic"]["flds"]] == [
        "Front",
        "Back",
        "Quote",
        "Source",
        "Concept",
    ]
    assert [f["name"] for f in models["zettelgraph cloze"]["flds"]] == ["Text", "Extra"]
    assert models["zettelgraph cloze"]["type"] == genanki.Model.CLOZE
    assert [f["name"] for f in models["zettelgraph multiple choice"]["flds"]][:6] == [
        "Question",
        "Options",
        "Answer",
        "Explanation",
        "Quote",
        "Source",
    ]
    decks = {d["name"]: int(d["id"]) for d in package.decks.values()}
    assert decks["zettelgraph::Walden"] == anki_id("deck:zettelgraph::Walden")
    assert decks["zettelgraph::Spark"] == anki_id("deck:zettelgraph::Spark")
    walden_cards = {
        did for nid, did, _ in package.cards if nid != package.notes[guid(graph, "spark")]["id"]
    }
    assert walden_cards == {decks["zettelgraph::Walden"]}


def test_tags_name_the_book_the_concepts_the_difficulty_and_the_type(
    graph: CardGraph, tmp_path: Path
) -> None:
    export_apkg(graph.store, tmp_path / "deck.apkg")
    package = read_apkg(tmp_path / "deck.apkg", tmp_path)
    assert package.notes[guid(graph, "relation")]["tags"] == [
        "zettelgraph::walden",
        "zettelgraph::concept::vivir-deliberadamente",
        "zettelgraph::concept::simplicidad-voluntaria",
        "zettelgraph::difficulty::hard",
        "zettelgraph::type::relation",
    ]


def test_the_back_shows_the_quote_its_place_the_book_and_the_concept(
    graph: CardGraph, tmp_path: Path
) -> None:
    export_apkg(graph.store, tmp_path / "deck.apkg")
    package = read_apkg(tmp_path / "deck.apkg", tmp_path)

    basic = package.fields(guid(graph, "flashcard"))
    assert basic["Front"] == "¿Por qué se fue Thoreau al bosque?"
    assert basic["Back"] == "Para vivir deliberadamente."
    assert basic["Quote"] == f"<blockquote>{DELIBERATE}<cite>Dónde viví, p. 12</cite></blockquote>"
    assert basic["Source"] == "<i>Walden</i> — Henry David Thoreau"
    assert basic["Concept"] == "Vivir deliberadamente"
    relation = package.fields(guid(graph, "relation"))
    assert (
        relation["Quote"].count("<blockquote>") == 2 and "<cite>p. 40</cite>" in relation["Quote"]
    )
    assert relation["Concept"] == "Vivir deliberadamente · Simplicidad voluntaria"
    cloze = package.fields(guid(graph, "cloze"))
    assert cloze["Text"] == "Fui al {{c1::bosque}} porque quería vivir deliberadamente."
    assert "<i>Walden</i> — Henry David Thoreau, Dónde viví, p. 12" in cloze["Extra"]
    assert "Vivir deliberadamente" in cloze["Extra"]


def test_multiple_choice_lists_the_options_and_reveals_the_right_one(
    graph: CardGraph, tmp_path: Path
) -> None:
    export_apkg(graph.store, tmp_path / "deck.apkg")
    mcq = read_apkg(tmp_path / "deck.apkg", tmp_path).fields(guid(graph, "mcq"))
    assert mcq["Question"] == "¿Qué idea expresa la cita?"
    assert mcq["Options"] == (
        '<ol type="A"><li>La vida en la ciudad</li>'
        '<li class="zg-correct">Vivir deliberadamente</li><li>Simplicidad voluntaria</li></ol>'
    )
    assert mcq["Answer"] == "B. Vivir deliberadamente"
    assert mcq["Explanation"].startswith("La cita dice «deliberadamente»")
    template = MCQ_MODEL.templates[0]
    assert "{{Options}}" in template["qfmt"] and "{{Answer}}" not in template["qfmt"]
    assert "zg-revealed" in template["afmt"] and "{{Answer}}" in template["afmt"]


def test_a_cloze_note_makes_one_card_per_deletion(graph: CardGraph, tmp_path: Path) -> None:
    graph.change(
        "cloze", cloze="Fui al {{c1::bosque}} porque quería vivir {{c2::deliberadamente}}."
    )
    report = export_apkg(graph.store, tmp_path / "deck.apkg")
    package = read_apkg(tmp_path / "deck.apkg", tmp_path)
    assert package.cards_of(guid(graph, "cloze")) == [0, 1]
    assert (report.notes, report.cards) == (5, 6)


def test_everything_from_the_graph_is_escaped(graph: CardGraph, tmp_path: Path) -> None:
    graph.change(
        "cloze",
        cloze='<img src=x onerror="alert(1)"> {{c1::bosque}} & {{Front}} {{c2',
    )
    graph.change("flashcard", front="<script>alert('x')</script> ¿{{Back}}?", back="a < b & c")
    export_apkg(graph.store, tmp_path / "deck.apkg")
    package = read_apkg(tmp_path / "deck.apkg", tmp_path)

    flashcard = package.fields(guid(graph, "flashcard"))
    assert flashcard["Front"] == (
        "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; ¿&#123;&#123;Back&#125;&#125;?"
    )
    assert flashcard["Back"] == "a &lt; b &amp; c"
    cloze = package.fields(guid(graph, "cloze"))["Text"]
    assert cloze.startswith("&lt;img src=x onerror=&quot;alert(1)&quot;&gt; {{c1::bosque}} &amp;")
    assert "{{Front}}" not in cloze and "{{c2" not in cloze
    assert package.cards_of(guid(graph, "cloze")) == [0]


# --- re-export, filters, errors ------------------------------------------------------------------


def test_a_re_export_after_an_edit_updates_instead_of_duplicating(
    graph: CardGraph, tmp_path: Path
) -> None:
    path = tmp_path / "deck.apkg"
    export_apkg(graph.store, path)
    before = read_apkg(path, tmp_path)
    graph.change("flashcard", back="Para vivir deliberadamente, sin prisa.")

    export_apkg(graph.store, path)
    after = read_apkg(path, tmp_path)
    assert set(after.notes) == set(before.notes) and len(after.notes) == 5
    flashcard = guid(graph, "flashcard")
    assert before.fields(flashcard)["Back"] == "Para vivir deliberadamente."
    assert after.fields(flashcard)["Back"] == "Para vivir deliberadamente, sin prisa."
    assert {g: n["mid"] for g, n in after.notes.items()} == {
        g: n["mid"] for g, n in before.notes.items()
    }


def test_proposed_and_dropped_cards_are_never_exported(graph: CardGraph, tmp_path: Path) -> None:
    # Asking for proposed cards still exports only approved ones.
    which = ItemFilter(status=ItemStatus.PROPOSED, content_id=graph.walden.id)
    report = export_apkg(graph.store, tmp_path / "deck.apkg", which)
    package = read_apkg(tmp_path / "deck.apkg", tmp_path)
    assert guid(graph, "proposed") not in package.notes
    assert guid(graph, "dropped") not in package.notes
    assert guid(graph, "spark") not in package.notes  # the filter's book is kept
    assert report.notes == 4

    mcq_only = ItemFilter(item_type=ItemType.MCQ)
    assert export_apkg(graph.store, tmp_path / "mcq.apkg", mcq_only).notes == 1


def test_errors_name_the_file_and_write_nothing(graph: CardGraph, tmp_path: Path) -> None:
    path = tmp_path / "deck.apkg"
    export_apkg(graph.store, path)
    previous = path.read_bytes()

    for name, which, message in [
        ("deck.zip", None, "must end in .apkg"),
        ("missing/deck.apkg", None, "does not exist; create it first"),
        ("deck.apkg", ItemFilter(concept_id="nope"), "no approved card matches the filter"),
    ]:
        with pytest.raises(ExportError, match=message) as raised:
            export_apkg(graph.store, tmp_path / name, which)
        assert str(tmp_path / name) in str(raised.value)
        assert isinstance(raised.value, CardError)  # the CLI and web report CardErrors

    graph.write(*(i.model_copy(update={"status": ItemStatus.DROPPED}) for i in graph.approved))
    with pytest.raises(ExportError, match="no card is approved yet; review cards first"):
        export_apkg(graph.store, path)
    assert path.read_bytes() == previous  # the old deck is untouched
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["deck.apkg"]


def test_a_folder_in_the_way_fails_after_writing_and_leaves_no_temporary_file(
    graph: CardGraph, tmp_path: Path
) -> None:
    target = tmp_path / "deck.apkg"
    target.mkdir()
    (target / "keep.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(ExportError, match="is a folder"):
        export_apkg(graph.store, target)
    assert [p.name for p in target.iterdir()] == ["keep.txt"]
    assert not list(tmp_path.glob(".zettelgraph-*"))


def test_a_card_without_a_book_goes_to_the_root_deck(graph: CardGraph, tmp_path: Path) -> None:
    graph.put("loose", item(ItemType.FLASHCARD, "¿Suelta?", [graph.concepts["city"]]))
    report = export_apkg(graph.store, tmp_path / "deck.apkg")
    package = read_apkg(tmp_path / "deck.apkg", tmp_path)
    decks = {int(d["id"]): d["name"] for d in package.decks.values()}
    loose = package.notes[guid(graph, "loose")]
    assert [decks[did] for nid, did, _ in package.cards if nid == loose["id"]] == ["zettelgraph"]
    assert report.per_book[""] == 1
    assert deck_name("A::B  c") == "zettelgraph::A:B c"


# --- CSV --------------------------------------------------------------------------------------


def test_csv_round_trip(graph: CardGraph, tmp_path: Path) -> None:
    path = tmp_path / "cards.csv"
    report = export_csv(graph.store, path)
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    assert tuple(rows[0]) == CSV_HEADER
    by_id = {row[0]: dict(zip(CSV_HEADER, row, strict=True)) for row in rows[1:]}
    assert set(by_id) == {i.id for i in graph.approved} and report.notes == 5

    mcq = by_id[graph.items["mcq"].id]
    assert mcq["type"] == "mcq" and mcq["difficulty"] == "medium"
    assert mcq["back"] == "Vivir deliberadamente"
    assert mcq["options"].split("\n") == graph.items["mcq"].options
    assert mcq["book"] == "Walden"
    relation = by_id[graph.items["relation"].id]
    assert relation["concepts"].split("\n") == ["Vivir deliberadamente", "Simplicidad voluntaria"]
    assert relation["quotes"].split("\n") == [DELIBERATE, "Simplifica, simplifica."]
    assert relation["tags"].split(" ")[0] == "zettelgraph::walden"
    assert by_id[graph.items["cloze"].id]["front"] == graph.items["cloze"].front


def test_csv_cells_never_run_as_spreadsheet_formulas(graph: CardGraph, tmp_path: Path) -> None:
    graph.change("flashcard", front='=HYPERLINK("http://x","y")', back="+1")
    export_csv(graph.store, tmp_path / "cards.csv")
    with (tmp_path / "cards.csv").open(encoding="utf-8", newline="") as handle:
        row = next(r for r in csv.DictReader(handle) if r["id"] == graph.items["flashcard"].id)
    assert row["front"] == '\'=HYPERLINK("http://x","y")' and row["back"] == "'+1"


def test_a_code_card_keeps_its_lines_and_cites_its_passage(
    graph: CardGraph, tmp_path: Path
) -> None:
    """A code-completion card made from a passage (issue 31): its front keeps the code's
    lines and indentation; its back shows the passage it cites, with no concept."""
    put_code_card(graph)
    export_apkg(graph.store, tmp_path / "deck.apkg")
    fields = read_apkg(tmp_path / "deck.apkg", tmp_path).fields(guid(graph, "code"))
    assert fields["Front"] == (
        '<div class="zg-code">Completa el código:<br><br>def area(r):<br>    return ____</div>'
    )
    assert "Simplifica, simplifica." in fields["Quote"] and fields["Concept"] == ""
