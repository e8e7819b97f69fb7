"""Hierarchical chunking: a parsed document -> parent sections and child passages.

Parents are what a reader would call a unit: a section under its heading, a slide (or slides
that continue one another), a chat exchange, a module or class. They are kept whole, for
context. Children are the passages: about `child_tokens` tokens, cut at sentence ends, with
up to `overlap_tokens` of the previous passage repeated at the start so an idea that
straddles a cut is whole in at least one passage. Children are what gets embedded, searched,
cited and read by concept extraction.

Where the cut may fall depends on the block kind:
- prose (`text`): a passage may run across paragraphs of the same parent, but not across a
  page or slide, so a citation names one page;
- speaker notes (`notes`) and chat turns (`turn`): a passage stays inside its block, so a
  citation names one slide's notes or one speaker;
- code (`code`): a definition is one passage; a definition too long for one is cut at lines;
- subtitle cues (`cue`): whole cues are packed (a cue is never split, the overlap is whole
  cues); a pause of over `PAUSE_SECONDS` starts a new passage, and so does a change of
  speaker once the passage holds a quarter of `child_tokens` (a short "Yes." stays with its
  neighbours, each speaker's words then opened by "Name: ").

A passage that runs across headings keeps the first heading path and records the last as
`heading_path_end` (`merge_locations`), so "3.1 Setup" into "3.2 Usage" is cited as both.

Tokens are counted as words and punctuation marks (`\\w+|[^\\w\\s]`): close to what
subword tokenisers give for prose, needs no model, and is the same on every machine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from zettelgraph.ingest.parsed import Block, ParsedDocument
from zettelgraph.ingest.subtitles import PAUSE_SECONDS, clock_seconds
from zettelgraph.models.locations import merge_locations, picture_label

_TOKEN = re.compile(r"\w+|[^\w\s]")
# A sentence ends at . ! ? or … (with closing quotes/brackets) before a space and a capital,
# a digit, an opening mark or a dash; abbreviations below do not end one.
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"'»”’)\]]*\s+(?=[¿¡\"'«“‘(\[—–-]?[\w])")
_ABBREVIATIONS = frozenset(
    [
        *("sr", "sra", "srta", "dr", "dra", "lic", "ing", "prof", "etc", "p", "pp", "pág"),
        *("págs", "cap", "vol", "núm", "no", "fig", "ej", "eg", "ie", "vs", "cf", "mr"),
        *("mrs", "ms", "st", "jr", "approx", "ed", "eds", "al", "art"),
    ]
)


# The design document's 20%: on XQuAD-es it beat 12.5% (32 of 256) on R@1 and MRR for every
# recipe (docs/design.md, "Documents").
OVERLAP_SHARE = 0.2


def count_tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


@dataclass(frozen=True)
class ChunkingConfig:
    child_tokens: int = 256
    # None: OVERLAP_SHARE of child_tokens (51 of 256).
    overlap_tokens: int | None = None
    # A parent larger than this is split at block boundaries into several parents.
    max_parent_tokens: int = 2048

    def __post_init__(self) -> None:
        if self.child_tokens < 16:
            raise ValueError("child_tokens must be at least 16")
        if not 0 <= self.overlap < self.child_tokens:
            raise ValueError("overlap_tokens must be between 0 and child_tokens - 1")
        if self.max_parent_tokens < self.child_tokens:
            raise ValueError("max_parent_tokens must be at least child_tokens")

    @property
    def overlap(self) -> int:
        """The tokens a passage may repeat: `overlap_tokens`, or OVERLAP_SHARE of a passage."""
        if self.overlap_tokens is None:
            return round(self.child_tokens * OVERLAP_SHARE)
        return self.overlap_tokens


@dataclass
class ChunkedSection:
    """A parent chunk: its title, whole text and the location it covers."""

    title: str
    text: str
    location: dict[str, Any]
    kind: str


@dataclass
class ChunkedPassage:
    """A child chunk: the text to embed and cite, its location, its parent's index."""

    text: str
    location: dict[str, Any]
    section: int
    # The pictures its OCR text was read from (`picture_label`), in reading order.
    images: list[str] = field(default_factory=list)


