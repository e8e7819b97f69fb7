"""The vault as Obsidian reads it: every note's front matter read back with a YAML parser and
each property checked against Obsidian's property types (text, list, number, checkbox, date);
book and author notes; and notes of the earlier shape migrated by `vault sync`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from zettelgraph.cli.app import app
from zettelgraph.models import ChangeSet, Concept, Content, Person, Quote, Relation
from zettelgraph.packs.relations import AUTHORED_BY, QUOTED_IN, SUPPORTS
from zettelgraph.store import GraphStore, open_store
from zettelgraph.vault.notes import parse_note
from zettelgraph.vault.sync import sync_vault
from zettelgraph.vault.writer import AUTHORS_DIR, IDEAS_DIR, SOURCES_DIR, Vault

REPO = Path(__file__).resolve().parents[3]
LINK = re.compile(r"^\[\[([^\[\]|]+)(?:\|[^\[\]|]+)?\]\]$")


def obsidian_type(value: Any) -> str | None:
    """The Obsidian property type `value` reads as, None when it is none of them (a nested
    map, a list of anything but text, an empty value)."""
    if isinstance(value, bool):
        return "checkbox"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, datetime | date):
        return "date"
    if isinstance(value, str):
        return "text" if value.strip() else None
    if isinstance(value, list) and value and all(isinstance(i, str) and i for i in value):
        return "list"
    return None


def front_matter(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    loaded = yaml.safe_load(text.split("---\n", 2)[1])
    assert isinstance(loaded, dict)
    return loaded


def resolves(vault: Path, link: str) -> bool:
    match = LINK.match(link)
    assert match, f"not a wikilink: {link!r}"
    target = match.group(1)
    return (vault / f"{target}.md").is_file() or any(vault.rglob(f"{target}.md"))


def cli(home: Path, *args: str) -> Any:
    return CliRunner().invoke(
        app, ["--home", str(home), "--llm", "fake", "--embeddings", "hash", *args]
    )


def test_a_vault_written_with_the_fake_model_has_only_obsidian_properties(tmp_path: Path) -> None:
    home = tmp_path / "home"
    started = cli(home, "run", str(REPO / "examples" / "don_quijote.md"), "--json")
    assert started.exit_code == 0, started.output
    [run] = json.loads(started.stdout)["runs"]
    approved = cli(home, "review", run["run_id"], "--approve", "--json")
    assert approved.exit_code == 0, approved.output
    vault = home / "vault"

    types: dict[str, set[str]] = {}
    notes = sorted(vault.rglob("*.md"))
    for path in notes:
        for key, value in front_matter(path).items():
            kind = obsidian_type(value)
            assert kind is not None, f"{path.name}: {key} = {value!r}"
            types.setdefault(key, set()).add(kind)
            if kind == "list" and key not in ("tags", "aliases"):
                assert all(resolves(vault, link) for link in value), (path.name, key, value)
    # Obsidian gives a property one type in the whole vault.
    assert {key: kinds for key, kinds in types.items() if len(kinds) > 1} == {}

    concepts = sorted((vault / IDEAS_DIR).glob("*.md"))
    [book] = (vault / SOURCES_DIR).glob("*.md")
    [author] = (vault / AUTHORS_DIR).glob("*.md")
    assert len(notes) == len(concepts) + 2 and concepts
    for path in concepts:
        front, body = parse_note(path.read_text(encoding="utf-8"))
        assert {"novela", "clásicos", "concept"} <= set(front["tags"])
        assert front["source"] == [f"[[{SOURCES_DIR}/{book.stem}|{book.stem}]]"]
        assert front["author"] == [f"[[{AUTHORS_DIR}/{author.stem}|{author.stem}]]"]
        assert "concept_relations" not in front
        assert front.get("short_summary") != front.get("summary")
        assert not re.search(r"^- [A-Z_]+:\s*$", body, re.MULTILINE)  # no empty relation line
        assert not re.search(r"^## .+\n+(?=## |\Z)", body, re.MULTILINE)  # no empty section
        assert f"— *[[{SOURCES_DIR}/{book.stem}|" in body.split("## Fuente\n")[1]

    book_front, book_body = parse_note(book.read_text(encoding="utf-8"))
    assert book.stem == "El ingenioso hidalgo don Quijote de la Mancha"
    assert book_front["tags"] == ["novela", "clásicos"]
    assert book_front["author"] == [f"[[{AUTHORS_DIR}/{author.stem}|{author.stem}]]"]
    # Each quote with its page, linked to the concepts it supports (which quotes the fake model
    # draws ideas from follows its prompts' text, and not every quote has a page, so the test
    # asks for a page and a link, not on which quote).
    assert re.search(r"\n— (pp?\. [\d-]+ · )?\[\[", book_body)
    assert re.search(r"\n— pp?\. [\d-]+\n", book_body)
    assert "\n— pp. 984-985" in book_body and "\n— p. 1" in book_body
    linked = set(re.findall(r"\[\[([^\]|]+)\]\]", book_body.split("## Citas\n")[1]))
    assert linked == {path.stem for path in concepts}
    author_front = front_matter(author)
    assert author.stem == "Miguel de Cervantes Saavedra"
    assert author_front["sources"] == [f"[[{SOURCES_DIR}/{book.stem}|{book.stem}]]"]

    check = cli(home, "vault", "sync", "--check", "--json")
    assert check.exit_code == 0, check.output
    assert json.loads(check.stdout)["drift"] == []


# --- the earlier shape --------------------------------------------------------------------

T0 = datetime(2024, 5, 1, tzinfo=UTC)
A, B = "11111111-1111-5111-8111-111111111111", "22222222-2222-5222-8222-222222222222"
NINE = "".join(
    f"  {kind}: []\n"
    for kind in ("SPECIFIC_OF", "PART_OF", "HAS_PART", "SUPPORTS", "SUPPORTED_BY", "OPPOSES")
)
OLD_NOTE = f"""\
---
entity_id: {A}
entity_type: Concept
short_summary: Correr mejora el corazón.
summary: Correr mejora el corazón.
rating: 5  # mine
concept_relations:
  GENERALIZES:
  - {B}
{NINE}  SIMILAR_TO: []
  RELATES_TO: []
