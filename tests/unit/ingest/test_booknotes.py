"""Tests for the book-notes parser: the shared sample, every rule and error, and properties."""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zettelgraph.ingest.booknotes import (
    BookNotesError,
    ParsedNotes,
    ParsedQuote,
    parse_booknotes,
    read_notes_file,
)

SHARED = Path(__file__).resolve().parents[3].parent / "shared"
SAMPLE_DIR = SHARED / "data" / "booknotes"
MB = 1_048_576
Q1 = "La primera cita es bastante larga, ¿verdad?"
Q2 = "La segunda cita también: «con comillas» y guiones —así—…"
Q3 = "Third quote, in English, long enough to keep."


def notes(*body: str, front: str | None = None) -> str:
    """A notes document: optional front matter, then the given body lines."""
    head = f"---\n{front}\n---\n" if front is not None else ""
    return head + "\n".join(body) + "\n"


Expected = tuple[str, str | None, str | None]  # (text, section, page)


def quotes_of(parsed: ParsedNotes) -> list[Expected]:
    return [(q.text, q.section, q.page) for q in parsed.quotes]


# --- the shared sample -------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample() -> tuple[ParsedNotes, dict[str, object]]:
    if not SAMPLE_DIR.is_dir():
        pytest.skip(f"shared book-notes sample not found at {SAMPLE_DIR}")
    path = SAMPLE_DIR / "napoleon_en_chamartin.md"
    parsed = parse_booknotes(read_notes_file(path, max_bytes=MB), source=str(path))
    expected = json.loads((SAMPLE_DIR / "napoleon_en_chamartin.expected.json").read_text("utf-8"))
    return parsed, expected


def test_sample_matches_expected_json(sample: tuple[ParsedNotes, dict[str, object]]) -> None:
    parsed, expected = sample
    assert parsed.title == expected["title"]
    assert parsed.author == expected["author"]
    got = [
        {
            "section": name,
            "quotes": [(q.text, q.page) for q in parsed.quotes if q.section == name],
        }
        for name in parsed.sections
    ]
    want = [
        {"section": s["section"], "quotes": [(q["text"], q["page"]) for q in s["quotes"]]}
        for s in expected["sections"]  # type: ignore[attr-defined]
    ]
    assert got == want
    assert all(q.section is not None for q in parsed.quotes)
    assert parsed.warnings == []
    assert parsed.metadata == {}


def test_sample_quotes_are_verbatim_in_the_source(
    sample: tuple[ParsedNotes, dict[str, object]],
) -> None:
    parsed, expected = sample
    source = " ".join((SAMPLE_DIR / "napoleon_en_chamartin.source.txt").read_text("utf-8").split())
    for section in expected["sections"]:  # type: ignore[attr-defined]
        for quote in section["quotes"]:
            assert source.find(quote["text"]) == quote["source_char_offset"]
    for quote in parsed.quotes:
        assert quote.text in source


def test_sample_quote_lines_point_at_the_quote(
    sample: tuple[ParsedNotes, dict[str, object]],
) -> None:
    parsed, _ = sample
    lines = (SAMPLE_DIR / "napoleon_en_chamartin.md").read_text("utf-8").split("\n")
    for quote in parsed.quotes:
        assert lines[quote.line - 1] == quote.text


# --- read_notes_file ---------------------------------------------------------------------


def test_read_strips_bom_and_normalises_newlines(tmp_path: Path) -> None:
    path = tmp_path / "n.md"
    path.write_bytes(b"\xef\xbb\xbf# Citas\r\n\r\nuno\rdos\n")
    assert read_notes_file(path, max_bytes=MB) == "# Citas\n\nuno\ndos\n"


