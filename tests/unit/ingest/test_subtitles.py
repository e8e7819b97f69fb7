"""Subtitles (SRT, WebVTT) read from real files in tmp_path: cues, speakers, repeats, errors, and
the passages the chunker cuts from them with their time ranges."""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import Any

import pytest

from zettelgraph.ingest.chunking import ChunkingConfig, chunk_document
from zettelgraph.ingest.documents import SUFFIXES, read_documents
from zettelgraph.ingest.parsed import DocumentError, ParsedDocument
from zettelgraph.models.locations import location_label

MAX = 5 * 1024 * 1024

SRT = (
    "1\n"
    "00:00:01,000 --> 00:00:03,500\n"
    "<i>Beavers</i> build dams\n"
    "across small streams.\n"
    "\n"
    "2\n"
    "00:00:03,600 --> 00:00:06,000 X1:100 X2:200 Y1:10 Y2:20\n"
    '{\\an8}The pond keeps <font color="#ffff00">predators</font> away &amp; stores food.\n'
    "\n"
    "3\n"
    "00:00:20,000 --> 00:00:22,250\n"
    "[Music]\n"
    "After the break: otters.\n"
)

VTT = """WEBVTT - Lecture 3: Rivers
Kind: captions
Language: en

NOTE Exported from the meeting app;
speakers are voice tags.

STYLE
::cue(v[voice="Ann"]) { color: yellow }

REGION
id:fred width:40%

intro
00:01.000 --> 00:04.500 align:start position:10%
<v Ann>Rivers carve <c.yellow>valleys</c> slowly.</v>

2
00:00:04.500 --> 00:00:06.000
<v.loud Bob>How slowly?</v>

00:00:06.000 --> 00:00:09.000 line:0
<v Ann>Over <00:00:07.000><c>thousands</c> of years.
"""


