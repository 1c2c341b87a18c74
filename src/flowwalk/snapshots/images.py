"""Pixel comparison of two PNGs, as Playwright Test's toHaveScreenshot compares them.

The per-pixel test is mapbox's pixelmatch (the `pixelmatch` package): two pixels match when their
YIQ colour distance is within `threshold` (0..1, Playwright's default 0.2), and pixels that look
like anti-aliasing are not counted. The image passes when no pixel differs, or, as Playwright
Test's options say, when at most `max_diff_pixels` pixels and/or at most `max_diff_ratio` of all
pixels differ (each limit applies when it is set).

pixelmatch is pure Python (about 2 s for a 1280x720 image on this machine), so it only looks
where the images differ: Pillow (C) finds the bounding box of the changed pixels, and pixelmatch
runs over that box grown by 2 pixels (its anti-aliasing test looks two pixels around a pixel).
Identical images cost one byte comparison. The difference image is the expected image faded to
grey with the differing pixels red and anti-aliasing yellow (pixelmatch's own drawing).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageChops
from pixelmatch.contrib.PIL import pixelmatch

__all__ = ["ImageComparison", "ImageError", "compare_png", "decode_png"]

#: pixelmatch's anti-aliasing test reads pixels this far from the one it judges
_AA_MARGIN = 2
#: the opacity of the expected image under the difference marks
_FADE = 0.1


class ImageError(ValueError):
    """Bytes that are not a PNG Pillow can read."""


@dataclass(frozen=True)
class ImageComparison:
    passed: bool
    diff_pixels: int
    total_pixels: int
    #: "expected 800x600, observed 800x640" when the sizes differ, else None
    size_mismatch: str | None = None
    #: the difference image (PNG), when any pixel differs
    diff_png: bytes | None = None

    @property
    def ratio(self) -> float:
        return self.diff_pixels / self.total_pixels if self.total_pixels else 0.0

    def describe(self) -> str:
        if self.size_mismatch:
            return f"image size differs: {self.size_mismatch}"
        if not self.diff_pixels:
            return "no pixel differs"
        return f"{self.diff_pixels} pixel(s) differ ({self.ratio:.2%} of {self.total_pixels})"


def decode_png(data: bytes) -> Image.Image:
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except Exception as exc:  # noqa: BLE001 - Pillow raises many kinds for a damaged file
        raise ImageError(f"not a readable PNG: {exc}") from None
    return image.convert("RGBA")


def encode_png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


def compare_png(expected: bytes, observed: bytes, *, threshold: float = 0.2, max_diff_pixels: int | None = None,
                max_diff_ratio: float | None = None) -> ImageComparison:
    """Compare `observed` with `expected`; raises ImageError when either is not a PNG."""
    if expected == observed:
        width, height = decode_png(expected).size
        return ImageComparison(True, 0, width * height)
    a, b = decode_png(expected), decode_png(observed)
    if a.size != b.size:
        return _size_mismatch(a, b)
    total = a.size[0] * a.size[1]
    box = _changed_box(a, b)
    if box is None:
        return ImageComparison(True, 0, total)
    left, top, right, bottom = box
    box = (max(left - _AA_MARGIN, 0), max(top - _AA_MARGIN, 0),
           min(right + _AA_MARGIN, a.size[0]), min(bottom + _AA_MARGIN, a.size[1]))
    crop_a, crop_b = a.crop(box), b.crop(box)
    marks = Image.new("RGBA", crop_a.size)
    count = pixelmatch(crop_a, crop_b, marks, threshold=threshold, alpha=_FADE)
    diff = _faded(a)
    diff.paste(marks, box[:2])
    if max_diff_pixels is None and max_diff_ratio is None:
        allowed = count == 0
    else:
        allowed = ((max_diff_pixels is None or count <= max_diff_pixels)
                   and (max_diff_ratio is None or count / total <= max_diff_ratio))
    return ImageComparison(allowed, count, total, None, encode_png(diff))


def _changed_box(a: Image.Image, b: Image.Image) -> tuple[int, int, int, int] | None:
    """The bounding box of the pixels that differ in any channel (an RGBA image's own getbbox
    looks at its alpha channel alone)."""
    boxes = [band.getbbox() for band in ImageChops.difference(a, b).split()]
    found = [box for box in boxes if box is not None]
    if not found:
        return None
    return (min(x[0] for x in found), min(x[1] for x in found), max(x[2] for x in found), max(x[3] for x in found))


def _faded(image: Image.Image) -> Image.Image:
    """The image in grey, mostly white: what pixelmatch draws under its marks."""
    grey = image.convert("L").point(lambda v: int(255 - (255 - v) * _FADE))
    return Image.merge("RGBA", (grey, grey, grey, Image.new("L", image.size, 255)))


def _size_mismatch(a: Image.Image, b: Image.Image) -> ImageComparison:
    """Different sizes never pass; the difference image shows both on one canvas, every pixel
    outside their common area marked."""
    width, height = max(a.size[0], b.size[0]), max(a.size[1], b.size[1])
    pad_a, pad_b = Image.new("RGBA", (width, height)), Image.new("RGBA", (width, height))
    pad_a.paste(a, (0, 0))
    pad_b.paste(b, (0, 0))
    diff = Image.new("RGBA", (width, height))
    count = pixelmatch(pad_a, pad_b, diff, threshold=0.2, alpha=_FADE)
    shown = f"expected {a.size[0]}x{a.size[1]}, observed {b.size[0]}x{b.size[1]}"
    return ImageComparison(False, max(count, 1), width * height, shown, encode_png(diff))