def test_read_accepts_a_file_exactly_at_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "n.md"
    path.write_bytes(b"x" * 100)
    assert read_notes_file(path, max_bytes=100) == "x" * 100


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "file is empty"),
        (b"  \n\t\r\n ", "file is empty"),
        (b"\xef\xbb\xbf\n", "file is empty"),
        (b"# Citas\n\x00\x01\x02", "binary file"),
        (b"\xff\xfe#\x00 \x00C\x00", "UTF-16"),
    ],
)
def test_read_rejects_unusable_content(tmp_path: Path, content: bytes, expected: str) -> None:
    path = tmp_path / "n.md"
    path.write_bytes(content)
    with pytest.raises(BookNotesError, match=expected) as caught:
        read_notes_file(path, max_bytes=MB)
    assert caught.value.path == str(path)
    assert str(caught.value).startswith(f"{path}: ")


def test_read_rejects_invalid_utf8_naming_line_and_byte_column(tmp_path: Path) -> None:
    path = tmp_path / "latin1.md"
    path.write_bytes("# Citas\r\n\r\nNapoleón en Chamartín\n".encode("latin-1"))
    with pytest.raises(BookNotesError) as caught:
        read_notes_file(path, max_bytes=MB)
    assert caught.value.line == 3
    assert "byte 0xf3 at byte column 7" in str(caught.value)
    assert "UTF-8" in str(caught.value)
    assert str(caught.value).startswith(f"{path}:3: invalid UTF-8")


def test_read_invalid_utf8_column_counts_the_bom(tmp_path: Path) -> None:
    path = tmp_path / "n.md"
    path.write_bytes(b"\xef\xbb\xbfab\xffc")
    with pytest.raises(BookNotesError, match="at byte column 6") as caught:
        read_notes_file(path, max_bytes=MB)
    assert caught.value.line == 1


def test_read_rejects_too_large_saying_size_limit_and_setting(tmp_path: Path) -> None:
    path = tmp_path / "big.md"
    path.write_bytes(b"a" * 3 * MB)
    with pytest.raises(BookNotesError) as caught:
        read_notes_file(path, max_bytes=2 * MB)
    message = str(caught.value)
    assert "3.0 MB" in message
    assert "2.0 MB" in message
    assert "ZETTELGRAPH_MAX_FILE_MB" in message


def test_read_rejects_small_file_over_a_small_limit_in_bytes(tmp_path: Path) -> None:
    path = tmp_path / "n.md"
    path.write_bytes(b"a" * 2048)
    with pytest.raises(BookNotesError, match="2,048 bytes, larger than the limit of 1,024 bytes"):
        read_notes_file(path, max_bytes=1024)


def test_read_rejects_missing_file(tmp_path: Path) -> None:
    with pytest.raises(BookNotesError, match="file not found") as caught:
        read_notes_file(tmp_path / "nope.md", max_bytes=MB)
    assert caught.value.path == str(tmp_path / "nope.md")


def test_read_rejects_directory(tmp_path: Path) -> None:
    with pytest.raises(BookNotesError, match="is a directory"):
        read_notes_file(tmp_path, max_bytes=MB)


# --- BookNotesError ----------------------------------------------------------------------


def test_error_formats_path_and_line() -> None:
    assert str(BookNotesError("bad. Fix it", path="notes/x.md", line=12)) == (
        "notes/x.md:12: bad. Fix it"
    )
    assert str(BookNotesError("bad", path="notes/x.md")) == "notes/x.md: bad"
    assert str(BookNotesError("bad")) == "bad"
    assert isinstance(BookNotesError("bad"), ValueError)


def test_error_survives_pickling() -> None:
    error = BookNotesError("bad", path="x.md", line=3)
    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.path, copy.line, copy.message) == ("x.md:3: bad", "x.md", 3, "bad")


# --- front matter ------------------------------------------------------------------------


def test_front_matter_title_author_and_json_safe_metadata() -> None:
    front = (
        "title: Napoleón en Chamartín\nauthor:\n  - Benito Pérez Galdós\n  - Otro Autor\n"
        "read: 2024-03-05\nstarted: 2024-03-05 10:30:00\nrating: 4.5\ntags: [historia, 1808]\n"
        "nested: {when: 2020-01-01, score: .nan}"
    )
    parsed = parse_booknotes(notes("# Citas", "", Q1, front=front))
    assert parsed.title == "Napoleón en Chamartín"
    assert parsed.author == "Benito Pérez Galdós, Otro Autor"
    assert parsed.metadata == {
        "read": "2024-03-05",
        "started": "2024-03-05T10:30:00",
        "rating": 4.5,
        "tags": ["historia", 1808],
        "nested": {"when": "2020-01-01", "score": "nan"},
    }
    json.dumps(parsed.metadata, allow_nan=False)


