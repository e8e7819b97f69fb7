"""Template packs: the shipped ones, the loader's errors (file, line, field), user packs, and
how several packs merge (a shared relationship type, conflicts as errors)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from zettelgraph.packs.loader import (
    active_schema,
    available_packs,
    load_packs,
    pack_files,
    read_pack,
    shipped_folder,
    validate_file,
)
from zettelgraph.packs.schema import (
    EntityType,
    Pack,
    PackError,
    PackLocation,
    RelationshipType,
    merge,
)
from zettelgraph.services.configuration import masked
from zettelgraph.settings import Settings

SHIPPED = ("zettelkasten", "narrative", "research")
GOOD = """\
name: ships
version: "1"
entity_types:
  - name: Ship
    description: A ship.
  - name: Port
    description: A port.
relationship_types:
  - name: SAILED_TO
    description: A sailed to B.
    source_types: [Ship]
    target_types: [Port]
    reverse: VISITED_BY
  - name: VISITED_BY
    description: A was visited by B.
    source_types: [Port]
    target_types: [Ship]
    reverse: SAILED_TO
"""


def settings_for(home: Path, *packs: str) -> Settings:
    return Settings(home=home, packs=list(packs or SHIPPED))


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path) -> str:
    with pytest.raises(PackError) as info:
        read_pack(path)
    return str(info.value)


# --- the shipped packs ------------------------------------------------------------------------


def test_three_packs_ship_as_package_data(tmp_path: Path) -> None:
    folder = shipped_folder()
    # Inside the package, so the wheel carries them (hatch takes every file of the package).
    assert folder.parent.name == "packs" and folder.parent.parent.name == "zettelgraph"
    assert sorted(available_packs(settings_for(tmp_path))) == sorted(SHIPPED)
    for name in SHIPPED:
        assert (folder / f"{name}.yaml").is_file()


def test_the_default_settings_activate_every_shipped_pack_and_they_merge(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path)
    assert settings.packs == list(SHIPPED)
    schema = active_schema(settings)
    assert [p.name for p in schema.packs] == list(SHIPPED)
    for entity in ("Concept", "Person", "Place", "Event", "Work", "Group"):
        assert entity in schema.entity_types
    for entity in ("Claim", "Method", "Dataset", "Finding"):
        assert entity in schema.entity_types
    for name in ("KNOWS", "PARTICIPATED_IN", "LOCATED_IN", "WROTE", "WRITTEN_BY", "MEMBER_OF"):
        assert name in schema.relationship_types
    for name in ("SUPPORTS", "CONTRADICTS", "USES", "EVALUATED_ON"):
        assert name in schema.relationship_types
    assert schema.relationship_types["KNOWS"].symmetric
    assert schema.relationship_types["WROTE"].reverse == "WRITTEN_BY"
    assert schema.allows("WROTE", "Person", "Work")
    assert not schema.allows("WROTE", "Work", "Person")
    born = {p.name: p.type for p in schema.entity_types["Person"].properties}
    assert born["born"] == "integer" and born["died"] == "integer"


def test_research_shares_supports_with_zettelkasten(tmp_path: Path) -> None:
    schema = active_schema(settings_for(tmp_path))
    supports = schema.relationship_types["SUPPORTS"]
    assert set(supports.source_types) == {"Concept", "Finding", "Claim"}
    assert set(supports.target_types) == {"Concept", "Claim"}
    # The first pack's description and colour; both packs' examples.
    assert supports.description == "A provides evidence or justification for B."
    assert supports.color == "#16a34a"
    assert len(supports.examples) == 2
    assert schema.defined_by["SUPPORTS"] == "zettelkasten"
    assert set(schema.relationship_types["SUPPORTED_BY"].target_types) == {
        "Concept",
        "Finding",
        "Claim",
    }


def test_packs_setting_is_comma_separated_in_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZETTELGRAPH_PACKS", " zettelkasten , narrative,")
    settings = Settings(home=tmp_path)
    assert settings.packs == ["zettelkasten", "narrative"]
    assert masked(settings)["packs"] == "zettelkasten,narrative"
    assert [p.name for p in active_schema(settings).packs] == ["zettelkasten", "narrative"]
    assert "Claim" not in active_schema(settings).entity_types
    with pytest.raises(ValueError, match="listed twice"):
        Settings(home=tmp_path, packs="narrative,narrative")


# --- malformed packs: each message names the file, the line and the field ---------------------


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        pytest.param(
            GOOD.replace("    description: A ship.\n", "    description: A ship: big\n   x: 1\n"),
            5,
            "YAML syntax error",
            id="yaml-syntax",
        ),
        pytest.param(
            GOOD.replace("    reverse: VISITED_BY\n", "    reverse: VISITED_BY\n    colour: red\n"),
            14,
            "relationship_types.0.colour: unknown field 'colour': did you mean 'color'?",
            id="unknown-field",
        ),
        pytest.param(
            GOOD.replace("  - name: Port\n", "  - name: port\n"),
            6,
            "entity_types.1.name: String should match pattern",
            id="bad-entity-type-name",
        ),
        pytest.param(
            GOOD.replace("  - name: VISITED_BY\n", "  - name: visited-by\n"),
            14,
            "relationship_types.1.name",
            id="bad-relationship-type-name",
        ),
        pytest.param(
            GOOD.replace("    description: A port.\n", ""),
            6,
            "entity_types.1.description: required field missing",
            id="missing-field",
        ),
        pytest.param(
            GOOD.replace("    source_types: [Ship]\n    target_types: [Port]\n", "", 1).replace(
                "name: SAILED_TO\n", "name: SAILED_TO\n    source_types: Ship\n"
            ),
            10,
            "relationship_types.0",
            id="endpoints-not-a-list",
        ),
        pytest.param(
            GOOD + "  - name: SAILED_TO\n    description: again.\n    source_types: [Ship]\n"
            "    target_types: [Port]\n",
            19,
            "relationship_types.2.name: relationship type 'SAILED_TO' is defined twice",
            id="repeated-type",
        ),
        pytest.param(
            GOOD.replace(
                "    reverse: SAILED_TO\n", "    reverse: SAILED_TO\n    symmetric: true\n"
            ),
            18,
            "relationship_types.1.reverse: a relationship type is symmetric or has a reverse",
            id="symmetric-and-reverse",
        ),
        pytest.param(
            GOOD.replace('version: "1"\n', 'version: "1"\nversion: "2"\n'),
            3,
            "version: this key appears twice",
            id="repeated-key",
        ),
        pytest.param(
            GOOD.replace('version: "1"', "version: 1"),
            2,
            "version: Input should be a valid string: put the value in quotes",
            id="unquoted-version",
        ),
    ],
)
def test_a_malformed_pack_is_refused_naming_file_line_and_field(
    tmp_path: Path, text: str, line: int, expected: str
) -> None:
    path = write(tmp_path / "ships.yaml", text)
    message = error_of(path)
    assert message.startswith(f"{path}:{line}: "), message
    assert expected in message


def test_every_field_error_of_a_file_is_listed_on_its_own_line(tmp_path: Path) -> None:
    text = GOOD.replace("  - name: Port\n", "  - name: port\n").replace(
        "    reverse: VISITED_BY\n", "    reverse: visited\n"
    )
    lines = error_of(write(tmp_path / "ships.yaml", text)).splitlines()
    assert [re.match(r".*\.yaml:(\d+): (\S+):", ln).groups() for ln in lines] == [  # type: ignore[union-attr]
        ("6", "entity_types.1.name"),
        ("13", "relationship_types.0.reverse"),
    ]


@pytest.mark.parametrize(
    ("change", "line", "expected"),
    [
        pytest.param(
            ("    reverse: SAILED_TO\n", ""),
            13,
            "relationship_types.0.reverse: relationship type 'SAILED_TO' (pack 'ships') has "
            "reverse 'VISITED_BY', whose reverse is None",
            id="reverse-not-mirrored",
        ),
        pytest.param(
            ("    reverse: VISITED_BY\n", "    reverse: ARRIVED_AT\n"),
            13,
            "has reverse 'ARRIVED_AT', which no active pack defines",
            id="reverse-pointing-nowhere",
        ),
        pytest.param(
            ("    target_types: [Port]\n", "    target_types: [Port, Harbour]\n"),
            12,
            "relationship_types.0.target_types.1: relationship type 'SAILED_TO' (pack 'ships') "
            "joins 'Harbour', which no active pack defines",
            id="endpoint-not-defined",
        ),
    ],
)
def test_a_pack_that_does_not_fit_the_active_packs_is_refused_with_its_line(
    tmp_path: Path, change: tuple[str, str], line: int, expected: str
) -> None:
    path = write(tmp_path / "ships.yaml", GOOD.replace(*change, 1))
    with pytest.raises(PackError) as info:
        validate_file(settings_for(tmp_path, "zettelkasten"), path)
    assert str(info.value).startswith(f"{path}:{line}: "), str(info.value)
    assert expected in str(info.value)


def test_a_good_pack_validates_merged_with_the_active_ones(tmp_path: Path) -> None:
    path = write(tmp_path / "anywhere" / "mine.yaml", GOOD)
    pack, schema = validate_file(settings_for(tmp_path), path)
    assert pack.name == "ships"
    assert [p.name for p in schema.packs] == [*SHIPPED, "ships"]
    assert schema.allows("SAILED_TO", "Ship", "Port")


def test_two_packs_defining_a_type_differently_are_an_error_naming_both_lines(
    tmp_path: Path,
) -> None:
    packs = tmp_path / "packs"
    write(packs / "ships.yaml", GOOD)
    other = GOOD.replace("name: ships", "name: fleet").replace(
        "    reverse: VISITED_BY\n", "    reverse: VISITED_BY\n    stance: opposes\n"
    )
    write(packs / "fleet.yaml", other)
    with pytest.raises(PackError) as info:
        active_schema(settings_for(tmp_path, "ships", "fleet"))
    message = str(info.value)
    assert message.startswith(f"{packs / 'ships.yaml'}:9: relationship_types.0.stance: ")
    assert "defined by packs 'ships' and 'fleet' with a different stance" in message
    assert f"see also {packs / 'fleet.yaml'}:14: relationship_types.0.stance" in message


def test_an_entity_type_defined_differently_names_the_field_that_differs(tmp_path: Path) -> None:
    packs = tmp_path / "packs"
    write(packs / "ships.yaml", GOOD)
    write(
        packs / "fleet.yaml",
        GOOD.replace("name: ships", "name: fleet").replace("A ship.", "A vessel."),
    )
    with pytest.raises(PackError, match=r"entity type 'Ship' .* \(its description differs\)"):
        active_schema(settings_for(tmp_path, "ships", "fleet"))


def test_a_pack_file_is_named_after_its_pack(tmp_path: Path) -> None:
    write(tmp_path / "packs" / "boats.yaml", GOOD)
    with pytest.raises(PackError, match=r"boats\.yaml:1: name: the pack is named 'ships'"):
        load_packs(settings_for(tmp_path), ["boats"])


def test_an_unknown_pack_name_lists_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(PackError, match=r"no pack named 'novels'.*narrative, research"):
        active_schema(settings_for(tmp_path, "zettelkasten", "novels"))


# --- user packs -------------------------------------------------------------------------------


def test_a_user_pack_is_found_and_replaces_a_shipped_one_of_its_name(tmp_path: Path) -> None:
    write(tmp_path / "packs" / "ships.yml", GOOD)
    shipped = (shipped_folder() / "narrative.yaml").read_text(encoding="utf-8")
    mine = write(tmp_path / "packs" / "narrative.yaml", shipped.replace('"1"', '"1-mine"', 1))
    files = pack_files(settings_for(tmp_path))
    assert files["ships"].path == tmp_path / "packs" / "ships.yml" and not files["ships"].shipped
    assert files["narrative"].path == mine
    assert files["narrative"].replaces == shipped_folder() / "narrative.yaml"
    (narrative,) = load_packs(settings_for(tmp_path), ["narrative"])
    assert narrative.version == "1-mine"


def test_a_pack_file_edited_while_the_app_runs_is_read_again(tmp_path: Path) -> None:
    """Packs are kept between requests, but only while their file is unchanged: an edit (even
    one that keeps the file's size), a fix of a broken pack, and a break are all seen."""
    path = write(tmp_path / "packs" / "ships.yaml", GOOD)
    assert read_pack(path).version == "1"
    write(path, GOOD.replace('"1"', '"2"'))  # same size, within one clock tick
    assert read_pack(path).version == "2"
    write(path, GOOD.replace("name: ships", "nombre: ships"))
    assert "ships.yaml:1" in error_of(path)
    write(path, GOOD.replace('"1"', '"3"'))
    assert read_pack(path).version == "3"


def test_two_user_files_for_one_pack_are_an_error_naming_both(tmp_path: Path) -> None:
    first = write(tmp_path / "packs" / "ships.yaml", GOOD)
    second = write(tmp_path / "packs" / "ships.yml", GOOD)
    with pytest.raises(PackError) as info:
        available_packs(settings_for(tmp_path))
    assert str(first) in str(info.value) and str(second) in str(info.value)


# --- merge ------------------------------------------------------------------------------------


def _pack(name: str, *relationships: RelationshipType) -> Pack:
    return Pack(
        name=name,
        version="1",
        entity_types=(EntityType(name="Thing", description="A thing."),),
        relationship_types=relationships,
    )


def _rel(name: str, **fields: object) -> RelationshipType:
    values: dict[str, object] = {
        "description": f"{name}.",
        "source_types": ("Thing",),
        "target_types": ("Thing",),
        "symmetric": True,
        **fields,
    }
    return RelationshipType(name=name, **values)  # type: ignore[arg-type]


def test_merge_joins_a_shared_type_that_agrees_and_refuses_one_that_does_not() -> None:
    a = _pack("a", _rel("LIKES", color="#111111", examples=("x -> y: z",)))
    b = _pack("b", _rel("LIKES", description="Other words.", examples=("p -> q: r",)))
    schema = merge([a, b])
    likes = schema.relationship_types["LIKES"]
    assert likes.description == "LIKES." and likes.color == "#111111"
    assert likes.examples == ("x -> y: z", "p -> q: r")
    c = _pack("c", _rel("LIKES", stance="opposes"))
    with pytest.raises(PackError, match="packs 'a' and 'c' with a different stance") as info:
        merge([a, c])
    assert info.value.locations == (
        PackLocation("a", ("relationship_types", 0, "stance")),
        PackLocation("c", ("relationship_types", 0, "stance")),
    )


def test_merge_refuses_a_pack_twice_and_no_pack_at_all() -> None:
    with pytest.raises(PackError, match="active twice"):
        merge([_pack("a"), _pack("a")])
    with pytest.raises(PackError, match="no pack is active"):
        merge([])


def test_a_symmetric_type_joins_the_same_types_at_both_ends() -> None:
    pack = Pack(
        name="a",
        version="1",
        entity_types=(
            EntityType(name="Thing", description="A thing."),
            EntityType(name="Place", description="A place."),
        ),
        relationship_types=(_rel("NEAR", target_types=("Place",)),),
    )
    with pytest.raises(PackError, match="symmetric but joins different"):
        merge([pack])


def test_the_documented_pack_example_validates(tmp_path: Path) -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    section = docs[docs.index("## Template packs") :]
    example = re.search(r"```yaml\n(.+?)```", section, re.S)
    assert example is not None
    path = write(tmp_path / "ships.yaml", example.group(1))
    pack, schema = validate_file(settings_for(tmp_path), path)
    assert [r.name for r in pack.relationship_types] == ["CALLED_AT", "VISITED_BY", "ESCORTS"]
    assert schema.relationship_types["ESCORTS"].reverse is None
