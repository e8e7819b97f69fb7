"""Images opened for OCR within a memory budget: every frame's size checked before any is
decoded, frames decoded one at a time, and each made into the grey picture Tesseract reads.

The budget (issue 28, item 5). Reading one image must keep the whole process under the same
600 MB of peak resident memory as the other bad files (the Office zip bombs, a 5 MB line):
`zettelgraph ingest` of a small PNG peaks at 134 MB, the file's bytes are at most
ZETTELGRAPH_MAX_FILE_MB (20 MB by default), which leaves IMAGE_MEMORY = 320 MB for one frame
and the copies made of it. What a pixel costs depends on how Pillow stores the frame:

    stored      1 byte ("1", "L", "P"), 2 (16-bit grey), 4 (everything else: RGB is padded
                to 4 bytes, like RGBA, CMYK, 32-bit integers and floats)
    + a copy    16- and 32-bit frames are scaled to 8 bits (a copy as large as the frame);
                palette images with transparency become RGBA (4)
    + 3         the grey copy, then the alpha channel and a white backdrop it is painted on
                (transparent images), or the reduced copy and its PNG (at most 1 byte each)

    bytes per pixel x pixels <= IMAGE_MEMORY

so a grey scan may have 80 million pixels (320 MB / 4: an A3 page at 600 dpi is 70 million),
an RGB one 46 million (320 / 7: an A4 page in colour at 600 dpi is 35 million) and a 32-bit
one 29 million (320 / 11). Before, only the first frame was checked, against 80 million
pixels whatever its mode: a 3 MB TIFF of a 64 x 64 page and four 12000 x 12000 ones peaked at
3.7 GB, and a 79-million-pixel RGB PNG at 1.6 GB.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator

from PIL import Image, UnidentifiedImageError

IMAGE_MEMORY = 320_000_000  # bytes; see the module's docstring
MAX_FRAMES = 1000  # pages of a multi-page TIFF
# Tesseract reads text best at 20-40 px high; small images (screenshots, slide pictures) are
# enlarged, very large ones reduced, which also bounds the time a page takes.
ENLARGE_BELOW = 1000
MAX_SIDE = 7000
_ONE_BYTE = ("1", "L", "P")
_SIXTEEN_BITS = ("I;16", "I;16B", "I;16L", "I;16N")
_THIRTY_TWO_BITS = ("I", "F")
_ALPHA = ("RGBA", "LA", "PA", "RGBa", "La")


class ImageReadError(Exception):
    """An image or one of its frames cannot be read: not decodable, or over the budget
    (`too_large`). The message says what is wrong with it (the caller adds the file)."""

    def __init__(self, message: str, *, too_large: bool = False) -> None:
        super().__init__(message)
        self.too_large = too_large


def bytes_per_pixel(mode: str, *, transparent: bool = False) -> int:
    """The bytes each pixel of a frame in Pillow's `mode` takes while it is prepared (see the
    module's docstring); `transparent`: it has an alpha channel or a transparent colour."""
    stored = stored_bytes(mode)
    copy = stored if mode in _SIXTEEN_BITS + _THIRTY_TWO_BITS else 0
    if transparent and mode not in ("RGBA", "LA"):
        copy = 4  # made RGBA first
    return stored + copy + 3


def stored_bytes(mode: str) -> int:
    """The bytes Pillow stores a pixel of `mode` in (RGB is padded to 4)."""
    return 1 if mode in _ONE_BYTE else 2 if mode in _SIXTEEN_BITS else 4


def check_frame(image: Image.Image, where: str) -> None:
    """ImageReadError when `image`'s current frame (not decoded yet) would take more than
    IMAGE_MEMORY to prepare; `where` names it ("the image", "page 3 of 8")."""
    cost = bytes_per_pixel(image.mode, transparent=_transparent(image))
    allowed = IMAGE_MEMORY // cost
    if image.width * image.height > allowed:
        raise ImageReadError(
            f"{where} is {image.width:,} x {image.height:,} pixels ({image.mode}), more than "
            f"the {allowed / 1e6:.0f} million pixels of that kind that are read (at "
            f"{cost} bytes each, {IMAGE_MEMORY // 1_000_000} MB): scale it down (300 dpi is "
            "plenty for text) or save it in greyscale",
            too_large=True,
        )