@pytest.mark.parametrize("front", [None, "", "other: 1", "title: ''\nauthor:"])
def test_missing_title_and_author_are_none(front: str | None) -> None:
    parsed = parse_booknotes(notes("# Citas", "", Q1, front=front))
    assert (parsed.title, parsed.author) == (None, None)


def test_front_matter_line_numbers_count_from_the_file_top() -> None:
    parsed = parse_booknotes(notes("# Citas", "", Q1, front="title: T\nauthor: A"))
    assert parsed.quotes[0].line == 7


def test_unterminated_front_matter_is_an_error() -> None:
    with pytest.raises(BookNotesError, match="never closed") as caught:
        parse_booknotes("---\ntitle: T\n# Citas\n\n" + Q1, source="n.md")
    assert (caught.value.path, caught.value.line) == ("n.md", 1)


def test_invalid_yaml_names_its_line() -> None:
    with pytest.raises(BookNotesError, match="invalid YAML") as caught:
        parse_booknotes(notes("# Citas", "", Q1, front="title: T\nauthor: [A, B\nx: 1"))
    assert caught.value.line is not None and 3 <= caught.value.line <= 5
    with pytest.raises(BookNotesError) as caught:
        parse_booknotes(notes("# Citas", "", Q1, front="title: T\n  bad: indent"))
    assert caught.value.line == 3


@pytest.mark.parametrize("front", ["- a\n- b", "just text", "42"])
def test_front_matter_that_is_not_a_mapping_is_an_error(front: str) -> None:
    with pytest.raises(BookNotesError, match="not 'key: value' lines"):
        parse_booknotes(notes("# Citas", "", Q1, front=front))


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("title: [a, b]", "'title' must be a single line"),
        ("author: {name: x}", "'author' must be a single line"),
        ("date: 2024-13-45", "invalid value in front matter"),
        ("a: &a [*a]", "would contain itself"),
        (
            "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
            "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
            "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
            "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]",
            "stands for so many values",
        ),
        ("x: !!python/object:os.system ls", "invalid YAML"),
    ],
)
def test_unusable_front_matter_values_are_errors(front: str, expected: str) -> None:
    with pytest.raises(BookNotesError, match=expected):
        parse_booknotes(notes("# Citas", "", Q1, front=front))


# --- the quotes section ------------------------------------------------------------------


@pytest.mark.parametrize(
    "heading",
    ["# Citas", "# Quotes", "# Highlights", "# CITAS:", "# Cítas", "#  quotes :", "# Citas #"],
)
def test_quotes_heading_variants(heading: str) -> None:
    assert quotes_of(parse_booknotes(notes(heading, "", Q1))) == [(Q1, None, None)]


def test_no_quotes_section_is_an_error_saying_what_to_add() -> None:
    with pytest.raises(BookNotesError) as caught:
        parse_booknotes(notes("# Notas", "", Q1, "## Citas", "", Q2), source="n.md")
    assert str(caught.value) == (
        "n.md: no '# Citas' (or '# Quotes' / '# Highlights') section found; "
        "add one above your quotes"
    )


def test_hashtag_instead_of_heading_gets_a_hint() -> None:
    with pytest.raises(BookNotesError, match="needs a space after '#'"):
        parse_booknotes(notes("#Citas", "", Q1))


def test_empty_quotes_section_is_an_error_at_its_heading() -> None:
    with pytest.raises(BookNotesError, match="section has no quotes") as caught:
        parse_booknotes(notes("intro", "", "# Citas", "", "## Parte", "", "# Otra", Q1))
    assert caught.value.line == 3


