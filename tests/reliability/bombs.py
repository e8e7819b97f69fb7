"""The bad-input corpus, continued: images and YAML built to exhaust memory or time (issue 28,
items 5 and 6, and 7's 200,000 front-matter keys). Each file is small on disk and written
here, byte by byte, so building it costs the test nothing: a TIFF whose frames share one
deflated strip of zeros, a PNG whose rows are streamed through zlib.
"""

from __future__ import annotations

import functools
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

from reliability.bad_inputs import NOTES, QUOTE, Case, bytes_file, text_file


@functools.cache
def _deflated_zeros(size: int) -> bytes:
    """`size` zero bytes, deflated without ever holding them (a megabyte at a time)."""
    packer = zlib.compressobj(1)
    block = bytes(1 << 20)
    parts = [
        packer.compress(block[: min(len(block), size - done)])
        for done in range(0, size, len(block))
    ]
    return b"".join([*parts, packer.flush()])


def tiff(frames: list[tuple[int, int]]) -> bytes:
    """A little-endian grey TIFF with one frame of each (width, height), black, deflated; frames
    of one size share one strip."""
    strips: dict[tuple[int, int], bytes] = {}
    for size in frames:
        strips.setdefault(size, _deflated_zeros(size[0] * size[1]))
    out = bytearray(b"II*\x00\x00\x00\x00\x00")
    where = {}
    for size, strip in strips.items():
        where[size] = len(out)
        out += strip
    previous = 4  # the header's pointer to the first directory
    for width, height in frames:
        if len(out) % 2:
            out += b"\x00"
        struct.pack_into("<I", out, previous, len(out))
        entries = [
            (256, 4, width),  # ImageWidth
            (257, 4, height),  # ImageLength
            (258, 3, 8),  # BitsPerSample
            (259, 3, 8),  # Compression: deflate
            (262, 3, 1),  # PhotometricInterpretation: black is zero
            (273, 4, where[(width, height)]),  # StripOffsets
            (277, 3, 1),  # SamplesPerPixel
            (278, 4, height),  # RowsPerStrip
            (279, 4, len(strips[(width, height)])),  # StripByteCounts
        ]
        out += struct.pack("<H", len(entries))
        for tag, kind, value in entries:
            packed = struct.pack("<HI", value, 0)[:4] if kind == 3 else struct.pack("<I", value)
            out += struct.pack("<HHI", tag, kind, 1) + packed
        previous = len(out)
        out += b"\x00\x00\x00\x00"
    return bytes(out)


@functools.cache
def png(width: int, height: int, colour: bool) -> bytes:
    """A white PNG (RGB or grey), its rows streamed through zlib."""
    channels = 3 if colour else 1
    packer = zlib.compressobj(1)
    row = b"\x00" + b"\xff" * (width * channels)  # filter 0, then the pixels
    rows = 1 << 20 // len(row) or 1
    data = b"".join(
        packer.compress(row * min(rows, height - done)) for done in range(0, height, rows)
    )
    data += packer.flush()

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2 if colour else 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")
    )


def pdf_image(width: int, height: int, stream: bytes, *, place: str = "page") -> bytes:
    """A one-page PDF with no text whose page draws one RGB image of the declared (width,
    height), its data `stream` deflated: an XObject of the page (`place` "page"), of a form
    the page draws ("form"), or inline in the page's content ("inline")."""
    image = f"/Width {width} /Height {height} /ColorSpace /DeviceRGB /BitsPerComponent 8"
    inline = f"BI /W {width} /H {height} /CS /RGB /BPC 8 /F /Fl ID ".encode()
    content, resources = b"q 595 0 0 842 0 0 cm /Im0 Do Q", b"/XObject << /Im0 5 0 R >>"
    if place == "inline":
        content, resources = b"q 595 0 0 842 0 0 cm\n" + inline + stream + b"\nEI Q", b""
    elif place == "form":
        content, resources = b"q /Fm0 Do Q", b"/XObject << /Fm0 6 0 R >>"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        b"/Resources << " + resources + b" >> >>",
        _stream(b"", content),
        _stream(f"/Type /XObject /Subtype /Image {image} /Filter /FlateDecode".encode(), stream),
        _stream(
            b"/Type /XObject /Subtype /Form /BBox [0 0 595 842] "
            b"/Resources << /XObject << /Im0 5 0 R >> >>",
            b"q 595 0 0 842 0 0 cm /Im0 Do Q",
        ),
    ]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def _stream(keys: bytes, data: bytes) -> bytes:
    return b"<< %s /Length %d >>\nstream\n%s\nendstream" % (keys, len(data), data)


