"""The filter a reader writes: `--where` syntax, content names, and where a passage is."""

from __future__ import annotations

import pytest

from zettelgraph.models import Content, PassageFilter, PlaceRange
from zettelgraph.retrieval.filters import (
    FilterError,
    filter_fields,
    parse_where,
    resolve_contents,
    where_text,
)
from zettelgraph.store.scope import active_filter, admits, in_places, passage_span, seconds


def place(unit: str, start: float | None, end: float | None) -> PlaceRange:
    return PlaceRange.model_validate({"unit": unit, "start": start, "end": end})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("pages=12-40", [place("page", 12, 40)]),
        ("p. 12-40", [place("page", 12, 40)]),
        ("pp.3–4", [place("page", 3, 4)]),
        ("page=7", [place("page", 7, 7)]),
        ("PAGES = 100-", [place("page", 100, None)]),
        ("pages=-9", [place("page", None, 9)]),
        ("pages=1-3,8", [place("page", 1, 3), place("page", 8, 8)]),
        ("slides=3-5", [place("slide", 3, 5)]),
        ("slide 2", [place("slide", 2, 2)]),
        ("turns=2-6", [place("turn", 2, 6)]),
        ("time=00:10:00-00:20:00", [place("time", 600, 1200)]),
        ("time=10:00 - 12:30", [place("time", 600, 750)]),
        ("time:-5:00", [place("time", None, 300)]),
        ("time=01:02:03,500-", [place("time", 3723.5, None)]),
        ("pages=1-3; slides=2", [place("page", 1, 3), place("slide", 2, 2)]),
        ("pages=4;", [place("page", 4, 4)]),
        ("time=1:00-2:00; time=5:00-", [place("time", 60, 120), place("time", 300, None)]),
    ],
)
def test_where_syntax(text: str, expected: list[PlaceRange]) -> None:
    assert list(parse_where(text)) == expected


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("12-40", "write UNIT=RANGE"),
        ("pages", "write UNIT=RANGE"),
        ("pgs=3", "unknown unit 'pgs'"),
        ("pages=a-b", "'a' is not a page number"),
        ("pages=40-12", "ends before it starts"),
        ("pages=1-2-3", "is not a range"),
        ("pages=-", "is not a range"),
        ("time=ten-20:00", "'ten' is not a time"),
        ("slides=2.5", "is not a slide number"),
    ],
)
def test_where_errors_say_what_to_write(text: str, says: str) -> None:
    with pytest.raises(FilterError, match=says) as caught:
        parse_where(text)
    assert repr(text) in str(caught.value)


def test_where_text_writes_the_syntax_back() -> None:
    for text in ("pages=12-40", "slides=3", "turns=2-", "time=00:10:00-00:20:00", "pages=-9"):
        assert [where_text(p) for p in parse_where(text)] == [text]
    assert where_text(place("time", 3723.5, None)) == "time=01:02:03.500-"


def test_resolve_contents_by_id_prefix_or_title() -> None:
    spark = Content(id="aaaa1111-x", title="Spark")
    walden = Content(id="aaaa2222-y", title="Walden")
    other_walden = Content(id="bbbb3333-z", title="WALDEN")
    library = [spark, walden, other_walden]
    assert resolve_contents(["aaaa1111-x"], library) == ("aaaa1111-x",)
    assert resolve_contents(["aaaa1"], library) == ("aaaa1111-x",)
    assert resolve_contents(["wáldén", "Spark", "  "], library) == (
        "aaaa2222-y",
        "bbbb3333-z",
        "aaaa1111-x",
    )
    with pytest.raises(FilterError, match="matches 2 contents"):
        resolve_contents(["aaaa"], library)
    with pytest.raises(FilterError, match="no content with that id or title"):
        resolve_contents(["Moby Dick"], library)
    with pytest.raises(FilterError, match="no content"):
        resolve_contents(["aa"], library)  # too short to be taken as a prefix


def test_filter_fields_for_a_form() -> None:
    empty = {"content": "", "kind": "", "author": "", "where": ""}
    assert filter_fields(None) == empty
    passages = PassageFilter(
        content_ids=("c1",),
        kinds=("pdf",),
        authors=("Ana",),
        places=(place("page", 1, 3), place("slide", 2, 2)),
    )
    assert filter_fields(passages) == {
        "content": "c1",
        "kind": "pdf",
        "author": "Ana",
        "where": "pages=1-3; slides=2",
    }


# --- where a passage is --------------------------------------------------------------------


def test_seconds() -> None:
    assert seconds("01:02:03") == 3723
    assert seconds("02:03") == 123
    assert seconds("75") == 75
    assert seconds("00:00:01,500") == 1.5
    assert seconds("00:00:01.25") == 1.25
    assert seconds(12) == 12.0
    for bad in ("", "1:2:3:4", "soon", None, True, [1]):
        assert seconds(bad) is None


def test_passage_spans() -> None:
    assert passage_span({"page": 3, "page_end": 4}, None, "page") == (3, 4)
    assert passage_span({"page": 3}, "99", "page") == (3, 3)  # the location wins
    assert passage_span({}, "12", "page") == (12, 12)
    assert passage_span({}, "pp. 40–41", "page") == (40, 41)
    assert passage_span({}, "loc 142", "page") is None
    assert passage_span({}, None, "page") is None
    assert passage_span({"slide": 5}, None, "slide") == (5, 5)
    assert passage_span({"turn": 2, "turn_end": 4}, None, "turn") == (2, 4)
    assert passage_span({"start": "00:12:03", "end": "00:13:10"}, None, "time") == (723, 790)
    assert passage_span({"start": "00:12:03"}, None, "time") == (723, 723)
    assert passage_span({"page": 3}, None, "time") is None


def test_in_places_is_overlap_with_any_range() -> None:
    spread = {"page": 10, "page_end": 12}
    assert in_places(spread, None, [])
    assert in_places(spread, None, [place("page", 12, 20)])
    assert in_places(spread, None, [place("page", None, 10)])
    assert not in_places(spread, None, [place("page", 13, None)])
    assert in_places(spread, None, [place("slide", 1, 2), place("page", 11, 11)])
    assert not in_places(spread, None, [place("slide", 1, 20)])


def test_admits_the_whole_filter() -> None:
    passages = PassageFilter(
        content_ids=("c1",), kinds=("PDF",), authors=("josé ortega",), places=(place("page", 1, 5),)
    )
    fields = {"content_id": "c1", "kind": "pdf", "author": "Jose Ortega", "page": None}
    assert admits(passages, location={"page": 2}, **fields)  # type: ignore[arg-type]
    assert not admits(passages, location={"page": 9}, **fields)  # type: ignore[arg-type]
    assert not admits(
        passages, content_id="c2", kind="pdf", author="Jose Ortega", location={"page": 2}, page=None
    )
    assert not admits(
        passages,
        content_id="c1",
        kind="book",
        author="Jose Ortega",
        location={"page": 2},
        page=None,
    )
    assert not admits(passages, content_id="c1", kind="pdf", author=None, location={}, page="2")
    assert admits(PassageFilter(), content_id="x", kind="", author=None, location={}, page=None)


def test_active_filter() -> None:
    some = PassageFilter(kinds=("pdf",))
    assert active_filter(None, None) is None
    assert active_filter("Quote", PassageFilter()) is None
    assert active_filter("Quote", some) is some
    assert active_filter(None, some) is some
    with pytest.raises(ValueError, match="Quotes only"):
        active_filter("Concept", some)
