"""The vault on disk: where each concept's note lives and how it is written.

Notes are found by the `entity_id` in their front matter, not by file name, so a person may
rename or move a note inside `08 - Ideas/` and zettelgraph still updates that file. New notes
get a file name that is safe on Windows, macOS, Linux and in Obsidian links; two concepts
with the same title get `Title.md` and `Title (2).md`. Writes are atomic (temporary file in
the same folder, fsync, rename), so a crash never leaves half a note behind.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import re
import secrets
import stat
import unicodedata
from pathlib import Path

from zettelgraph.models import Concept
from zettelgraph.models.labels import labels_for
from zettelgraph.packs.relations import DEFAULT_VOCABULARY, RelationVocabulary
from zettelgraph.system.processes import alive
from zettelgraph.vault.notes import (
    ConceptNote,
    NoteFormatError,
    SourceQuote,
    parse_note,
    render_concept_note,
    update_concept_note,
)
from zettelgraph.vault.report import NotesReport

IDEAS_DIR = "08 - Ideas"
# One note per book (any source) a concept cites, and one per author, beside the Zettels.
SOURCES_DIR = "06 - Sources"
AUTHORS_DIR = "07 - Authors"
TEMP_PREFIX = ".zettelgraph-"
_TEMP_NAME = re.compile(r"\.zettelgraph-(?:(\d+)-)?[0-9a-f]+\.tmp")
UNTITLED = "Sin título"
MAX_NAME_CHARS = 120
# ext4/APFS allow 255 bytes per name; leave room for " (NN).md" on multi-byte titles.
MAX_NAME_BYTES = 180
_SCAN_BYTES = 256 * 1024  # front matter is at the top; never read a huge file whole

# Not allowed in file names on some OS (\ / : * ? " < > |) or they break an Obsidian link.
_ILLEGAL = frozenset('\\/:*?"<>|#^[]')
# Bidirectional overrides can make a name display differently from what it is.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]  # the last two: the console's own
    + [f"{port}{n}" for port in ("COM", "LPT") for n in [*"123456789", "¹", "²", "³"]]
)
_ENTITY_ID_LINE = re.compile(r"""^entity_id:[ \t]*['"]?([^'"\s#]+)""", re.MULTILINE)


class VaultError(Exception):
    """A note would be written outside the vault."""


def safe_note_name(title: str) -> str:
    """A file stem for `title` that is valid on every OS and inside an Obsidian wikilink.

    NFC-normalised; path separators, characters Windows or Obsidian forbid, control and bidi
    characters become spaces; spaces collapse; no leading/trailing dots or spaces (so no
    `..` and no hidden files); at most MAX_NAME_CHARS characters, cut on a word boundary;
    Windows reserved device names get a `_`; never empty.
    """
    cleaned = [
        " "
        if ch in _ILLEGAL or ch in _BIDI or unicodedata.category(ch) in ("Cc", "Zl", "Zp")
        else ch
        for ch in unicodedata.normalize("NFC", title)
    ]
    name = _shorten(" ".join("".join(cleaned).split()).strip(". "))
    name = unicodedata.normalize("NFC", name) or UNTITLED
    base, dot, rest = name.partition(".")
    if base.rstrip().upper() in _RESERVED:
        # Windows refuses "CON", "con.txt" and "Com1.md" whatever follows the first dot.
        name = f"{base.rstrip()}_{dot}{rest}"
    return name


def _shorten(name: str) -> str:
    if len(name) <= MAX_NAME_CHARS and len(name.encode("utf-8")) <= MAX_NAME_BYTES:
        return name
    cut = name[:MAX_NAME_CHARS]
    while len(cut.encode("utf-8")) > MAX_NAME_BYTES:
        cut = cut[:-1]
    space = cut.rfind(" ")
    if name[len(cut)] != " " and space > len(cut) // 2:
        cut = cut[:space]  # whole words read better, unless that loses half the name
    # A dangling joiner or punctuation at the cut looks like a mistake.
    return cut.rstrip(" .,;-–—\u200d")


