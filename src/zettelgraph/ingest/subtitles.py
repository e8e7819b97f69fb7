"""Subtitles and captions of a video, talk or meeting: SRT (.srt) and WebVTT (.vtt) files.

A cue is a timing line (`00:12:03,250 --> 00:12:05,900`; WebVTT writes a dot, may leave out
the hours and may put cue settings after it) and the lines shown then. Each cue becomes one
`cue` block, so the chunker packs whole cues into passages (a cue is never split) and starts a
new passage at a long pause or a change of speaker (`chunking.py`). A block's location is
`{"start": "00:12:03", "end": "00:12:05", "cues": [n, n], "speaker": "Ann"}`: times to the
second (rounded down), cues counted from 1 in file order; a passage covers first to last cue.

Dropped: cue numbers and identifiers, the WebVTT header, NOTE, STYLE and REGION blocks, cue
settings, markup (`<i>`, `<c.yellow>`, `<font ...>`, karaoke timestamps, `{\\an8}`), lines that
are only a sound description (`[Music]`, `(applause)`, `♪`), and the lines a cue repeats from
the cue before (rolling captions, as YouTube writes them, show every line twice; a cue that
only repeats the one before extends that cue's end instead).

Speakers: a WebVTT voice tag (`<v Ann>`), or a label opening a cue (`Ann: ...`, as Zoom
writes them; rule in `_label_speakers`). A cue without one continues the last speaker.

Parents (sections) are runs of about `GROUP_TOKENS` tokens, ended at a pause or a change of
speaker once they are three quarters full, titled by their time range. The Content's kind is
"transcript", as for chat transcripts (both are what people said); `metadata.format` ("srt"
or "webvtt") tells them apart. A timing line that cannot be read is an error naming its line.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from zettelgraph.ingest.parsed import Block, DocumentError, ParsedDocument
from zettelgraph.ingest.readers_text import GROUP_TOKENS, count_tokens
from zettelgraph.ingest.transcripts import STOP_LABELS

SUBTITLE_SUFFIXES = frozenset({".srt", ".vtt"})
PAUSE_SECONDS = 5  # silence longer than this between cues starts a new passage

_TIME = r"(?:(\d+):)?(\d{1,2}):(\d{1,2})(?:[.,](\d{1,3}))?"
_TIMING = re.compile(rf"^\s*{_TIME}[ \t]*-->[ \t]*{_TIME}(?:[ \t]+.*)?$")
# A line that starts like a cue timing (a clock with a fraction of a second) but lacks '-->'.
_CLOCK_LIKE = re.compile(r"^\s*(?:\d+:)?\d{1,2}:\d{2}[.,]\d")
_CLOCK = re.compile(r"^(\d{2,}):(\d{2}):(\d{2})$")
_VOICE = re.compile(r"<v(?:\.[^\s>]*)?[ \t]+([^>]*)>")
_TAG = re.compile(r"</?[A-Za-z0-9.:_-][^>\n]*>")
_ASS_CODE = re.compile(r"\{\\[^}]*\}")  # SSA/ASS overrides some SRT files carry: {\an8}
_SOUND_ONLY = re.compile(r"^(?:\[[^\]]*\]|\([^)]*\)|[♪♫#\s]+)$")
_LABEL = re.compile(r"^(?P<name>[^\W\d_][\w'’. -]{0,31}?):[ \t]+(?P<rest>\S.*)$")
_SKIPPED_BLOCKS = ("NOTE", "STYLE", "REGION")
_TIMING_HELP = (
    "expected 'start --> end' with times as HH:MM:SS,mmm (SRT) or HH:MM:SS.mmm (WebVTT), "
    "e.g. '00:01:02,500 --> 00:01:04,000'. Fix this line and ingest the file again"
)


def clock(milliseconds: int) -> str:
    """A time as a citation shows it: "00:12:03" (seconds rounded down)."""
    seconds = milliseconds // 1000
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def clock_seconds(value: object) -> int | None:
    """Seconds of a "00:12:03" time in a location; None for anything else."""
    match = _CLOCK.match(value) if isinstance(value, str) else None
    if match is None:
        return None
    return int(match[1]) * 3600 + int(match[2]) * 60 + int(match[3])


@dataclass
class _Cue:
    number: int  # 1-based, in file order
    start: int  # milliseconds
    end: int
    lines: list[str] = field(default_factory=list)
    speaker: str | None = None


def looks_like_subtitles(text: str) -> bool:
    """A WebVTT header, or a first cue (an optional number, then a timing line)."""
    head = [line.strip() for line in text.split("\n", 40)[:40] if line.strip()][:2]
    if not head:
        return False
    if head[0].startswith("WEBVTT"):
        return True
    if _TIMING.match(head[0]):
        return True
    return head[0].isdigit() and len(head) > 1 and bool(_TIMING.match(head[1]))


def read_subtitles(text: str, path: Path) -> ParsedDocument:
    """An SRT or WebVTT file (`text` decoded, '\\n' newlines) as one cue block per cue."""
    lines = [line.rstrip() for line in text.split("\n")]
    header = bool(lines) and lines[0].startswith("WEBVTT")
    webvtt = header or path.suffix.lower() == ".vtt"
    warnings: list[str] = []
    if webvtt and not header:
        warnings.append("line 1: no 'WEBVTT' header; read as WebVTT anyway")
    cues = _parse(lines, path, webvtt=webvtt, warnings=warnings)
    if not cues:
        raise DocumentError(
            "no subtitle cues found (a cue is a timing line such as '00:00:01,000 --> "
            "00:00:04,000' followed by its text). If it is plain text, read it with --type text",
            path=str(path),
        )
    kept = _label_speakers(_without_repeats(cues))
    if not kept:
        raise DocumentError(
            f"its {len(cues)} cue(s) hold no text (only markup or sound descriptions). Check "
            "that it is the file you meant",
            path=str(path),
        )
    # "WEBVTT - Lecture 3": what follows the signature on its line names the file.
    title = (lines[0][len("WEBVTT") :].strip(" \t-") or None) if header else None
    return ParsedDocument(
        path=str(path),
        file_type="transcript",
        title=title,
        metadata={"format": "webvtt" if webvtt else "srt", "duration": clock(kept[-1].end)},
        blocks=_blocks(kept),
        warnings=warnings,
    )


def _timing(line: str, number: int, path: Path) -> tuple[int, int]:
    match = _TIMING.match(line)
    parts = match.groups() if match else ()
    if match is None or any(int(v) >= 60 for v in (*parts[1:3], *parts[5:7])):
        raise DocumentError(
            f"malformed cue timing {line.strip()!r}: {_TIMING_HELP}", path=str(path), line=number
        )
    start, end = _milliseconds(parts[:4]), _milliseconds(parts[4:])
    if end < start:
        raise DocumentError(
            f"the cue ends ({line.split('-->')[1].split()[0]}) before it starts "
            f"({line.split('-->')[0].strip()}). Fix the times on this line and ingest the file "
            "again",
            path=str(path),
            line=number,
        )
    return start, end


def _milliseconds(parts: tuple[str | None, ...]) -> int:
    hours, minutes, seconds, fraction = parts
    whole = int(hours or 0) * 3600 + int(minutes or 0) * 60 + int(seconds or 0)
    return whole * 1000 + int((fraction or "0").ljust(3, "0"))


def _parse(lines: list[str], path: Path, *, webvtt: bool, warnings: list[str]) -> list[_Cue]:
    """The cues in file order, with their raw text lines.

    States: in the WebVTT header, in a skipped block (NOTE, STYLE, REGION), in a cue's text
    (until an empty line), or between cues. A line between cues is a cue's identifier when
    it directly follows an empty line (or is a number) and precedes the timing; any other is
    text of the cue before, since files put empty lines, or lines of spaces, inside a cue
    (YouTube's captions do).
    """
    cues: list[_Cue] = []
    state = "header" if lines and lines[0].startswith("WEBVTT") else "between"
    loose: list[tuple[int, str]] = []  # (line number, text) between cues since an empty line

    def keep_loose() -> None:
        for number, line in loose:
            if cues:
                cues[-1].lines.append(line)
            else:
                warnings.append(f"line {number}: text before the first cue; skipped")
        loose.clear()

    for number, line in enumerate(lines, 1):
        timing = "-->" in line and (state != "cue" or line.lstrip()[:1].isdigit())
        if timing:
            start, end = _timing(line, number, path)
            if state == "cue" and cues[-1].lines and cues[-1].lines[-1].strip().isdigit():
                cues[-1].lines.pop()  # the number of a cue with no empty line before it
            if loose and (loose[-1][1].strip().isdigit() or len(loose) == 1):
                loose.pop()  # the cue's number or identifier
            keep_loose()
            cues.append(_Cue(number=len(cues) + 1, start=start, end=end))
            state = "cue"
        elif not line:
            keep_loose()
            state = "between"
        elif state == "cue":
            cues[-1].lines.append(line)
        elif state == "between":
            if webvtt and not loose and line.split(" ", 1)[0] in _SKIPPED_BLOCKS:
                state = "skipped"
            elif _CLOCK_LIKE.match(line):
                raise DocumentError(
                    f"malformed cue timing {line.strip()!r}: {_TIMING_HELP}",
                    path=str(path),
                    line=number,
                )
            else:
                loose.append((number, line))
    keep_loose()
    return cues


def _clean(cue: _Cue) -> list[str]:
    """A cue's lines without markup and sound descriptions; sets the cue's voice speaker."""

    def voice(match: re.Match[str]) -> str:
        name = " ".join(match[1].split())
        if cue.speaker is None and name:
            cue.speaker = name
            return ""
        return "" if name in ("", cue.speaker) else f"{name}: "  # a second voice, inline

    out: list[str] = []
    for line in cue.lines:
        text = _TAG.sub("", _VOICE.sub(voice, line))
        text = " ".join(html.unescape(_ASS_CODE.sub("", text)).split())
        # Broadcast captions open a new speaker's words with '>>' (without a name).
        text = text.removeprefix(">>").strip()
        if text and not _SOUND_ONLY.match(text):
            out.append(text)
    return out


def _without_repeats(cues: list[_Cue]) -> list[_Cue]:
    """Cues with the lines they repeat from the cue before removed (rolling captions)."""
    kept: list[_Cue] = []
    previous: list[str] = []
    for cue in cues:
        lines = _clean(cue)
        overlap = max(
            (k for k in range(1, min(len(lines), len(previous)) + 1) if lines[:k] == previous[-k:]),
            default=0,
        )
        previous = lines
        cue.lines = lines[overlap:]
        if cue.lines:
            kept.append(cue)
        elif overlap and kept:
            kept[-1].end = max(kept[-1].end, cue.end)  # the same words stay on screen longer
    return kept


def _label_speakers(cues: list[_Cue]) -> list[_Cue]:
    """Speakers from labels opening cues ('Ann: ...'), then carried to unlabelled cues.

    A label is a capitalised name of at most three words, not a common label ("Note"), that
    opens at least two cues; and labels must open a tenth of the cues, so a talk in which
    "Now: ..." opens two cues of hundreds does not get a speaker called "Now".
    """
    found = [_LABEL.match(cue.lines[0]) for cue in cues]
    counts = Counter(match["name"].strip() for match in found if match)
    names = {
        name
        for name, count in counts.items()
        if count >= 2
        and name[:1].isupper()
        and len(name.split()) <= 3
        and name.casefold() not in STOP_LABELS
    }
    if sum(counts[name] for name in names) * 10 < len(cues):
        names = set()
    speaker: str | None = None
    for cue, match in zip(cues, found, strict=True):
        if match and match["name"].strip() in names:
            cue.lines[0] = match["rest"]
            cue.speaker = cue.speaker or match["name"].strip()
        speaker = cue.speaker = cue.speaker or speaker
    return cues


def _blocks(cues: list[_Cue]) -> list[Block]:
    """One block per cue, grouped into parents (rule in the module docstring)."""
    groups: list[list[tuple[_Cue, str]]] = []
    size = 0
    for cue in cues:
        text = " ".join(cue.lines)
        tokens = count_tokens(text)
        if groups:
            before = groups[-1][-1][0]
            turn = before.speaker != cue.speaker or cue.start - before.end > PAUSE_SECONDS * 1000
            if size + tokens > GROUP_TOKENS or (turn and size >= GROUP_TOKENS * 3 // 4):
                groups.append([])
                size = 0
        else:
            groups.append([])
        groups[-1].append((cue, text))
        size += tokens
    blocks: list[Block] = []
    for group in groups:
        first = group[0][0]
        title = f"{clock(first.start)}–{clock(max(cue.end for cue, _ in group))}"
        for cue, text in group:
            location: dict[str, object] = {
                "start": clock(cue.start),
                "end": clock(cue.end),
                "cues": [cue.number, cue.number],
            }
            if cue.speaker:
                location["speaker"] = cue.speaker
            blocks.append(
                Block(
                    text=text,
                    location=location,
                    group=f"cues-{first.number}",
                    group_title=title,
                    kind="cue",
                )
            )
    return blocks
