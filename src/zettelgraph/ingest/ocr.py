"""Text in images, read by Tesseract OCR: image files, scanned PDF pages, pictures in slides
and Word files.

Tesseract runs as a program (`tesseract IMAGE stdout tsv`), not through a binding: its TSV
output gives each word with its box and confidence, which is all we need, and a subprocess
can be given a timeout. Words are grouped into lines and paragraphs as Tesseract found them;
a paragraph becomes one block whose location says where it is in the image (`region`, in
pixels: x, y, width, height), that OCR read it (`ocr`) and how sure it was (`confidence`,
0-100). Lines Tesseract is unsure of (photos, drawings, noise) are dropped, so a picture
without text gives nothing rather than junk.

The same image and settings give the same text: Tesseract is deterministic, and the image
is prepared (upright, grey, scaled) the same way each time (`images.py`, which also keeps
an image within its memory budget).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PIL import Image

from zettelgraph.ingest.images import open_image, prepare, reason
from zettelgraph.ingest.parsed import Block

if TYPE_CHECKING:
    from zettelgraph.settings import Settings

INSTALL_HINT = (
    "Install Tesseract with the Spanish and English data: `sudo apt-get install tesseract-ocr "
    "tesseract-ocr-spa tesseract-ocr-eng` (Debian, Ubuntu), `brew install tesseract "
    "tesseract-lang` (macOS), or the installer from https://github.com/UB-Mannheim/tesseract/wiki "
    "(Windows; then set ZETTELGRAPH_TESSERACT to the tesseract.exe it installed)"
)
# A line whose words Tesseract is on average less sure of than this is noise (a photo, a
# drawing, a smudge): on printed text its confidence is above 85, on noise mostly below 40.
MIN_CONFIDENCE = 50.0
# Smaller than this cannot hold a readable word (bullets, icons, rules).
MIN_SIDE = (24, 12)
OCR_SECONDS = 120.0  # per image: a scanned page takes 2-5 s
_HYPHEN_END = re.compile(r"[^\W\d_][-\u00ad]$")


class OcrUnavailableError(Exception):
    """Tesseract cannot run here (not installed, wrong path, missing language data): every
    image would fail the same way. The message says how to fix it."""


class OcrError(Exception):
    """Tesseract could not read one image (it failed or took too long); an image that cannot
    be decoded, or is too large, is an `images.ImageReadError`."""


@dataclass(frozen=True)
class OcrConfig:
    """Which Tesseract to run and with which languages (`ZETTELGRAPH_TESSERACT`,
    `ZETTELGRAPH_OCR_LANGUAGES`)."""

    tesseract: str | None = None  # a path or a program name; None: `tesseract` on PATH
    languages: str = "spa+eng"
    seconds: float = OCR_SECONDS


def ocr_config(settings: Settings) -> OcrConfig:
    return OcrConfig(tesseract=settings.tesseract, languages=settings.ocr_languages)


@dataclass(frozen=True)
class TextRegion:
    """A paragraph Tesseract read: its text, box (x, y, width, height) and mean confidence."""

    text: str
    box: tuple[int, int, int, int]
    confidence: int

    def location(self) -> dict[str, Any]:
        return {"ocr": True, "region": list(self.box), "confidence": self.confidence}


@dataclass
class Ocr:
    """The OCR of one document: finds Tesseract once, reads each distinct picture once, and
    remembers what went wrong for the document's warnings."""

    config: OcrConfig = field(default_factory=OcrConfig)
    warnings: list[str] = field(default_factory=list, init=False)
    # Set once Tesseract turned out to be unusable; `skipped` pictures were not read then.
    missing: OcrUnavailableError | None = field(default=None, init=False)
    skipped: int = field(default=0, init=False)
    seconds: float = field(default=0.0, init=False)  # in Tesseract: reader time limits leave it out
    _program: str | None = field(default=None, init=False, repr=False)
    _seen: set[str] = field(default_factory=set, init=False, repr=False)

    def program(self) -> str:
        """The Tesseract to run, checked once: it runs and has the configured languages."""
        if self._program is None:
            program = find_tesseract(self.config.tesseract)
            _check_languages(program, self.config.languages)
            self._program = program
        return self._program

    def regions(self, image: Image.Image) -> list[TextRegion]:
        """The paragraphs of text in an image, in reading order; [] for a tiny image or one
        without text."""
        program = self.program()
        if image.width < MIN_SIDE[0] or image.height < MIN_SIDE[1]:
            return []
        png, scale = prepare(image)
        started = time.monotonic()
        try:
            done = subprocess.run(
                [program, "stdin", "stdout", "-l", self.config.languages, "--psm", "3", "tsv"],
                input=png,
                capture_output=True,
                timeout=self.config.seconds,
                check=False,
                # One thread: Tesseract's OpenMP threads make a page 2-3 times slower on a
                # laptop's few cores, and one page at a time is what we run.
                env={**os.environ, "OMP_THREAD_LIMIT": "1"},
            )
        except subprocess.TimeoutExpired as exc:
            raise OcrError(f"OCR took more than {self.config.seconds:.0f} s") from exc
        except OSError as exc:
            raise OcrUnavailableError(f"Tesseract ({program}) could not be run: {exc}") from exc
        finally:
            self.seconds += time.monotonic() - started
        if done.returncode != 0:
            detail = _last_line(done.stderr) or f"exit status {done.returncode}"
            raise OcrError(f"Tesseract could not read it: {detail}")
        return parse_tsv(done.stdout.decode("utf-8", "replace"), scale)

    def picture_blocks(
        self,
        source: bytes | Callable[[], tuple[bytes, Image.Image]],
        *,
        where: str,
        location: dict[str, Any],
        group: str,
        group_title: str,
    ) -> list[Block]:
        """Blocks for a picture inside a document: its encoded bytes, or a function giving
        them and the decoded image. Never raises: a picture that cannot be read is a warning
        naming `where`, and one seen before in this document (a logo on every slide) gives
        nothing again."""
        if self.missing is not None:
            self.skipped += 1
            return []
        try:
            self.program()  # before decoding anything: without Tesseract nothing is read
            key, image = (source, open_image(source)) if isinstance(source, bytes) else source()
            digest = hashlib.sha256(key).hexdigest()
            if digest in self._seen:
                return []
            self._seen.add(digest)
            regions = self.regions(image)
        except OcrUnavailableError as exc:
            self.missing = exc
            self.skipped += 1
            return []
        except Exception as exc:  # image decoders raise anything on damaged data
            self.warnings.append(f"{where}: picture not read ({reason(exc)})")
            return []
        return [
            Block(
                text=region.text,
                location={**location, **region.location()},
                group=group,
                group_title=group_title,
            )
            for region in regions
        ]

    def report(self) -> list[str]:
        """Warnings about pictures that were not read."""
        if self.missing is None or not self.skipped:
            return list(self.warnings)
        return [*self.warnings, f"{self.skipped} picture(s) not read: {self.missing}"]