def test_quotes_section_of_only_fragments_says_so() -> None:
    with pytest.raises(BookNotesError, match=r"no quotes \(2 fragments under 20 characters\)"):
        parse_booknotes(notes("# Citas", "", "corta", "", "otra corta"))


def test_text_outside_quotes_sections_is_ignored() -> None:
    text = notes(
        "Intro paragraph that is long enough to be a quote.",
        "# Resumen",
        Q3,
        "# Citas",
        Q1,
        "# Ideas",
        "An idea paragraph that is also long enough.",
        "# Quotes",
        Q2,
    )
    assert quotes_of(parse_booknotes(text)) == [(Q1, None, None), (Q2, None, None)]


def test_sections_come_from_subheadings_of_any_depth() -> None:
    text = notes(
        "# Citas", Q1, "## Parte I ##", Q2, "### Capítulo 2", Q3, "## Parte I", "", Q1 + "!"
    )
    parsed = parse_booknotes(text)
    assert quotes_of(parsed) == [
        (Q1, None, None),
        (Q2, "Parte I", None),
        (Q3, "Capítulo 2", None),
        (Q1 + "!", "Parte I", None),
    ]
    assert parsed.sections == ["Parte I", "Capítulo 2"]


def test_tags_and_seven_hashes_are_text_not_headings() -> None:
    text = notes("# Citas", "## S", "", "#etiqueta and some more words", "", "####### " + Q1)
    assert [q.section for q in parse_booknotes(text).quotes] == ["S", "S"]


def test_empty_level_one_heading_ends_the_quotes_with_a_warning() -> None:
    parsed = parse_booknotes(notes("# Citas", Q1, "#", Q2))
    assert [q.text for q in parsed.quotes] == [Q1]
    assert parsed.warnings == ["line 3: empty '#' heading ends the quotes section"]


def test_empty_subheading_clears_the_section_with_a_warning() -> None:
    parsed = parse_booknotes(notes("# Citas", "## S", Q1, "##", Q2))
    assert quotes_of(parsed) == [(Q1, "S", None), (Q2, None, None)]
    assert parsed.warnings == ["line 4: empty heading; the quotes after it get no section"]


# --- paragraphs --------------------------------------------------------------------------


def test_wrapped_lines_join_with_one_space_and_characters_are_kept() -> None:
    text = notes("# Citas", "", '  «Primera línea" —dijo— ', "\tsegunda… ¡sí! ¿no?   ", "", Q2)
    parsed = parse_booknotes(text)
    assert [q.text for q in parsed.quotes] == ['«Primera línea" —dijo— segunda… ¡sí! ¿no?', Q2]
    assert [q.line for q in parsed.quotes] == [3, 6]


def test_inner_whitespace_of_a_line_is_kept() -> None:
    assert parse_booknotes(notes("# Citas", "a  b\tc and more text")).quotes[0].text == (
        "a  b\tc and more text"
    )


@pytest.mark.parametrize("rule", ["---", "***", "* * *", "___"])
def test_thematic_breaks_separate_quotes(rule: str) -> None:
    assert [q.text for q in parse_booknotes(notes("# Citas", Q1, rule, Q2)).quotes] == [Q1, Q2]


def test_short_fragments_become_warnings_with_their_line() -> None:
    parsed = parse_booknotes(notes("# Citas", "", Q1, "", "  ¡Qué bien!  ", "", Q2))
    assert [q.text for q in parsed.quotes] == [Q1, Q2]
    assert parsed.warnings == [
        "line 5: fragment '¡Qué bien!' is shorter than 20 characters; not kept as a quote"
    ]


def test_twenty_characters_is_long_enough() -> None:
    assert parse_booknotes(notes("# Citas", "x" * 20, "", "y" * 19)).quotes[0].text == "x" * 20


def test_duplicate_quotes_are_all_returned() -> None:
    # Deduplication is the caller's job (quote ids are content-addressed there).
    parsed = parse_booknotes(notes("# Citas", Q1, "", Q1))
    assert [(q.text, q.line) for q in parsed.quotes] == [(Q1, 2), (Q1, 4)]
    assert parsed.warnings == []


