"""
Scans and screenshots made here for the OCR tests (nothing is downloaded): text drawn with
Pillow in a TrueType font, as a screenshot (PNG, JPEG, WebP) or as a scan (slightly rotated,
with specks, saved as an image-only PDF at 300 DPI), and hostile images (a decompression
bomb, a JPEG that declares 65000 × 65000 pixels, a PNG whose header is damaged or lies).

Every file takes a ``tag`` that goes into its metadata, never into what is drawn: the test
media folder stores files under their SHA-256, so two tests must never upload the same bytes.

:func:`require_tesseract` skips a test without Tesseract (or a language it needs) outside CI,
with how to install it, and fails it in CI, which installs them (``.ci/run``).
"""

from __future__ import annotations

import functools
import io
import os
import random
import shutil
import struct
import subprocess
import zlib
from dataclasses import dataclass

import pytest
from PIL import Image, ImageDraw, ImageFont, features
from PIL.PngImagePlugin import PngInfo

FONTS = "/usr/share/fonts/truetype/dejavu"
SERIF = f"{FONTS}/DejaVuSerif.ttf"
SANS = f"{FONTS}/DejaVuSans.ttf"  # has Arabic letters too
#: A letter-size text at 300 DPI: 40 px is about 10 points.
FONT_SIZE = 40
A4_AT_300_DPI = (2480, 3508)

__all__ = [
    "A4_AT_300_DPI",
    "Drawn",
    "damaged_png",
    "decompression_bomb_png",
    "huge_jpeg",
    "lying_png",
    "require_arabic_shaping",
    "require_tesseract",
    "scan_pdf",
    "screenshot",
    "text_image",
]


# --------------------------------------------------------------------------------------------
# Tesseract, or a skip (a failure in CI)
# --------------------------------------------------------------------------------------------


@functools.cache
def _installed_languages() -> frozenset[str] | None:
    path = shutil.which("tesseract")
    if path is None:
        return None
    listed = subprocess.run(
        [path, "--list-langs"], capture_output=True, text=True, timeout=30, check=False
    )
    return frozenset(line.strip() for line in listed.stdout.splitlines()[1:])


def require_tesseract(*languages: str) -> None:
    """Skip (outside CI) or fail (in CI) unless Tesseract with ``languages`` is installed."""
    installed = _installed_languages()
    wanted = languages or ("eng",)
    missing = [code for code in wanted if installed is None or code not in installed]
    if not missing:
        return
    packages = " ".join(["tesseract-ocr", *(f"tesseract-ocr-{code}" for code in missing)])
    problem = (
        "Tesseract is not installed"
        if installed is None
        else f"Tesseract lacks the languages {', '.join(missing)}"
    )
    if os.environ.get("CI"):
        pytest.fail(f"{problem}; .ci/run installs it (apt-get install {packages}).")
    pytest.skip(f"{problem}: `apt-get install {packages}` to run the OCR tests.")


def require_arabic_shaping() -> None:
    """Arabic letters are joined (shaped) by Pillow only with libraqm."""
    if not features.check("raqm"):
        message = "Pillow draws Arabic unjoined without libraqm (apt-get install libraqm0)."
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


# --------------------------------------------------------------------------------------------
# Text drawn on a page
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Drawn:
    """An image, and where each word drawn on it is: ``boxes[word]`` is its box (left, top,
    right, bottom) in the image's pixels, for each word drawn once."""

    image: Image.Image
    boxes: dict[str, tuple[int, int, int, int]]


def text_image(
    lines: list[str],
    *,
    size: tuple[int, int] = A4_AT_300_DPI,
    font: str = SERIF,
    font_size: int = FONT_SIZE,
    margin: int = 200,
    right_to_left: bool = False,
    mode: str = "L",
    ink: int | tuple = 0,
    paper: int | tuple = 255,
) -> Drawn:
    """``lines`` drawn one under another (a line spacing of 1.6), from the top-left margin
    (the top-right one for right-to-left text)."""
    image = Image.new(mode, size, paper)
    draw = ImageDraw.Draw(image)
    typeface = ImageFont.truetype(font, font_size)
    boxes: dict[str, tuple[int, int, int, int]] = {}
    seen: set[str] = set()
    y = margin
    for line in lines:
        if right_to_left:
            draw.text((size[0] - margin, y), line, font=typeface, fill=ink, anchor="ra")
        else:
            x = margin
            space = draw.textlength(" ", font=typeface)
            for word in line.split(" "):
                draw.text((x, y), word, font=typeface, fill=ink)
                if word in seen:
                    boxes.pop(word, None)  # drawn more than once: no one box
                else:
                    boxes[word] = draw.textbbox((x, y), word, font=typeface)
                seen.add(word)
                x += draw.textlength(word, font=typeface) + space
        y += int(font_size * 1.6)
    return Drawn(image=image, boxes=boxes)


def _scanned(image: Image.Image, *, degrees: float, specks: int, seed: int) -> Image.Image:
    """``image`` as a scanner gives it back: turned by ``degrees``, with ``specks`` specks of
    dust (the same ones for the same ``seed``)."""
    noisy = image.copy()
    pixels = noisy.load()
    chance = random.Random(seed)
    for _ in range(specks):
        x, y = chance.randrange(noisy.width), chance.randrange(noisy.height)
        pixels[x, y] = chance.choice((0, 96, 160))
    return noisy.rotate(degrees, resample=Image.Resampling.BICUBIC, fillcolor=255)