# --- Tesseract ----------------------------------------------------------------------------


def find_tesseract(configured: str | None) -> str:
    """The Tesseract program to run: `configured` (a path or a name on PATH), else
    `tesseract` on PATH; OcrUnavailableError, saying how to install it, when there is none."""
    if configured:
        found = shutil.which(configured)  # a full path is checked as it is, a name on PATH
        if found is None:
            raise OcrUnavailableError(
                f"ZETTELGRAPH_TESSERACT is {configured!r}, which is not a program that can be "
                "run. Fix the path, or leave the setting out to use tesseract from PATH. "
                f"{INSTALL_HINT}"
            )
        return found
    found = shutil.which("tesseract")
    if found is None:
        raise OcrUnavailableError(
            "Tesseract OCR is not installed (it reads the text in images and scanned pages). "
            f"{INSTALL_HINT}"
        )
    return found


def _check_languages(program: str, languages: str) -> None:
    try:
        done = subprocess.run(
            [program, "--list-langs"], capture_output=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise OcrUnavailableError(
            f"Tesseract ({program}) could not be run: {exc}. {INSTALL_HINT}"
        ) from exc
    if done.returncode != 0:
        detail = _last_line(done.stderr) or f"exit status {done.returncode}"
        raise OcrUnavailableError(
            f"{program} --list-langs failed ({detail}): is it Tesseract? {INSTALL_HINT}"
        )
    # Tesseract 4 printed the list to stderr, 5 to stdout; the first line is a heading.
    listed = (done.stdout or done.stderr).decode("utf-8", "replace").splitlines()[1:]
    installed = {line.strip() for line in listed if line.strip()}
    absent = [code for code in languages.split("+") if code not in installed]
    if absent:
        packages = " ".join(f"tesseract-ocr-{c.lower().replace('_', '-')}" for c in absent)
        raise OcrUnavailableError(
            f"Tesseract has no data for {', '.join(absent)} (ZETTELGRAPH_OCR_LANGUAGES is "
            f"{languages!r}; installed: {', '.join(sorted(installed)) or 'none'}). Install it "
            f"(Debian, Ubuntu: sudo apt-get install {packages}; macOS: brew install "
            "tesseract-lang) or change ZETTELGRAPH_OCR_LANGUAGES"
        )


def _last_line(stderr: bytes) -> str:
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines()]
    return next((line for line in reversed(lines) if line), "")