# --- pages -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "page"),
    [
        ("123", "123"),
        ("124-125", "124-125"),
        ("124–125", "124-125"),
        ("124 — 125", "124-125"),
        ("p. 12", "12"),
        ("p 12", "12"),
        ("p.12", "12"),
        ("P. 12", "12"),
        ("pp. 12-14", "12-14"),
        ("pág. 12", "12"),
        ("Pág. 12", "12"),
        ("págs. 12-14", "12-14"),
        ("pag 12", "12"),
        ("page 12", "12"),
        ("pages 12–14", "12-14"),
        ("(p. 12)", "12"),
        ("[12]", "12"),
        ("(124-125)", "124-125"),
        ("— p. 12", "12"),
        ("Location 1234", "loc 1234"),
        ("Loc. 1234-1240", "loc 1234-1240"),
        ("loc 1234", "loc 1234"),
        ("Posición 1234", "loc 1234"),
        ("posicion 99", "loc 99"),
    ],
)
def test_page_line_forms(written: str, page: str) -> None:
    parsed = parse_booknotes(notes("# Citas", Q1, written, "", Q2, "", written))
    assert quotes_of(parsed) == [(Q1, None, page), (Q2, None, page)]
    assert parsed.warnings == []


@pytest.mark.parametrize("line", ["12a", "p. 12 y 13", "page twelve", "12.", "(12", "12 -"])
def test_near_page_lines_are_text(line: str) -> None:
    parsed = parse_booknotes(notes("# Citas", Q1, line))
    assert quotes_of(parsed) == [(f"{Q1} {line}", None, None)]


def test_page_line_in_the_middle_of_a_paragraph_ends_the_quote() -> None:
    parsed = parse_booknotes(notes("# Citas", Q1, "12", Q2, "13", Q3))
    assert quotes_of(parsed) == [(Q1, None, "12"), (Q2, None, "13"), (Q3, None, None)]


def test_page_line_with_no_quote_before_it_is_a_warning() -> None:
    parsed = parse_booknotes(
        notes("# Citas", "", "12", "", Q1, "## S", "", "13", "", "corto", "14")
    )
    assert quotes_of(parsed) == [(Q1, None, None)]
    assert parsed.warnings == [
        "line 3: page reference '12' has no quote right before it; ignored",
        "line 8: page reference '13' has no quote right before it; ignored",
        "line 10: fragment 'corto' is shorter than 20 characters; not kept as a quote",
        "line 11: page reference '14' has no quote right before it; ignored",
    ]


def test_second_page_line_is_a_warning() -> None:
    parsed = parse_booknotes(notes("# Citas", Q1, "12", "", "13", "", Q2 + " (p. 5)", "6"))
    assert quotes_of(parsed) == [(Q1, None, "12"), (Q2, None, "5")]
    assert parsed.warnings == [
        "line 5: page reference '13' ignored; the quote on line 2 already has page '12'",
        "line 8: page reference '6' ignored; the quote on line 7 already has page '5'",
    ]


@pytest.mark.parametrize(
    ("suffix", "page"),
    [(" (p. 12)", "12"), (" [pp. 3-4]", "3-4"), (" — pág. 7", "7"), (" - Location 88", "loc 88")],
)
def test_trailing_page_reference_with_a_keyword_is_taken_off(suffix: str, page: str) -> None:
    assert quotes_of(parse_booknotes(notes("# Citas", Q1 + suffix))) == [(Q1, None, page)]


@pytest.mark.parametrize("suffix", [" (1809)", " 12", " p. 12", "(p. 12", " — 12"])
def test_trailing_numbers_without_a_keyword_stay_text(suffix: str) -> None:
    assert quotes_of(parse_booknotes(notes("# Citas", Q1 + suffix))) == [(Q1 + suffix, None, None)]


# --- blockquotes and bullets -------------------------------------------------------------