def open_frames(data: bytes, *, all_frames: bool) -> tuple[Image.Image, int]:
    """An image file opened but not decoded, and how many of its frames are read: all (a
    TIFF's pages, when `all_frames`) or the first (an animation is one picture). Every frame
    read is checked before any is decoded."""
    try:
        with warnings.catch_warnings():
            # Pillow warns from 89 million pixels whatever the mode; check_frame decides.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            count = int(getattr(image, "n_frames", 1)) if all_frames else 1
            if count > MAX_FRAMES:
                raise ImageReadError(
                    f"it has {count:,} pages (at most {MAX_FRAMES:,} are read): split it and "
                    "ingest the parts",
                    too_large=True,
                )
            for number in range(count):
                image.seek(number)  # reads the frame's header, not its pixels
                check_frame(image, _frame(number, count))
            image.seek(0)
    except ImageReadError:
        raise
    except Image.DecompressionBombError as exc:
        raise ImageReadError(f"{exc}: scale it down", too_large=True) from exc
    except UnidentifiedImageError as exc:
        raise ImageReadError("not an image format that can be decoded, or damaged") from exc
    except Exception as exc:  # Pillow raises OSError, ValueError, SyntaxError...
        raise ImageReadError(f"the image could not be opened ({reason(exc)})") from exc
    return image, count


def decoded_frames(image: Image.Image, count: int) -> Iterator[Image.Image]:
    """The first `count` frames of an image from `open_frames`, decoded one at a time: each
    is the same object, holding only the current frame, so use it before asking for the
    next."""
    for number in range(count):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                image.seek(number)
                image.load()
        except Exception as exc:  # damaged data, or more memory than there is
            raise ImageReadError(
                f"{_frame(number, count)} could not be decoded ({reason(exc)})",
                too_large=isinstance(exc, MemoryError),
            ) from exc
        yield image


def open_image(data: bytes) -> Image.Image:
    """An image file's first frame, checked and decoded (pictures inside documents)."""
    image, count = open_frames(data, all_frames=False)
    return next(decoded_frames(image, count))


def prepare(image: Image.Image) -> tuple[bytes, float]:
    """PNG bytes for Tesseract (upright, on white, grey, scaled) and the scale applied. The
    copies are made smallest first and dropped as soon as the next exists (see the module's
    docstring for what they cost)."""
    grey = _grey(image)
    longest = max(grey.size)
    scale = 2.0 if longest < ENLARGE_BELOW else min(1.0, MAX_SIDE / longest)
    if scale != 1.0:
        size = (max(1, round(grey.width * scale)), max(1, round(grey.height * scale)))
        grey = grey.resize(size, Image.Resampling.LANCZOS)
    # Phone photos are stored sideways: turned once grey and scaled, the cheapest copy.
    turn = _TURNS.get(image.getexif().get(_ORIENTATION, 1))
    if turn is not None:
        grey = grey.transpose(turn)
    out = io.BytesIO()
    dpi = image.info.get("dpi")
    if isinstance(dpi, tuple) and len(dpi) == 2 and all(float(d) > 1 for d in dpi):
        grey.save(out, format="PNG", dpi=(float(dpi[0]) * scale, float(dpi[1]) * scale))
    else:
        grey.save(out, format="PNG")
    return out.getvalue(), scale


def reason(exc: BaseException) -> str:
    """What went wrong, never empty: Pillow raises MemoryError and others without a word."""
    if isinstance(exc, MemoryError):
        return "there was not enough memory to decode it: scale it down or close other programs"
    return str(exc) or type(exc).__name__


_ORIENTATION = 0x0112  # the EXIF tag
# EXIF orientation -> the turn that makes the picture upright (as ImageOps.exif_transpose).
_TURNS = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}


def _grey(image: Image.Image) -> Image.Image:
    """The frame in 8-bit grey, text on a transparent background painted on white (black
    text on "black" transparency would vanish)."""
    if _transparent(image):
        rgba = image if image.mode in ("RGBA", "LA") else image.convert("RGBA")
        alpha = rgba.getchannel("A")
        grey = rgba.convert("L")
        del rgba
        backdrop = Image.new("L", grey.size, 255)
        backdrop.paste(grey, mask=alpha)
        return backdrop
    if image.mode in _SIXTEEN_BITS + _THIRTY_TWO_BITS:
        return image.point(lambda v: v / 256).convert("L")  # keep the top 8 bits
    return image.convert("L") if image.mode != "L" else image


def _transparent(image: Image.Image) -> bool:
    return image.mode in _ALPHA or "transparency" in image.info


def _frame(number: int, count: int) -> str:
    return f"page {number + 1} of {count}" if count > 1 else "the image"
