"""The images of a PDF page, each sized from its dictionary before pypdf decodes it, and
refused when decoding it would take more than the memory images are given (`images.py`'s
IMAGE_MEMORY).

pypdf decodes a picture whole as soon as it is asked for (`page.images[i]`), and pypdf 5.9
(pyproject allows 5 and later) did not bound the result: a 5 kB PDF whose one image declares
20,000 x 20,000 RGB pixels over a deflated stream of zeros peaked at 1.7 GB, one with 75 MB of
zeros behind 8,660 x 8,660 RGB pixels at 3.8 GB (pypdf 7.1 caps each buffer at 75 MB). The size
is in the image's dictionary (/Width, /Height, /ColorSpace, /BitsPerComponent, /SMask), so it
is read there first. Decoding a PDF image costs what preparing an image file costs
(`images.bytes_per_pixel` for the mode pypdf makes of it) plus the decoded samples pypdf
holds while it builds the picture (at least a byte each: 2- and 4-bit samples are widened),
plus the copy it inverts colours into (CMYK, /Decode, /Separation and /DeviceN tints) and, for
CMYK, which PNG cannot hold, the RGBA copy it re-encodes, plus its soft mask (/SMask, an alpha
channel decoded as a picture of its own). Without the two CMYK copies, 5,393 x 5,393 CMYK at
the edge of the budget peaked at 615 MB; with them the edge is 4,100 x 4,100, at 411 MB (RGB
at its edge 350 MB, grey 360 MB; pypdf 5.9, `read_pdf` in a process of its own).

A page's images are decoded one at a time, each dropped once read, so together they need no
more than the largest of them. The exception is inline images (BI ... ID ... EI in the page's
content stream): pypdf decodes all of them when the page's images are first listed and keeps
them with the page, so they are checked, each and together, before that listing.

Covered: the image XObjects of the page and of the forms it draws (how pypdf lists them), and
the page's inline images. Not covered, because pypdf does not read them (so
nothing decodes them): inline images inside forms, images in patterns, annotations and
Type 3 fonts.

pypdf 7 caps every buffer it decodes a stream or a picture into at 75 MB, below what a 600 dpi
colour A4 scan needs (4,960 x 7,016 RGB pixels, 104 MB of samples): such a page was read as
no picture at all, and the PDF refused as "OCR found no text". Since each image is sized
here first, pypdf is allowed, for that image only, the bytes this check let through
(`decoded`), never more than IMAGE_MEMORY.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pypdf import PageObject
from pypdf.generic import ArrayObject, DictionaryObject, StreamObject

from zettelgraph.ingest.images import IMAGE_MEMORY, ImageReadError, bytes_per_pixel, stored_bytes

if TYPE_CHECKING:
    from pypdf._page import ImageFile  # private module: typing only, it has moved before

# Inline images abbreviate their keys and colour spaces (PDF 32000-1, tables 92 and 93).
_INLINE_KEYS = {
    "/W": "/Width",
    "/H": "/Height",
    "/BPC": "/BitsPerComponent",
    "/CS": "/ColorSpace",
    "/IM": "/ImageMask",
    "/F": "/Filter",
    "/D": "/Decode",
}
_SPACES = {"/G": "/DeviceGray", "/RGB": "/DeviceRGB", "/CMYK": "/DeviceCMYK", "/I": "/Indexed"}
_MODES = {1: "L", 3: "RGB", 4: "CMYK"}  # components -> the mode pypdf decodes them to
_COMPONENTS = {
    "/DeviceGray": 1,
    "/CalGray": 1,
    "/DeviceRGB": 3,
    "/CalRGB": 3,
    "/Lab": 3,
    "/DeviceCMYK": 4,
}
_UNKNOWN = (4, "RGB", True)  # four samples in a 4-byte mode, inverted: the most a pixel costs
_NESTING = 8  # colour spaces naming colour spaces; real files use two levels at most
# pypdf 7's caps on what decoding one image may allocate (see the module's docstring).
_PYPDF_CAPS = (
    "image_maximum_buffer_size",
    "zlib_maximum_output_length",
    "lzw_maximum_output_length",
    "run_length_maximum_output_length",
    "brotli_maximum_output_length",
    "stream_decoding_work_maximum_length",
)


@dataclass(frozen=True)
class Size:
    """What decoding one image of a page costs: its pixels, the mode pypdf makes of them,
    and the bytes it takes (see the module's docstring)."""

    width: int
    height: int
    mode: str
    cost: int

    def check(self, where: str) -> None:
        """ImageReadError (too large) naming the image at `where` when over the budget."""
        if self.cost <= IMAGE_MEMORY:
            return
        raise ImageReadError(
            f"{where}: an image of {self.width:,} x {self.height:,} pixels ({self.mode}) "
            f"that takes {self.cost / 1e6:,.0f} MB to decode, more than the "
            f"{IMAGE_MEMORY // 1_000_000} MB an image is given. Split the PDF to leave that page "
            "out, or scan it again smaller (300 dpi is plenty for text; greyscale takes less), "
            "and ingest it again",
            too_large=True,
        )


@dataclass(frozen=True)
class PageImage:
    """One image of a page as pypdf names it (`page.images[name]` decodes it) and the bytes
    decoding it was checked to take (0 for an inline image, decoded when listed)."""

    name: str | list[str]
    cost: int


def checked_images(page: PageObject, where: str) -> list[PageImage]:
    """The images of the page, every one sized from its dictionary first: ImageReadError
    (too large) for the first over the budget, before any of them is decoded. Only the
    inline images are decoded here (pypdf decodes them all when it lists the page's images),
    after they are checked."""
    inline = _inline_images(page)
    total = 0
    for number, settings in enumerate(inline):
        size = _size(settings, page)
        size.check(_named(where, number, len(inline), "inline image"))
        total += size.cost
    if total > IMAGE_MEMORY:
        raise ImageReadError(
            f"{where}: {len(inline)} inline images that take {total / 1e6:,.0f} MB to "
            f"decode together, more than the {IMAGE_MEMORY // 1_000_000} MB images are given. "
            "Split the PDF to leave that page out, and ingest it again",
            too_large=True,
        )
    names = page.images.keys()
    images: list[PageImage] = []
    for number, name in enumerate(names):
        if isinstance(name, str) and name.startswith("~"):
            images.append(PageImage(name, 0))  # inline, checked above
            continue
        dictionary = _xobject(page, [name] if isinstance(name, str) else name)
        size = _size(dictionary, dictionary)
        size.check(_named(where, number, len(names), "image"))
        images.append(PageImage(name, size.cost))
    return images


def decoded(page: PageObject, image: PageImage) -> ImageFile:
    """The image decoded by pypdf, its own caps raised to the checked cost for this image
    only (pypdf before 7 has none)."""
    try:
        from pypdf import apply_configuration, get_configuration
    except ImportError:
        return page.images[image.name]
    current = get_configuration()
    raised = {
        cap: max(getattr(current, cap), image.cost) for cap in _PYPDF_CAPS if hasattr(current, cap)
    }
    with apply_configuration(**raised):
        found = page.images[image.name]
        found.image  # noqa: B018 - decoded inside the raised caps, were pypdf ever lazy
        return found


def _named(where: str, number: int, count: int, what: str) -> str:
    return f"{where}, {what} {number + 1}" if count > 1 else where


def _inline_images(page: PageObject) -> list[DictionaryObject]:
    """The settings of each inline image in the page's content stream, keys spelled out."""
    content = page.get_contents()
    if content is None:
        return []
    found: list[DictionaryObject] = []
    for operands, operator in content.operations:
        if operator == b"INLINE IMAGE":
            settings = operands["settings"]
            found.append(DictionaryObject({_INLINE_KEYS.get(k, k): v for k, v in settings.items()}))
    return found


def _xobject(page: PageObject, path: list[str]) -> StreamObject:
    """The image XObject pypdf names `path`: a name in the page's resources, or the names of
    the forms it is drawn in and then its own."""
    holder: Any = page
    for name in path:
        resources = holder["/Resources"].get_object()
        holder = resources["/XObject"].get_object()[name].get_object()
    if not isinstance(holder, StreamObject):
        raise ImageReadError(f"the image {'/'.join(path)} is not a stream")
    return holder


def _size(image: DictionaryObject, resources_holder: DictionaryObject, masks: int = 0) -> Size:
    """What decoding `image` (an XObject's dictionary or an inline image's settings) costs;
    named colour spaces are looked up in `resources_holder`'s resources. `masks`: how many
    soft masks deep `image` is (pypdf decodes a mask's own mask too)."""
    if masks > _NESTING:
        raise ImageReadError("its soft masks are nested too deeply (or refer to each other)")
    width = _integer(image, "/Width")
    height = _integer(image, "/Height")
    if width <= 0 or height <= 0:
        raise ImageReadError(f"its image declares {width} x {height} pixels")
    if image.get("/ImageMask"):
        components, mode, inverted = 1, "1", False
    else:
        space = image.get("/ColorSpace")
        components, mode, inverted = _colours(space, resources_holder, 0)
    bits = _integer(image, "/BitsPerComponent", 8)
    if mode == "L" and bits == 1:
        mode = "1"
    elif mode == "L" and bits > 8:
        mode = "I;16"
    # pypdf widens 2- and 4-bit samples to a byte; 1-bit ones stay packed.
    sample_bits = bits if bits in (1, 8, 16) else 8
    samples = (width * components * sample_bits + 7) // 8 * height
    mask = image.get("/SMask")
    mask = mask.get_object() if mask is not None else None
    transparent = isinstance(mask, DictionaryObject) and "/Width" in mask
    pixel = bytes_per_pixel(mode, transparent=transparent)
    if inverted or "/Decode" in image:
        pixel += stored_bytes(mode)  # pypdf inverts colours into a copy of its picture
    if mode == "CMYK":
        pixel += 4  # PNG cannot hold CMYK: pypdf re-encodes an RGBA copy
    cost = width * height * pixel + samples
    if transparent:
        assert isinstance(mask, DictionaryObject)
        cost += _size(mask, mask, masks + 1).cost
    return Size(width, height, mode, cost)


def _colours(space: Any, holder: DictionaryObject, depth: int) -> tuple[int, str, bool]:
    """(samples per pixel in the data, the Pillow mode pypdf decodes it to, whether pypdf
    inverts its colours: tints of /Separation and /DeviceN, and CMYK). A colour space
    that is missing (JPEG 2000 and JPEG carry their own) or not known counts as four samples
    in a 4-byte mode, the most an image's pixel takes."""
    space = space.get_object() if hasattr(space, "get_object") else space
    if isinstance(space, ArrayObject) and len(space) == 1:
        space = space[0].get_object()
    if depth > _NESTING:
        raise ImageReadError("its colour space is nested too deeply")
    if isinstance(space, str):
        name = _SPACES.get(space, space)
        if name in _COMPONENTS:
            count = _COMPONENTS[name]
            return count, _MODES[count], count == 4
        named = _resource(holder, "/ColorSpace", space)
        return _colours(named, holder, depth + 1) if named is not None else _UNKNOWN
    if isinstance(space, ArrayObject) and space:
        family = _SPACES.get(space[0], space[0])
        if family in _COMPONENTS:
            return _colours(family, holder, depth + 1)
        if family == "/ICCBased":
            count = int(space[1].get_object()["/N"])
            return count, _MODES.get(count, "RGB"), count == 4
        if family == "/Indexed":
            # One index per pixel; pypdf may turn the palette into its base's colours.
            return 1, *_colours(space[1], holder, depth + 1)[1:]
        if family == "/Separation":
            return 1, "L", True
        if family == "/DeviceN":
            count = len(space[1].get_object())
            return count, "L" if count == 1 else "CMYK", True
    return _UNKNOWN


def _integer(image: DictionaryObject, key: str, default: int | None = None) -> int:
    value: Any = image.get(key, default)
    value = value.get_object() if hasattr(value, "get_object") else value
    if not isinstance(value, (int, float)):
        raise ImageReadError(f"its image has no number for {key} ({value!r})")
    return int(value)


def _resource(holder: DictionaryObject, kind: str, name: str) -> Any:
    resources = holder.get("/Resources")
    resources = resources.get_object() if resources is not None else None
    if not isinstance(resources, DictionaryObject):
        return None
    table = resources.get(kind)
    table = table.get_object() if table is not None else None
    return table.get(name) if isinstance(table, DictionaryObject) else None