def test_consecutive_blockquote_lines_are_one_quote() -> None:
    text = notes("# Citas", "", "> " + Q1, ">", ">" + Q2, "> — p. 12", "", "> " + Q3, "> 14")
    parsed = parse_booknotes(text)
    assert quotes_of(parsed) == [(f"{Q1} {Q2}", None, "12"), (Q3, None, "14")]
    assert [q.line for q in parsed.quotes] == [3, 8]


def test_blockquote_inline_page_nesting_and_callout_header() -> None:
    text = notes("# Citas", "> [!quote] Mi título", "> > " + Q1 + " (p. 9)", "", "> " + Q2)
    parsed = parse_booknotes(text)
    assert quotes_of(parsed) == [(Q1, None, "9"), (Q2, None, None)]
    assert parsed.quotes[0].line == 3


def test_plain_line_after_a_blockquote_starts_a_new_quote() -> None:
    assert [q.text for q in parse_booknotes(notes("# Citas", "> " + Q1, Q2)).quotes] == [Q1, Q2]


def test_each_bullet_is_a_quote_and_continuation_lines_join() -> None:
    text = notes("# Citas", "- " + Q1, "* " + Q2, "  continúa aquí", "+ " + Q3, "p. 40")
    parsed = parse_booknotes(text)
    assert quotes_of(parsed) == [
        (Q1, None, None),
        (Q2 + " continúa aquí", None, None),
        (Q3, None, "40"),
    ]
    assert [q.line for q in parsed.quotes] == [2, 3, 5]


def test_dialogue_dash_without_space_is_not_a_bullet() -> None:
    text = notes("# Citas", "-Sí, señores -dijo ella-, esa es la verdad.")
    assert parse_booknotes(text).quotes[0].text == "-Sí, señores -dijo ella-, esa es la verdad."


# --- comments, code, line endings --------------------------------------------------------


def test_comments_are_ignored_without_splitting_quotes() -> None:
    text = notes(
        "# Citas",
        "Primera parte <!-- nota --> de la cita",
        "<!-- una nota",
        "de varias líneas -->",
        "%% comentario de Obsidian %%",
        "y su final.",
        "",
        "%%",
        Q3,
        "%%",
        Q2,
    )
    parsed = parse_booknotes(text)
    assert [q.text for q in parsed.quotes] == ["Primera parte de la cita y su final.", Q2]
    assert parsed.warnings == []


def test_unclosed_comment_is_kept_as_text_with_a_warning() -> None:
    parsed = parse_booknotes(notes("# Citas", Q1, "", "<!-- " + Q2))
    assert [q.text for q in parsed.quotes] == [Q1, "<!-- " + Q2]
    assert parsed.warnings == ["line 4: '<!--' is never closed; kept as text"]


def test_fenced_code_is_skipped_and_its_headings_ignored() -> None:
    parsed = parse_booknotes(notes("# Citas", Q1, "```python", "# not a heading", "```", Q2))
    assert quotes_of(parsed) == [(Q1, None, None), (Q2, None, None)]
    assert parsed.warnings == ["line 3: fenced code ignored; quotes are plain paragraphs"]


def test_unclosed_fence_hides_the_rest_with_a_warning() -> None:
    parsed = parse_booknotes(notes("# Citas", Q1, "~~~~", Q2, "~~~", "# Quotes", Q3))
    assert [q.text for q in parsed.quotes] == [Q1]
    assert parsed.warnings == [
        "line 3: fenced code ignored; quotes are plain paragraphs",
        "line 3: code fence never closed; the rest of the file ignored",
    ]


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_windows_and_old_mac_line_endings(newline: str) -> None:
    text = notes("# Citas", "## S", Q1, "12", "", Q2, front="title: T").replace("\n", newline)
    parsed = parse_booknotes("\ufeff" + text)
    assert parsed.title == "T"
    assert quotes_of(parsed) == [(Q1, "S", "12"), (Q2, "S", None)]
    assert [q.line for q in parsed.quotes] == [6, 9]