def write(tmp_path: Path, name: str, text: str, *, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def read(path: Path, **options: Any) -> ParsedDocument:
    (document,) = read_documents(path, max_bytes=MAX, **options)
    return document


def cues(document: ParsedDocument) -> list[tuple[str, dict[str, Any]]]:
    return [(b.text, b.location) for b in document.blocks]


def error(path: Path) -> str:
    with pytest.raises(DocumentError) as caught:
        read_documents(path, max_bytes=MAX)
    message = str(caught.value)
    assert message.startswith(f"{path}:"), message
    return message


def test_srt_cues_lose_numbers_markup_and_sound_descriptions(tmp_path: Path) -> None:
    # Saved by a Windows tool: a byte-order mark and CRLF line ends.
    path = write(tmp_path, "beavers.srt", "\ufeff" + SRT.replace("\n", "\r\n"))
    document = read(path)
    assert SUFFIXES[".srt"] == SUFFIXES[".vtt"] == "transcript"
    assert document.file_type == "transcript"  # the Content kind, as for chat transcripts
    assert document.title is None  # ingest falls back to the file name
    assert document.metadata == {"format": "srt", "duration": "00:00:22"}
    assert cues(document) == [
        ("Beavers build dams across small streams.", _at("00:00:01", "00:00:03", 1)),
        ("The pond keeps predators away & stores food.", _at("00:00:03", "00:00:06", 2)),
        ("After the break: otters.", _at("00:00:20", "00:00:22", 3)),
    ]
    assert {b.kind for b in document.blocks} == {"cue"}
    assert document.blocks[0].group_title == "00:00:01–00:00:22"


def test_webvtt_header_notes_styles_ids_settings_and_voices(tmp_path: Path) -> None:
    document = read(write(tmp_path, "rivers.vtt", VTT))
    assert document.title == "Lecture 3: Rivers"
    assert document.metadata == {"format": "webvtt", "duration": "00:00:09"}
    assert cues(document) == [
        ("Rivers carve valleys slowly.", _at("00:00:01", "00:00:04", 1, "Ann")),
        ("How slowly?", _at("00:00:04", "00:00:06", 2, "Bob")),
        ("Over thousands of years.", _at("00:00:06", "00:00:09", 3, "Ann")),
    ]
    assert document.warnings == []


def test_utf16_subtitles_are_read(tmp_path: Path) -> None:
    path = tmp_path / "utf16.srt"
    path.write_bytes(codecs.BOM_UTF16_LE + SRT.encode("utf-16-le"))
    assert cues(read(path))[0][0] == "Beavers build dams across small streams."


def test_rolling_captions_are_read_once(tmp_path: Path) -> None:
    # As YouTube writes automatic captions: each cue shows the line before again, a 10 ms
    # cue repeats the screen, and a line of spaces (written '~' here) sits inside a cue.
    rolling = """WEBVTT
Kind: captions

00:00:00.000 --> 00:00:02.350 align:start position:0%
~
soil<00:00:00.480><c> holds</c><00:00:00.900><c> water</c>

00:00:02.350 --> 00:00:02.360 align:start position:0%
soil holds water
~

00:00:02.360 --> 00:00:05.000 align:start position:0%
soil holds water
and<00:00:03.100><c> roots</c><00:00:03.600><c> hold</c><00:00:04.000><c> soil</c>

00:00:05.000 --> 00:00:07.000 align:start position:0%
and roots hold soil
so rivers stay clear
""".replace("~", " ")
    document = read(write(tmp_path, "auto.vtt", rolling))
    assert cues(document) == [
        ("soil holds water", _at("00:00:00", "00:00:02", 1)),
        ("and roots hold soil", _at("00:00:02", "00:00:05", 3)),
        ("so rivers stay clear", _at("00:00:05", "00:00:07", 4)),
    ]
    # Overlapping duplicates in an SRT: the same text twice extends the first cue.
    twice = (
        "1\n00:00:01,000 --> 00:00:02,000\nSame words.\n\n"
        "2\n00:00:01,500 --> 00:00:04,900\nSame words.\n"
    )
    assert cues(read(write(tmp_path, "twice.srt", twice))) == [
        ("Same words.", _at("00:00:01", "00:00:04", 1))
    ]


def test_speaker_labels_as_meeting_apps_write_them(tmp_path: Path) -> None:
    zoom = """WEBVTT

1
00:00:01.000 --> 00:00:03.000
Ann Lee: Let us start with the budget.

2
00:00:03.000 --> 00:00:05.000
It is due on Friday.

3
00:00:05.000 --> 00:00:07.000
Bob: Fine by me.

4
00:00:07.000 --> 00:00:09.000
Note: this label opens one cue only.

5
00:00:09.000 --> 00:00:10.000
Bob: Next item.

6
00:00:10.000 --> 00:00:11.000
Ann Lee: Agreed.
"""
    assert [(text, b.get("speaker")) for text, b in cues(read(write(tmp_path, "z.vtt", zoom)))] == [
        ("Let us start with the budget.", "Ann Lee"),
        ("It is due on Friday.", "Ann Lee"),  # an unlabelled cue continues the speaker
        ("Fine by me.", "Bob"),
        ("Note: this label opens one cue only.", "Bob"),
        ("Next item.", "Bob"),
        ("Agreed.", "Ann Lee"),
    ]
    # In a talk, a word that opens two cues of many is not a speaker.
    talk = "".join(
        f"{n}\n00:00:{n:02d},000 --> 00:00:{n:02d},900\n{'Now: ' if n < 3 else ''}words {n}\n\n"
        for n in range(1, 30)
    )
    first = cues(read(write(tmp_path, "talk.srt", talk)))[0]
    assert first == ("Now: words 1", _at("00:00:01", "00:00:01", 1))


def test_loose_srt_layouts_are_read(tmp_path: Path) -> None:
    # No number on one cue, a blank line inside a cue's text, separator lines of spaces,
    # hours left out, a comma or a dot before the milliseconds.
    loose = (
        "00:00:01,000 --> 00:00:02,000\nFirst line.\n\nstill the first cue.\n\n"
        "2\n00:02.000 --> 00:03.5\nSecond.\n   \n3\n00:00:04.000 --> 00:00:05.000\nThird.\n"
    )
    assert cues(read(write(tmp_path, "loose.srt", loose))) == [
        ("First line. still the first cue.", _at("00:00:01", "00:00:02", 1)),
        ("Second.", _at("00:00:02", "00:00:03", 2)),
        ("Third.", _at("00:00:04", "00:00:05", 3)),
    ]


def test_subtitles_are_recognised_in_a_txt_file_and_with_type_transcript(tmp_path: Path) -> None:
    as_text = write(tmp_path, "captions.txt", SRT)
    assert read(as_text).metadata["format"] == "srt"
    assert read(as_text, file_type="transcript").blocks[0].kind == "cue"
    # Forced to plain text, the file is read as it is.
    assert read(write(tmp_path, "raw.srt", SRT), file_type="text").file_type == "text"


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("00:00:01,000 -> 00:00:02,000", "malformed cue timing '00:00:01,000 -> 00:00:02,000'"),
        ("00:00:01,000 --> 00:00:0x,000", "malformed cue timing"),
        ("00:75:01,000 --> 00:75:02,000", "malformed cue timing"),
        ("00:00:05,000 --> 00:00:02,000", "ends (00:00:02,000) before it starts (00:00:05,000)"),
    ],
)
def test_a_bad_timing_line_is_an_error_naming_its_line(
    tmp_path: Path, line: str, says: str
) -> None:
    text = f"1\n00:00:00,500 --> 00:00:01,000\nFine.\n\n2\n{line}\nBroken.\n"
    message = error(write(tmp_path, "bad.srt", text))
    assert ":6:" in message and says in message, message
    assert "Fix" in message