def image_file(name: str, make: Callable[[], bytes]) -> Callable[[Path], list[str]]:
    return lambda folder: bytes_file(name, make())(folder)


def pack_file(text: str) -> Callable[[Path], list[str]]:
    """A pack, checked with `packs validate` (the case's command)."""
    return text_file("narrative.yaml", "name: narrative\nversion: '1'\n" + text)


def nested_anchors() -> str:
    """Nine levels of eight aliases of the level below: 500 bytes, 8^9 values when walked."""
    lines = ["x0: &a0 [x, x, x, x, x, x, x, x]"]
    for level in range(1, 10):
        lines.append(f"x{level}: &a{level} [{', '.join([f'*a{level - 1}'] * 8)}]")
    return "\n".join(lines) + "\n"


HUGE = (20_000, 20_000)  # 1.2 GB of RGB samples declared
ZEROS = _deflated_zeros(1_000_000)  # 1 kB: pypdf stops at the end of the data, not before
BIG = (12_000, 12_000)  # 144 million pixels, 144 MB a frame in grey
KEYS = "\n".join(f"clave{i}: {i}" for i in range(200_000))

BOMBS: list[Case] = [
    Case(
        "TIFF: a small page, then four of 144 million pixels",
        image_file("escaneo.tif", lambda: tiff([(64, 64), *[BIG] * 4])),
        "error",
        ("page 2 of 5", "12,000 x 12,000 pixels", "scale it down"),
        max_rss_mb=600,
    ),
    Case(
        "TIFF: a small page, then seven of 144 million pixels",
        image_file("escaneo8.tif", lambda: tiff([(64, 64), *[BIG] * 7])),
        "error",
        ("page 2 of 8", "pixels"),
        max_rss_mb=600,
    ),
    Case(
        "PNG of 79 million RGB pixels",
        image_file("foto.png", lambda: png(8_888, 8_888, colour=True)),
        "error",
        ("8,888 x 8,888 pixels (RGB)", "million pixels", "greyscale"),
        max_rss_mb=600,
    ),
    Case(
        "PNG of 79 million grey pixels, read",
        image_file("gris.png", lambda: png(8_888, 8_888, colour=False)),
        "error",  # read within the budget; a white page has no text
        ("no text",),
        max_rss_mb=600,
    ),
    *[
        Case(
            f"PDF: a scanned page of 20,000 x 20,000 RGB pixels, {where}",
            image_file("escaneo.pdf", lambda place=place: pdf_image(*HUGE, ZEROS, place=place)),
            "error",
            ("page 1:", "20,000 x 20,000 pixels (RGB)", "4,000 MB", "split the pdf"),
            max_rss_mb=600,
        )
        for place, where in (("page", "on the page"), ("form", "in a form"), ("inline", "inline"))
    ],
    Case(
        "pack: nine levels of nested anchors",
        pack_file(nested_anchors()),
        "error",
        ("narrative.yaml:", "alias *a", "write the values out"),
        command=("packs", "validate"),
    ),
    Case(
        "pack: an alias inside the value it names",
        pack_file("entity_types: &a [*a]\n"),
        "error",
        ("narrative.yaml:3", "contain itself"),
        command=("packs", "validate"),
    ),
    Case(
        "pack: nested 20,000 deep",
        pack_file("entity_types: " + "[" * 20_000 + "]" * 20_000 + "\n"),
        "error",
        ("narrative.yaml:3", "levels deep"),
        command=("packs", "validate"),
    ),
    Case(
        "front matter of 200,000 keys",
        text_file("claves.md", NOTES.replace("---\n\n", KEYS + "\n---\n\n") + QUOTE + "\n"),
        "error",
        ("front matter", "characters long"),
        max_rss_mb=600,
    ),
]