def test_warnings_are_sorted_and_start_with_their_line() -> None:
    parsed = parse_booknotes(notes("# Citas", "corta", "", Q1, "", "12", "13", "", "<!-- x"))
    assert parsed.warnings == sorted(parsed.warnings, key=lambda w: int(w.split(":")[0][5:]))
    assert all(re.match(r"line \d+: ", w) for w in parsed.warnings)
    assert len(parsed.warnings) == 4


def test_parsed_quote_is_frozen() -> None:
    quote = ParsedQuote(text=Q1, section=None, page=None, line=1)
    with pytest.raises(ValueError, match="frozen"):
        quote.text = "x"  # type: ignore[misc]


# --- properties --------------------------------------------------------------------------

FAST = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZáéíóúüñÁÉÍÓÚÑçàèÇ"
ALPHABET = LETTERS + "0123456789" + " " * 12 + ".,;:¿?¡!\"'«»“”‘’—–-…()[]/*_%#<>`~@&\u00a0😀📚🇪🇸"
PAGE_FORMS = [
    ("{a}", "{a}"),
    ("{a}-{b}", "{a}-{b}"),
    ("{a}–{b}", "{a}-{b}"),
    ("p. {a}", "{a}"),
    ("p {a}", "{a}"),
    ("pp. {a}-{b}", "{a}-{b}"),
    ("pág. {a}", "{a}"),
    ("Págs. {a}-{b}", "{a}-{b}"),
    ("page {a}", "{a}"),
    ("pages {a}-{b}", "{a}-{b}"),
    ("(p. {a})", "{a}"),
    ("[{a}]", "{a}"),
    ("— p. {a}", "{a}"),
    ("Location {a}", "loc {a}"),
    ("Loc. {a}-{b}", "loc {a}-{b}"),
    ("Posición {a}", "loc {a}"),
]


def is_plain_line(line: str) -> bool:
    """Conservatively: a line the parser can only read as quote text."""
    words = re.findall(r"[^\W\d_]+", line)
    return not (
        line[:1] in "#>-*+`~([—–"
        or "<!--" in line
        or "%%" in line
        or (re.search(r"\d", line) and len(words) <= 1)  # could be a page line
        or re.search(r"\d\s*[)\]]?$", line)  # could end in a page reference
        or re.fullmatch(r"[-*_\s]*", line)
    )


plain_text = (
    st.text(alphabet=ALPHABET, min_size=20, max_size=90)
    .map(str.strip)
    .filter(lambda t: len(t) >= 20 and is_plain_line(t))
)
names = (
    st.text(alphabet=ALPHABET, min_size=1, max_size=30)
    .map(str.strip)
    .filter(lambda t: bool(t) and is_plain_line(t) and not t.endswith("#"))
)


@st.composite
def quote_blocks(draw: st.DrawFn) -> tuple[list[str], tuple[str, str | None]]:
    """Lines for one quote (maybe wrapped, maybe with a page line) and its (text, page)."""
    text = draw(plain_text)
    lines = [text]
    cuts = [
        i
        for i in range(1, len(text) - 1)
        if text[i] == " " and not text[i - 1].isspace() and not text[i + 1].isspace()
    ]
    cuts = [i for i in cuts if is_plain_line(text[:i]) and is_plain_line(text[i + 1 :])]
    if draw(st.booleans()) and cuts:
        cut = draw(st.sampled_from(cuts))
        lines = [text[:cut], "  " + text[cut + 1 :] + " "]
    page = None
    if draw(st.booleans()):
        written, normal = draw(st.sampled_from(PAGE_FORMS))
        a, b = draw(st.integers(1, 999)), draw(st.integers(1000, 2000))
        page = normal.format(a=a, b=b)
        if draw(st.booleans()):
            lines.append("")  # the page line as its own paragraph
        lines.append(written.format(a=a, b=b))
    return lines, (text, page)