def test_files_without_cues_are_errors_that_say_what_to_do(tmp_path: Path) -> None:
    assert "--type text" in error(write(tmp_path, "notes.srt", "Just some notes.\n"))
    only_sounds = "WEBVTT\n\n00:01.000 --> 00:02.000\n[Music]\n\n00:02.000 --> 00:03.000\n♪ ♪\n"
    assert "hold no text" in error(write(tmp_path, "music.vtt", only_sounds))
    headless = write(tmp_path, "headless.vtt", "00:01.000 --> 00:02.000\nHi.\n")
    assert read(headless).warnings == ["line 1: no 'WEBVTT' header; read as WebVTT anyway"]


def test_passages_are_whole_cues_cut_at_pauses_and_speakers(tmp_path: Path) -> None:
    document = read(write(tmp_path, "beavers.srt", SRT))
    chunked = chunk_document(document, ChunkingConfig())
    # The 14 s silence before the third cue starts a new passage.
    assert [(p.text, p.location) for p in chunked.passages] == [
        (
            "Beavers build dams across small streams. The pond keeps predators away & stores food.",
            {"start": "00:00:01", "end": "00:00:06", "cues": [1, 2]},
        ),
        ("After the break: otters.", _at("00:00:20", "00:00:22", 3)),
    ]
    assert location_label(chunked.passages[0].location) == "00:00:01–00:00:06"
    section = chunked.sections[0]
    assert (section.title, section.location["cues"]) == ("00:00:01–00:00:22", [1, 3])
    assert section.text == " ".join(block.text for block in document.blocks)

    # A short reply stays with its neighbours, each speaker's words opened by their name.
    rivers = chunk_document(read(write(tmp_path, "rivers.vtt", VTT)), ChunkingConfig())
    (passage,) = rivers.passages
    assert passage.text == (
        "Ann: Rivers carve valleys slowly. Bob: How slowly? Ann: Over thousands of years."
    )
    assert passage.location["speakers"] == ["Ann", "Bob"]
    assert location_label(passage.location) == "00:00:01–00:00:09 (Ann, Bob)"
    # The section, context for the passage, gives each speaker a paragraph.
    assert rivers.sections[0].text == (
        "Ann: Rivers carve valleys slowly.\n\nBob: How slowly?\n\nAnn: Over thousands of years."
    )


def test_long_talk_is_cut_between_cues_with_whole_cue_overlap(tmp_path: Path) -> None:
    sentence = "Rivers move sand and stones downstream every single day of the year"  # 13 tokens
    lines = ["WEBVTT", ""]
    for n in range(12):
        lines += [
            f"00:00:{n * 2:02d}.000 --> 00:00:{n * 2 + 2:02d}.000",
            f"<v Ann>{sentence} {n}",
            "",
        ]
    lines += ["00:00:24.000 --> 00:00:26.000", "<v Bob>Thank you.", ""]
    document = read(write(tmp_path, "long.vtt", "\n".join(lines)))
    chunked = chunk_document(document, ChunkingConfig(child_tokens=40, overlap_tokens=14))
    spans = [p.location["cues"] for p in chunked.passages]
    # Three cues per passage, each repeating the one before; Bob's reply after Ann's
    # long run starts its own passage, without overlap.
    assert spans == [[1, 3], [3, 5], [5, 7], [7, 9], [9, 11], [11, 12], [13, 13]]
    assert all(
        p.text.count(sentence) == p.location["cues"][1] - p.location["cues"][0] + 1
        for p in chunked.passages[:-1]
    )
    assert chunked.passages[-1].text == "Thank you."
    assert location_label(chunked.passages[-1].location) == "00:00:24–00:00:26 (Bob)"
    assert location_label(chunked.passages[0].location) == "00:00:00–00:00:06 (Ann)"


def _at(start: str, end: str, cue: int, speaker: str | None = None) -> dict[str, Any]:
    location: dict[str, Any] = {"start": start, "end": end, "cues": [cue, cue]}
    if speaker:
        location["speaker"] = speaker
    return location