@dataclass
class ChunkedDocument:
    sections: list[ChunkedSection] = field(default_factory=list)
    passages: list[ChunkedPassage] = field(default_factory=list)


def split_sentences(text: str) -> list[str]:
    """Sentences of a paragraph, trimmed; abbreviations ("Sr.", "p.", "J.") do not end one."""
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        candidate = text[start : match.start()].rstrip()
        last_word = re.search(r"(\w+)\W*$", candidate)
        if last_word and (
            last_word.group(1).casefold() in _ABBREVIATIONS
            or (len(last_word.group(1)) == 1 and last_word.group(1).isupper())
        ):
            continue
        pieces.append(candidate)
        start = match.end()
    pieces.append(text[start:].strip())
    return [p for p in (" ".join(piece.split()) for piece in pieces) if p]


def _split_long(sentence: str, limit: int) -> list[str]:
    """A sentence over the limit is cut between words (a table row, a run-on list)."""
    words = sentence.split()
    out: list[str] = []
    current: list[str] = []
    size = 0
    for word in words:
        tokens = count_tokens(word)
        if current and size + tokens > limit:
            out.append(" ".join(current))
            current, size = [], 0
        current.append(word)
        size += tokens
    if current:
        out.append(" ".join(current))
    return out


def _code_pieces(
    text: str, location: dict[str, Any], limit: int
) -> Iterator[tuple[str, dict[str, Any]]]:
    """A code block whole, or in runs of lines of at most `limit` tokens (2x for code: a
    function split in half is worth less than a longer passage)."""
    if count_tokens(text) <= 2 * limit:
        yield text, location
        return
    lines = text.split("\n")
    first = location.get("line_start")
    start = 0
    size = 0
    for i, line in enumerate(lines):
        tokens = count_tokens(line)
        if i > start and size + tokens > 2 * limit:
            yield _line_piece(lines, start, i, location, first)
            start, size = i, 0
        size += tokens
    yield _line_piece(lines, start, len(lines), location, first)


def _line_piece(
    lines: list[str], start: int, stop: int, location: dict[str, Any], first: int | None
) -> tuple[str, dict[str, Any]]:
    piece = dict(location)
    if first is not None:
        piece.update(line_start=first + start, line_end=first + stop - 1)
    return "\n".join(lines[start:stop]).strip("\n"), piece


_Unit = tuple[str, int, dict[str, Any]]  # (sentence or cue, tokens, location)


class _Packer:
    """Packs sentences (or cues) into passages of about `limit` tokens with overlap."""

    def __init__(
        self,
        config: ChunkingConfig,
        section: int,
        out: list[ChunkedPassage],
        render: Callable[[list[_Unit]], str] | None = None,
    ):
        self.config = config
        self.section = section
        self.out = out
        self.render = render
        self.units: list[_Unit] = []
        self.size = 0
        self.fresh = 0  # units added since the last passage was emitted

    def add(self, sentence: str, location: dict[str, Any]) -> None:
        tokens = count_tokens(sentence)
        if self.units and self.size + tokens > self.config.child_tokens:
            self._emit()
            self._keep_overlap(tokens)
        self.units.append((sentence, tokens, location))
        self.size += tokens
        self.fresh += 1

    def _keep_overlap(self, incoming: int) -> None:
        kept: list[_Unit] = []
        size = 0
        budget = min(self.config.overlap, self.config.child_tokens - incoming)
        for unit in reversed(self.units):
            if size + unit[1] > budget:
                break
            kept.insert(0, unit)
            size += unit[1]
        self.units, self.size = kept, size

    def _emit(self) -> None:
        if self.fresh == 0:
            return
        text = self.render(self.units) if self.render else " ".join(u[0] for u in self.units)
        locations = [unit[2] for unit in self.units]
        pictures = (picture_label(location) for location in locations)
        self.out.append(
            ChunkedPassage(
                text=text,
                location=merge_locations(locations),
                section=self.section,
                images=list(dict.fromkeys(p for p in pictures if p)),
            )
        )
        self.fresh = 0

    def flush(self) -> None:
        self._emit()
        self.units, self.size = [], 0