@st.composite
def well_formed_notes(draw: st.DrawFn) -> tuple[str, dict[str, str], list[Expected]]:
    lines: list[str] = []
    front: dict[str, str] = {}
    if draw(st.booleans()):
        front = {"title": draw(names), "author": draw(names)}
        dumped = yaml.safe_dump(front, allow_unicode=True, width=1_000_000)
        lines += ["---", *dumped.splitlines(), "---"]
    if draw(st.booleans()):
        lines += ["# Notas", "", *draw(st.lists(names, max_size=3)), ""]
    lines.append(draw(st.sampled_from(["# Citas", "# Quotes", "# HIGHLIGHTS:", "# Cítas"])))
    expected: list[Expected] = []
    # The first group may come before any '##' heading; the rest each open a section.
    groups: list[tuple[str | None, int]] = [
        (None, 0),
        *draw(st.lists(st.tuples(names, st.integers(2, 4)), max_size=3)),
    ]
    if draw(st.booleans()):
        groups = groups[1:] or groups
    for section, level in groups:
        if section is not None:
            lines += ["", "#" * level + " " + section]
        for block, (text, page) in draw(st.lists(quote_blocks(), min_size=1, max_size=4)):
            lines += [""] * draw(st.integers(1, 2)) + block
            expected.append((text, section, page))
    if draw(st.booleans()):
        lines += ["", "# Otras notas", *draw(st.lists(names, max_size=3))]
    return "\n".join(lines) + "\n", front, expected


@FAST
@given(well_formed_notes())
def test_property_well_formed_notes_round_trip(
    case: tuple[str, dict[str, str], list[Expected]],
) -> None:
    text, front, expected = case
    parsed = parse_booknotes(text)
    assert [(q.text, q.section, q.page) for q in parsed.quotes] == expected
    assert (parsed.title, parsed.author) == (front.get("title"), front.get("author"))
    lines = text.split("\n")
    for quote in parsed.quotes:
        assert lines[quote.line - 1].strip() in quote.text


fuzz_lines = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        ["", "---", "# Citas", "# Quotes:", "## S", "###", "> ", ">", "> [!quote]", "- ", "12",
         "p. 3", "(loc 4)", "<!--", "-->", "%%", "```", "~~~", "title: [", "title: x", "* * *",
         "author: [a, b]", "a: &a [*a]", "- " + Q1, "> " + Q2, Q3, Q3 + " (p. 9)", "\ufeff", "\r"]
    ),
)  # fmt: skip


@FAST
@given(st.one_of(st.text(), st.lists(fuzz_lines, max_size=30).map("\n".join)))
def test_property_only_booknotes_error_escapes(text: str) -> None:
    try:
        parsed = parse_booknotes(text)
    except BookNotesError as error:
        assert str(error).startswith("<text>")
        return
    assert parsed.quotes
    assert all(re.match(r"line \d+: ", w) for w in parsed.warnings)


def content(line: str) -> str:
    """A line as quote text: trimmed, without blockquote or list markers."""
    line = line.strip()
    if marker := re.match(r"(?:>[ \t]*)+", line):
        return line[marker.end() :].strip()
    return re.sub(r"^[-*+][ \t]+", "", line)


any_line = st.text(st.characters(exclude_characters="\n\r", exclude_categories=["Cs"]), max_size=60)
line_mix = st.one_of(
    any_line.filter(lambda t: "%%" not in t and "<!--" not in t),
    plain_text,
    st.sampled_from(["", "", "12", "p. 4", "## S", "> ", "- x", "* * *"]),
)


@FAST
@given(st.lists(line_mix, min_size=1, max_size=25))
def test_property_quotes_are_spans_of_the_input_lines(body: list[str]) -> None:
    lines = ["# Citas", *body]
    try:
        parsed = parse_booknotes("\n".join(lines))
    except BookNotesError:
        return
    for quote in parsed.quotes:
        start = quote.line - 1
        spans = [
            " ".join(part for part in map(content, lines[start : end + 1]) if part)
            for end in range(start, len(lines))
        ]
        assert any(
            span == quote.text or (quote.page is not None and span.startswith(quote.text))
            for span in spans
        ), (quote, lines[start:])