class Vault:
    """An Obsidian vault; concept notes live in `08 - Ideas/`, their headings in `language`.

    `folder` names another folder of notes found by their `entity_id` (the entity notes of a
    pack, `vault/entities.py`; the book and author notes, `folder_vault`); `ideas` is then
    that folder.
    """

    def __init__(
        self,
        root: Path,
        vocabulary: RelationVocabulary = DEFAULT_VOCABULARY,
        *,
        folder: str = IDEAS_DIR,
        language: str = "es",
    ) -> None:
        self.root = Path(root).expanduser()
        self.vocabulary = vocabulary
        self.folder = folder
        self.language = language
        self.labels = labels_for(language)
        self._folders: dict[str, Vault] = {}
        self._index: dict[str, Path] | None = None  # concept id -> its note on disk
        self._reserved: dict[str, Path] = {}  # concept id -> name chosen, not written yet
        self._owners: dict[str, str] = {}  # case-folded path -> concept id that uses it

    @property
    def ideas(self) -> Path:
        """The folder of concept notes (or of the notes `folder` names)."""
        return self.root / self.folder

    def folder_vault(self, folder: str) -> Vault:
        """The notes of another folder of this vault (`SOURCES_DIR`, `AUTHORS_DIR`)."""
        if folder not in self._folders:
            self._folders[folder] = Vault(
                self.root, self.vocabulary, folder=folder, language=self.language
            )
        return self._folders[folder]

    def link_to(self, node_id: str, title: str) -> str:
        """The note of `node_id` as a link names it: its path in the vault without `.md`."""
        return self.path_for(node_id, title).relative_to(self.root).with_suffix("").as_posix()

    def stray_temp_files(self) -> list[Path]:
        """Temporary files of note writes whose process died before renaming them (a kill or
        a power cut mid-write). A write in progress in a live process is not one."""
        return stray_temp_files(self.ideas)

    def tidy(self, report: NotesReport, kind: str, *, check: bool = False) -> None:
        """Remove the `stray_temp_files` (with `check`, only list them) into `report`, as
        `kind`; one that cannot be removed is an error of the report."""
        for temp in self.stray_temp_files():
            if not check:
                try:
                    temp.unlink(missing_ok=True)
                except OSError as exc:
                    error = f"not removed: {exc}"
                    report.errors.append({"kind": kind, "path": str(temp), "error": error})
                    continue
            report.temp_files.append({"kind": kind, "path": str(temp)})

    # --- finding notes -------------------------------------------------------------------
    def find_note(self, concept_id: str) -> Path | None:
        """The note whose front matter `entity_id` is `concept_id`, or None."""
        index = self._load_index()
        path = index.get(concept_id)
        if path is not None and not path.is_file():
            # Deleted or replaced since the scan: the concept has no note any more.
            del index[concept_id]
            self._owners.pop(self._key(path), None)
            return None
        return path

    def _load_index(self) -> dict[str, Path]:
        if self._index is None:
            self._index = {}
            for path in self._markdown_files():
                entity_id = _entity_id_of(path)
                # Two files with one id (a copied note): the first in path order wins.
                if entity_id is not None and entity_id not in self._index:
                    self._index[entity_id] = path
                    self._owners[self._key(path)] = entity_id
        return self._index

    def _markdown_files(self) -> list[Path]:
        found: list[Path] = []
        # os.walk does not follow symlinked folders, so the scan stays inside the vault.
        for folder, dirs, files in os.walk(self.ideas):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))  # .obsidian, .trash
            found.extend(
                Path(folder) / name
                for name in sorted(files)
                if name.endswith(".md") and not name.startswith(".")
            )
        return [path for path in found if path.is_file()]

    def _key(self, path: Path) -> str:
        return str(path.relative_to(self.ideas)).casefold()

    # --- choosing paths ------------------------------------------------------------------
    def note_path(self, concept: Concept) -> Path:
        """Where `concept`'s note is or will be written.

        Its existing note wherever it is under `08 - Ideas/`; else `08 - Ideas/<safe title>.md`,
        or `<safe title> (2).md`, `(3)`, ... when that name belongs to another note. A
        directory in the way is not skipped: writing there fails and is reported.
        """
        return self.path_for(concept.id, concept.title)

    def path_for(self, concept_id: str, title: str) -> Path:
        """Where the note whose `entity_id` is `concept_id` is or will be (see `note_path`)."""
        found = self.find_note(concept_id)
        if found is not None:
            return found
        if concept_id in self._reserved:
            return self._reserved[concept_id]
        stem = safe_note_name(title)
        for number in itertools.count(1):
            name = f"{stem}.md" if number == 1 else f"{stem} ({number}).md"
            path = self.ideas / name
            owner = self._owners.get(self._key(path))
            if owner == concept_id or (owner is None and not _other_file(path)):
                break
        self.check_inside(path)
        self._reserved[concept_id] = path
        self._owners[self._key(path)] = concept_id
        return path

    def check_inside(self, path: Path) -> None:
        """Raise VaultError when `path` (its folder's symlinks resolved) leaves the vault."""
        root = self.root.resolve()
        target = path.parent.resolve() / path.name
        if path.name in ("", ".", "..") or not target.is_relative_to(root):
            raise VaultError(f"refusing to write {path}: it is outside the vault {root}")

    def with_note_names(self, note: ConceptNote) -> ConceptNote:
        """`note` with its own file stem, every linked concept's `note_name` and the paths of
        its books' and authors' notes filled in."""
        relations = {
            kind: [
                dataclasses.replace(target, note_name=self.path_for(target.id, target.title).stem)
                for target in targets
            ]
            for kind, targets in note.relations.items()
        }
        return dataclasses.replace(
            note,
            relations=relations,
            sources=self.linked_sources(note.sources),
            note_name=self.note_path(note.concept).stem,
        )

    def linked_sources(self, sources: list[SourceQuote]) -> list[SourceQuote]:
        """`sources` with the paths of their books' and authors' notes filled in."""
        books, authors = self.folder_vault(SOURCES_DIR), self.folder_vault(AUTHORS_DIR)
        return [
            dataclasses.replace(
                source,
                content_note=books.link_to(source.content_id, source.content_title)
                if source.content_id
                else None,
                author_note=authors.link_to(source.author_id, source.author)
                if source.author_id and source.author
                else None,
            )
            for source in sources
        ]

    # --- reading and writing -------------------------------------------------------------
    def read_note(self, path: Path) -> str:
        """A note's text exactly as stored (line endings kept)."""
        with path.open(encoding="utf-8", newline="") as handle:
            return handle.read()

    def write_note(self, note: ConceptNote) -> Path:
        """Write a new note, or update the owned parts of the existing one; return its path.

        Nothing is written when the update changes nothing. Raises OSError when the file
        cannot be written, NoteFormatError when the existing note's front matter is broken,
        VaultError when the path would leave the vault.
        """
        path = self.note_path(note.concept)
        self.check_inside(path)
        linked = self.with_note_names(note)
        if self.find_note(note.concept.id) is not None:
            existing = self.read_note(path)
            text = update_concept_note(existing, linked, self.vocabulary, self.labels)
            if text == existing:
                return path
        else:
            text = render_concept_note(linked, self.vocabulary, self.labels)
        atomic_write(path, text)
        self.remember(note.concept.id, path)
        return path

    def remember(self, concept_id: str, path: Path) -> None:
        """Record that the note of `concept_id` was just written at `path`."""
        self._reserved.pop(concept_id, None)
        self._load_index()[concept_id] = path
        self._owners[self._key(path)] = concept_id