def scan_pdf(
    pages: list[list[str]],
    *,
    tag: str,
    degrees: float = 0.7,
    specks: int = 4000,
    size: tuple[int, int] = A4_AT_300_DPI,
) -> bytes:
    """An image-only PDF (no text layer) of ``pages``, each page's lines drawn, "scanned"
    (:func:`_scanned`) and saved at 300 DPI, a page of ``size`` pixels (A4) each."""
    images = [
        _scanned(text_image(lines, size=size).image, degrees=degrees, specks=specks, seed=number)
        for number, lines in enumerate(pages)
    ]
    out = io.BytesIO()
    images[0].save(out, "PDF", resolution=300, save_all=True, append_images=images[1:], title=tag)
    return out.getvalue()


def screenshot(lines: list[str], *, tag: str, image_format: str = "PNG", scale: int = 2) -> bytes:
    """A screenshot of a post (dark grey text on a light blue-grey background, sans-serif,
    at a phone's ``scale`` pixels per CSS pixel), as PNG, JPEG or WebP."""
    drawn = text_image(
        lines,
        size=(640 * scale, (80 + 34 * len(lines)) * scale),
        font=SANS,
        font_size=16 * scale,
        margin=24 * scale,
        mode="RGB",
        ink=(20, 24, 28),
        paper=(243, 246, 250),
    )
    return encode(drawn.image, tag=tag, image_format=image_format)


def encode(image: Image.Image, *, tag: str, image_format: str = "PNG") -> bytes:
    """``image`` as a file of ``image_format``, with ``tag`` in its metadata."""
    out = io.BytesIO()
    if image_format == "PNG":
        info = PngInfo()
        info.add_text("Comment", tag)
        image.save(out, "PNG", pnginfo=info)
    elif image_format == "JPEG":
        image.save(out, "JPEG", quality=92, comment=tag.encode())
    elif image_format == "WEBP":
        image.save(out, "WEBP", quality=95, xmp=tag.encode())
    else:
        raise ValueError(image_format)
    return out.getvalue()


# --------------------------------------------------------------------------------------------
# Hostile images
# --------------------------------------------------------------------------------------------


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png(width: int, height: int, idat: bytes, *, bit_depth: int = 8, tag: str) -> bytes:
    header = struct.pack(">IIBBBBB", width, height, bit_depth, 0, 0, 0, 0)  # greyscale
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"tEXt", b"Comment\x00" + tag.encode())
        + _png_chunk(b"IDAT", idat)
        + _png_chunk(b"IEND", b"")
    )


@functools.cache
def _black_rows(width: int, height: int) -> bytes:
    """zlib data of ``height`` rows of ``width`` black one-bit pixels (filter byte 0 each)."""
    row = b"\x00" + b"\x00" * ((width + 7) // 8)
    compressor = zlib.compressobj(9)
    chunks = [compressor.compress(row * 1000) for _ in range(height // 1000)]
    chunks.append(compressor.compress(row * (height % 1000)))
    return b"".join(chunks) + compressor.flush()


def decompression_bomb_png(tag: str, side: int = 30_000) -> bytes:
    """A real, valid PNG of ``side`` × ``side`` black pixels (900 million by default) that
    weighs about a hundred kilobytes: one bit a pixel, compressed."""
    return _png(side, side, _black_rows(side, side), bit_depth=1, tag=tag)


def lying_png(tag: str, declared: int = 64, actual: int = 30_000) -> bytes:
    """A PNG whose header says ``declared`` × ``declared`` pixels but whose data holds the
    rows of an ``actual`` × ``actual`` image: a reader that trusts the data, not the header,
    inflates 110 MB."""
    return _png(declared, declared, _black_rows(actual, actual), bit_depth=1, tag=tag)


def damaged_png(tag: str) -> bytes:
    """A screenshot whose header's checksum no longer matches (a byte of its size flipped)."""
    content = bytearray(screenshot([f"Damaged {tag}"], tag=tag))
    content[19] ^= 0x40  # the low byte of the width, inside IHDR
    return bytes(content)


def huge_jpeg(tag: str, width: int = 65_000, height: int = 65_000, *, second: bool = False):
    """A JPEG whose frame header says ``width`` × ``height`` pixels. With ``second``, a first
    frame header says 16 × 16 and the huge one comes after it (a decoder may take the last)."""

    def segment(marker: int, data: bytes) -> bytes:
        return struct.pack(">BBH", 0xFF, marker, len(data) + 2) + data

    def frame(w: int, h: int) -> bytes:
        return segment(0xC0, struct.pack(">BHHB", 8, h, w, 1) + b"\x01\x11\x00")

    frames = (frame(16, 16) if second else b"") + frame(width, height)
    return (
        b"\xff\xd8"
        + segment(0xFE, tag.encode())  # a comment
        + frames
        + segment(0xDA, b"\x01\x01\x00\x00\x3f\x00")
        + b"\x00" * 64
        + b"\xff\xd9"
    )