---
# Entrenamiento aeróbico

## Concepto
Correr mejora el corazón.

## Análisis

## Conexiones
- GENERALIZES: [[Carrera continua]]
- SPECIFIC_OF:
- PART_OF:
- HAS_PART:
- SUPPORTS:
- SUPPORTED_BY:
- OPPOSES:
- SIMILAR_TO:
- RELATES_TO:

## Fuente
> Correr treinta minutos al día cambia el corazón.

— *Corre o muere*, Kilian Jornet, p. 12

## Mis notas
Releer.
"""


@pytest.fixture
def store(tmp_path: Path) -> Iterator[GraphStore]:
    graph = open_store(f"sqlite:///{tmp_path / 'g.db'}")
    text = "Correr treinta minutos al día cambia el corazón."
    graph.apply(
        ChangeSet(
            contents=[Content(id="book", title="Corre o muere", metadata={"tags": "deporte"})],
            persons=[Person(id="kilian", name="Kilian Jornet")],
            quotes=[Quote(id="q1", content_id="book", text=text, position=1, page="12")],
            concepts=[
                Concept(
                    id=A,
                    title="Entrenamiento aeróbico",
                    concept="Correr mejora el corazón.",
                    summary="Correr mejora el corazón.",
                    summary_short="Correr mejora el corazón.",
                    created_at=T0,
                ),
                Concept(id=B, title="Carrera continua", concept="Correr sin parar.", created_at=T0),
            ],
            relations=[
                Relation(source_id="book", target_id="kilian", type=AUTHORED_BY),
                Relation(source_id="q1", target_id="book", type=QUOTED_IN),
                Relation(source_id="q1", target_id=A, type=SUPPORTS),
                Relation(source_id=A, target_id=B, type="GENERALIZES"),
            ],
        )
    )
    yield graph
    graph.close()


def test_vault_sync_rewrites_a_note_of_the_earlier_shape(store: GraphStore, tmp_path: Path) -> None:
    root = tmp_path / "vault"
    sync_vault(store, Vault(root))
    path = root / IDEAS_DIR / "Entrenamiento aeróbico.md"
    path.write_text(OLD_NOTE, encoding="utf-8")

    check = sync_vault(store, Vault(root), check=True)
    assert [(d.get("concept_id"), d["reason"]) for d in check.drift] == [(A, "old note format")]
    assert path.read_text(encoding="utf-8") == OLD_NOTE

    report = sync_vault(store, Vault(root))
    assert report.updated == [A] and report.errors == []
    text = path.read_text(encoding="utf-8")
    front, body = parse_note(text)
    assert "concept_relations" not in front and "short_summary" not in front
    assert front["generalizes"] == ["[[Carrera continua]]"]
    assert front["tags"] == ["deporte", "concept"]
    assert front["source"] == [f"[[{SOURCES_DIR}/Corre o muere|Corre o muere]]"]
    assert front["author"] == [f"[[{AUTHORS_DIR}/Kilian Jornet|Kilian Jornet]]"]
    assert "rating: 5  # mine\n" in text  # the reader's key, comment included
    assert body == (
        "# Entrenamiento aeróbico\n\n"
        "## Concepto\nCorrer mejora el corazón.\n\n"
        "## Conexiones\n- GENERALIZES: [[Carrera continua]]\n\n"
        "## Fuente\n> Correr treinta minutos al día cambia el corazón.\n\n"
        f"— *[[{SOURCES_DIR}/Corre o muere|Corre o muere]]*, "
        f"[[{AUTHORS_DIR}/Kilian Jornet|Kilian Jornet]], p. 12\n\n"
        "## Mis notas\nReleer.\n"
    )
    again = sync_vault(store, Vault(root))
    assert (again.written, again.updated, again.drift) == ([], [], [])


def test_notes_follow_the_concept_language_and_read_the_other_ones(
    store: GraphStore, tmp_path: Path
) -> None:
    root = tmp_path / "vault"
    sync_vault(store, Vault(root, language="en"))
    text = (root / IDEAS_DIR / "Entrenamiento aeróbico.md").read_text(encoding="utf-8")
    assert "## Concept\n" in text and "## Connections\n" in text and "## Source\n" in text
    assert "## Concepto" not in text and "## Conexiones" not in text
    assert "## Quotes\n" in (root / SOURCES_DIR / "Corre o muere.md").read_text(encoding="utf-8")
    assert "## Sources\n" in (root / AUTHORS_DIR / "Kilian Jornet.md").read_text(encoding="utf-8")
    # A vault written under English headings is read under Spanish ones: nothing to do.
    spanish = sync_vault(store, Vault(root, language="es"), check=True)
    assert spanish.drift == []
    # A language without a table falls back to English.
    other = tmp_path / "other"
    sync_vault(store, Vault(other, language="de"))
    assert "## Concept\n" in (other / IDEAS_DIR / "Entrenamiento aeróbico.md").read_text("utf-8")