def _other_file(path: Path) -> bool:
    """A file (or link) at `path` that is not indexed, so it is not one of our notes."""
    return path.is_file() or path.is_symlink()


def _entity_id_of(path: Path) -> str | None:
    try:
        with path.open(encoding="utf-8", errors="replace", newline="") as handle:
            head = handle.read(_SCAN_BYTES)
    except OSError:
        return None
    try:
        value = parse_note(head)[0].get("entity_id")
    except NoteFormatError:
        # Broken YAML in one of our notes: still recognise it, so sync reports the note
        # instead of writing a duplicate next to it.
        front = head.split("\n---", 1)[0] if head.startswith("---") else ""
        match = _ENTITY_ID_LINE.search(front)
        value = match.group(1) if match else None
    return str(value) if value not in (None, "") else None


def stray_temp_files(folder: Path) -> list[Path]:
    """The temporary files `atomic_write` left in `folder` (and below) in processes that died
    before renaming them (a kill or a power cut mid-write); a live process's are not."""
    if not folder.is_dir():
        return []
    stray = []
    for path in sorted(folder.rglob(f"{TEMP_PREFIX}*.tmp")):
        match = _TEMP_NAME.fullmatch(path.name)
        if match is None:
            continue
        pid = int(match.group(1)) if match.group(1) else None  # older names had no pid
        if pid is None or (pid != os.getpid() and not alive(pid)):
            stray.append(path)
    return stray


def remove_stray_temp_files(folder: Path) -> None:
    """Remove what writes killed mid-way left in `folder`: a step that writes there again
    after a kill (a resumed run) leaves it as an uninterrupted one would."""
    for path in stray_temp_files(folder):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def atomic_write(path: Path, data: str | bytes, *, mode: int | None = None) -> None:
    """Replace `path` with `data` (text is written as UTF-8) so that a reader, or a crash, sees
    the old file or the new one, never half of one: a hidden temporary file in the same
    folder, flushed to disk, renamed over `path`. Creates missing folders; keeps an existing
    file's permissions, unless `mode` is given: then the file has it from its first byte (a
    secret is never readable by others, not even for a moment)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = stat.S_IMODE(path.stat().st_mode) if mode is None and path.is_file() else None
    # A hidden name Obsidian ignores, short enough for any title length; the writer's process
    # id in it tells `vault sync` which leftovers belong to a process that died mid-write.
    temp = path.parent / f"{TEMP_PREFIX}{os.getpid()}-{secrets.token_hex(8)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    try:
        # 0o666 through the umask: a new note gets the same rights as any file the user makes.
        with os.fdopen(os.open(temp, flags, 0o666 if mode is None else mode), "wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
            handle.flush()
            os.fsync(handle.fileno())
        if kept is not None:
            temp.chmod(kept)
        temp.replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    _fsync_folder(path.parent)


def _fsync_folder(folder: Path) -> None:
    # Makes the rename itself durable on POSIX; Windows cannot open folders, nothing to do.
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