def _location(block: Block) -> dict[str, Any]:
    plain = block.kind in ("text", "code", "cue")
    return block.location if plain else {**block.location, "kind": block.kind}


def _cue_text(units: list[_Unit], turn: str = " ") -> str:
    """Cues joined; when several people speak, each one's words open with "Name: " (after
    `turn`: a paragraph break in a section's text)."""
    speakers = {unit[2].get("speaker") for unit in units} - {None}
    if len(speakers) < 2:
        return " ".join(unit[0] for unit in units)
    out = ""
    previous: object = None
    for text, _, location in units:
        speaker = location.get("speaker")
        if speaker and speaker != previous:
            out += f"{turn if out else ''}{speaker}: {text}"
        else:
            out += f" {text}" if out else text
        previous = speaker
    return out


def _cue_break(before: Block, cue: Block, size: int, config: ChunkingConfig) -> bool:
    """Whether `cue` starts a new passage after `before` (rule in the module docstring)."""
    end, start = clock_seconds(before.location.get("end")), clock_seconds(cue.location.get("start"))
    if end is not None and start is not None and start - end > PAUSE_SECONDS:
        return True
    speaker_changed = before.location.get("speaker") != cue.location.get("speaker")
    return speaker_changed and size >= config.child_tokens // 4


def _parents(document: ParsedDocument, config: ChunkingConfig) -> list[list[Block]]:
    """Consecutive blocks of one group, split at block boundaries when too large."""
    groups: list[list[Block]] = []
    for block in document.blocks:
        if groups and groups[-1][0].group == block.group:
            groups[-1].append(block)
        else:
            groups.append([block])
    parents: list[list[Block]] = []
    for group in groups:
        current: list[Block] = []
        size = 0
        for block in group:
            tokens = count_tokens(block.text)
            if current and size + tokens > config.max_parent_tokens:
                parents.append(current)
                current, size = [], 0
            current.append(block)
            size += tokens
        parents.append(current)
    return parents


def chunk_document(document: ParsedDocument, config: ChunkingConfig) -> ChunkedDocument:
    """Parents and children of a parsed document, in reading order."""
    out = ChunkedDocument()
    for blocks in _parents(document, config):
        index = len(out.sections)
        title = blocks[0].group_title
        cues = blocks[0].kind == "cue"
        text = "\n\n".join(block.text for block in blocks)
        if cues:  # a section of a transcript is a paragraph per speaker, not per cue
            text = _cue_text([(block.text, 0, block.location) for block in blocks], "\n\n")
        out.sections.append(
            ChunkedSection(
                title=title,
                text=text,
                location=merge_locations([block.location for block in blocks]),
                kind=blocks[0].kind,
            )
        )
        packer = _Packer(config, index, out.passages, _cue_text if cues else None)
        place: tuple[object, object] | None = None
        previous: Block | None = None
        for block in blocks:
            location = _location(block)
            if block.kind == "cue":
                if previous is not None and _cue_break(previous, block, packer.size, config):
                    packer.flush()
                packer.add(block.text, location)  # whole: a cue is never split
                previous = block
                continue
            if (block.location.get("page"), block.location.get("slide")) != place:
                packer.flush()
                place = (block.location.get("page"), block.location.get("slide"))
            if block.kind == "code":
                packer.flush()
                for code, where in _code_pieces(block.text, location, config.child_tokens):
                    out.passages.append(ChunkedPassage(text=code, location=where, section=index))
                continue
            if block.kind != "text":
                packer.flush()  # notes and turns start their own passages
            for paragraph in re.split(r"\n\s*\n", block.text):
                for sentence in split_sentences(paragraph):
                    for piece in _split_long(sentence, config.child_tokens):
                        packer.add(piece, location)
            if block.kind != "text":
                packer.flush()
        packer.flush()
    return out