def parse_tsv(tsv: str, scale: float = 1.0) -> list[TextRegion]:
    """Tesseract's TSV -> paragraphs in reading order, boxes in the original image's pixels.

    Level-5 rows are words: (block, paragraph, line) numbers say which line and paragraph a
    word is in. A line whose mean confidence is below MIN_CONFIDENCE, or that has no run of
    two letters or digits, is dropped; a paragraph left with no lines gives nothing."""
    lines: dict[tuple[int, int, int], list[tuple[str, float, tuple[int, int, int, int]]]] = {}
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) < 12 or cells[0] != "5":
            continue
        text = cells[11].strip()
        try:
            confidence = float(cells[10])
            block, paragraph, line = int(cells[2]), int(cells[3]), int(cells[4])
            box = (int(cells[6]), int(cells[7]), int(cells[8]), int(cells[9]))
        except ValueError:
            continue
        if text and confidence >= 0:
            lines.setdefault((block, paragraph, line), []).append((text, confidence, box))
    paragraphs: dict[tuple[int, int], list[list[tuple[str, float, tuple[int, int, int, int]]]]]
    paragraphs = {}
    for (block, paragraph, _), words in lines.items():
        mean = sum(w[1] for w in words) / len(words)
        if mean < MIN_CONFIDENCE or not re.search(r"[^\W_]{2}", " ".join(w[0] for w in words)):
            continue
        paragraphs.setdefault((block, paragraph), []).append(words)
    return [_region(kept, scale) for kept in paragraphs.values()]


def _region(
    lines: list[list[tuple[str, float, tuple[int, int, int, int]]]], scale: float
) -> TextRegion:
    text = ""
    for words in lines:
        line = " ".join(w[0] for w in words)
        if not text:
            text = line
        elif _HYPHEN_END.search(text) and line[:1].isalpha():
            # "infor-" / "mation" is one word; "Jean-" / "Paul" keeps its hyphen.
            keep = text.endswith("-") and not line[:1].islower()
            text = (text if keep else text[:-1]) + line
        else:
            text = f"{text} {line}"
    boxes = [w[2] for words in lines for w in words]
    left = min(b[0] for b in boxes)
    top = min(b[1] for b in boxes)
    right = max(b[0] + b[2] for b in boxes)
    bottom = max(b[1] + b[3] for b in boxes)
    box = tuple(round(v / scale) for v in (left, top, right - left, bottom - top))
    confidences = [w[1] for words in lines for w in words]
    return TextRegion(
        text=unicodedata.normalize("NFC", text),
        box=(box[0], box[1], box[2], box[3]),
        confidence=round(sum(confidences) / len(confidences)),
    )
