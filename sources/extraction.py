"""Content-type detection and safe text extraction of uploaded sources.

No Django here (and no Django models): this module and the child process it starts import
only the standard library at import time, so they can be used and tested on their own.

* :func:`detect_media_type` decides PDF / HTML / plain text / Markdown / Word (.docx) /
  OpenDocument text (.odt) / PNG / JPEG / WebP from the bytes alone (the file name may only
  choose between plain text and Markdown) and refuses anything else with
  :class:`UnsupportedUpload`, and images whose header is damaged or declares more pixels than
  a limit (read from the header, in pure Python: nothing is decoded in the web process).
* :func:`extract_text` extracts the text in a child process
  (``python -m sources._extract_child``) with a wall-clock limit, a CPU-time limit and an
  address-space cap, so a hostile file can neither hang nor exhaust the caller. The child
  starts with :data:`CHILD_ENVIRONMENT` and nothing of the caller's environment, and, where
  bubblewrap works, in a sandbox without network and with a read-only view of only what it
  needs (:func:`bwrap_options`), so a parser a hostile file takes over finds no secret to
  steal, nowhere to send one, and nothing to change.

Canonical text (all kinds): "\\r\\n" and "\\r" → "\\n"; NUL, other C0 controls except "\\n" and
"\\t", DEL and C1 controls removed; Unicode NFC. Offsets count code points of that text.

* PDF (pypdfium2): the pages' texts joined with :data:`PAGE_SEPARATOR` ("\\n\\n");
  ``page_offsets[i]`` is where page ``i + 1`` starts (page 1 at 0), so page ``i + 1`` is
  ``text[page_offsets[i]:page_offsets[i + 1] - 2]`` (to the end for the last page). A
  hyphen PDFium recognises as line-end hyphenation is kept with its line break ("ele-\\nment");
  text running past the page edge is kept whole (not cut at the edge).
  Password-protected PDFs → :class:`NoExtractableText`. A PDF without any text is read by
  OCR, as images are (below); more pages than ``ocr_max_pages`` are refused. PDFs
  encrypted without a user password (permissions only) open and are extracted. Truncated or
  damaged PDFs: PDFium repairs what it can (e.g. a lost xref table when the trailer is
  still there); when it cannot open the file → :class:`ExtractionFailed`, and a damaged page
  fails the whole file rather than silently dropping that page. Before PDFium, pypdf checks
  the structure (in the same child, with its output limits set from ours) and the file is
  refused with :class:`ExtractionFailed` when it has more than ``max_pages`` pages, a stream
  that inflates past ``max_stream_mb`` MB, objects nested too deeply or a circular page tree;
  what pypdf merely cannot read (a broken cross-reference table, say) is left to PDFium.
* HTML: ``<title>``, then ``<meta name="description">``, then the main text (trafilatura),
  joined with "\\n\\n"; ``sections`` gives each part's offsets (a missing part is omitted).
  No markup, script, style, event-handler code or URL reaches the text.
* Plain text / Markdown: UTF-8 (a BOM is dropped), kept as written (Markdown is not rendered).
* Word / OpenDocument text: :mod:`sources._documents`, in the same child.
* OCR (scanned PDFs, PNG / JPEG / WebP): each page, rendered by PDFium at 300 DPI or decoded
  by Pillow (refused past ``max_pixels``), grayscale, is read by Tesseract's command line
  (``tesseract stdin stdout -l LANGUAGES tsv``) in the child's sandbox and limits, in those of
  ``ocr_languages`` that are installed. The words of a line are joined by a space, lines by
  "\\n", paragraphs by "\\n\\n"; pages as for PDFs (an image is one page, at 0). The result
  has ``ocr_confidence`` (the mean of the words' confidences, 0-100) and ``ocr_layout``:
  ``{"pages": [{"width", "height", "dpi"}], "words": [[page, start, end, left, top, right,
  bottom], ...]}``, ``text[start:end]`` being the word, on page ``page`` (1 for the first),
  in pixels of the image Tesseract read (an image turned upright as its EXIF says). Each page
  read by OCR brings ``time_limit`` more seconds to the wall-clock limit, and may take that
  long at most. No Tesseract, or none of the languages → :class:`ExtractionFailed` saying
  what to install; no word found → :class:`NoExtractableText`.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import io
import json
import logging
import os
import re
import selectors
import shutil
import signal
import struct
import subprocess
import sys
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from sources._extract_child import (
    DEFAULT_MAX_PAGES,
    DEFAULT_MAX_PIXELS,
    DEFAULT_OCR_LANGUAGES,
    DEFAULT_OCR_MAX_PAGES,
    DOCX,
    HTML,
    IMAGES,
    JPEG,
    MARKDOWN,
    MAX_IMAGE_SIDE,
    ODT,
    PAGE_SEPARATOR,
    PARSER_MODULES,
    PDF,
    PNG,
    PROBE,
    SECTION_SEPARATOR,
    TEXT,
    WEBP,
    canonical_text,
    max_stream_mb_for,
)

__all__ = [
    "DEFAULT_MAX_PIXELS",
    "DOCX",
    "HTML",
    "IMAGES",
    "JPEG",
    "MARKDOWN",
    "MAX_IMAGE_SIDE",
    "MEDIA_TYPES",
    "ODT",
    "PAGE_SEPARATOR",
    "PDF",
    "PNG",
    "SANDBOX_MODES",
    "SECTION_SEPARATOR",
    "TEXT",
    "WEBP",
    "ExtractionFailed",
    "ExtractionResult",
    "NoExtractableText",
    "SandboxUnavailable",
    "UnsupportedUpload",
    "canonical_text",
    "detect_media_type",
    "extract_text",
    "probe_child",
]

MEDIA_TYPES = (PDF, HTML, TEXT, MARKDOWN, DOCX, ODT, PNG, JPEG, WEBP)
#: ``auto``: in the bubblewrap sandbox where it works, else without it (one warning per
#: process); ``bwrap``: in the sandbox or not at all; ``none``: never in the sandbox.
SANDBOX_MODES = ("auto", "bwrap", "none")

logger = logging.getLogger(__name__)


def gettext_noop(message: str) -> str:
    """``message`` as it is, marked for the catalogues (``make messages`` reads this name):
    this module never imports Django, so the site translates it (``sources.services``)."""
    return message


class UnsupportedUpload(Exception):
    """The upload is of no kind that is accepted (:data:`MEDIA_TYPES`), or an image too large
    or damaged to read; ``reason`` tells the user why, in English.

    ``message`` and ``params`` are the same sentence as a catalogue's msgid and its values,
    for the site to say it in the reader's language (``sources.services.check_upload``):
    a text value is a catalogued phrase too ("a PNG image"), a number is a number."""

    def __init__(self, message: str, **params: str | int):
        self.message = message
        self.params = params
        self.reason = message % params if params else message
        super().__init__(self.reason)


class ExtractionFailed(Exception):
    """The text could not be extracted; ``reason`` is stored as the version's extraction_error.
    ``detail`` (may be empty) is for logs only: e.g. the end of the child's stderr.

    Not translated: ``reason`` is stored, and the version's page is read in every language."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


class NoExtractableText(ExtractionFailed):
    """The file was read but holds no text: encrypted or image-only PDF, empty HTML, etc."""


class SandboxUnavailable(RuntimeError):
    """The sandbox is required (``sandbox="bwrap"``) but bubblewrap cannot run here. Not an
    :class:`ExtractionFailed`: the file is not at fault, and must not be marked unreadable."""


# --------------------------------------------------------------------------------------------
# Detection
# --------------------------------------------------------------------------------------------

# Translators: each of these completes "This looks like …, which is not accepted: …"
_ZIP = gettext_noop(
    "a ZIP archive (or an Office or OpenDocument file other than a .docx or .odt text, such as "
    ".xlsx or .ods)"
)
#: An OLE compound file: an old Office file, or a new one encrypted with a password.
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
# (magic bytes at offset 0, what it is, only when the start is binary (not clean text))
_SIGNATURES: list[tuple[bytes, str, bool]] = [
    (b"GIF87a", gettext_noop("a GIF image"), False),
    (b"GIF89a", gettext_noop("a GIF image"), False),
    (b"II*\x00", gettext_noop("a TIFF image"), False),
    (b"MM\x00*", gettext_noop("a TIFF image"), False),
    (b"\x00\x00\x01\x00", gettext_noop("an icon file"), False),
    (b"PK\x03\x04", _ZIP, False),
    (b"PK\x05\x06", _ZIP, False),
    (b"PK\x07\x08", _ZIP, False),
    (
        _OLE,
        gettext_noop("an old Microsoft Office file (.doc, .xls, .ppt)"),
        False,
    ),
    (b"\x1f\x8b", gettext_noop("a gzip-compressed file"), False),
    (b"BZh", gettext_noop("a bzip2-compressed file"), True),
    (b"\xfd7zXZ\x00", gettext_noop("an xz-compressed file"), False),
    (b"(\xb5/\xfd", gettext_noop("a Zstandard-compressed file"), False),
    (b"7z\xbc\xaf\x27\x1c", gettext_noop("a 7-Zip archive"), False),
    (b"Rar!\x1a\x07", gettext_noop("a RAR archive"), False),
    (b"\x7fELF", gettext_noop("an ELF executable"), False),
    (b"\xca\xfe\xba\xbe", gettext_noop("a Java class file or Mach-O executable"), False),
    (b"\xcf\xfa\xed\xfe", gettext_noop("a Mach-O executable"), False),
    (b"\xce\xfa\xed\xfe", gettext_noop("a Mach-O executable"), False),
    (b"\x00asm", gettext_noop("a WebAssembly module"), False),
    (b"SQLite format 3\x00", gettext_noop("an SQLite database"), False),
    (b"%!PS", gettext_noop("a PostScript file"), False),
    (b"{\\rtf", gettext_noop("an RTF document"), False),
    (b"OggS", gettext_noop("an Ogg audio or video file"), True),
    (b"fLaC", gettext_noop("a FLAC audio file"), True),
    (b"ID3", gettext_noop("an MP3 audio file"), True),
    (b"\x1a\x45\xdf\xa3", gettext_noop("a Matroska/WebM video"), False),
    (b"wOFF", gettext_noop("a web font"), True),
    (b"wOF2", gettext_noop("a web font"), True),
    (b"MZ", gettext_noop("a Windows executable"), True),
]
_RIFF = {
    b"WAVE": gettext_noop("a WAV audio file"),
    b"AVI ": gettext_noop("an AVI video"),
}
_ISO_IMAGE_BRANDS = (b"heic", b"heix", b"mif1", b"avif", b"avis")

_PDF_HEADER = re.compile(rb"%PDF-\d\.\d")
_PDF_SEARCH = 1024  # PDF readers accept the header anywhere in the first 1024 bytes
_SNIFF = 4096
#: How much of a text the Markdown and control-character checks look at.
_SAMPLE = 65536
_DECODE_CHUNK = 1 << 20
_LEADING_MISC = re.compile(
    rb"\A(?:\s+|<\?[^>]*\?>|<!--.*?-->|<!(?!doctype)[^>]*>)*", re.DOTALL | re.IGNORECASE
)
_SVG_START = re.compile(rb"<!doctype\s+svg|<svg[\s>:/]", re.IGNORECASE)
_HTML_DOCUMENT = re.compile(rb"<!doctype\s+html|<(?:html|head|body)[\s>/]", re.IGNORECASE)
_HTML_START = re.compile(
    rb"<!doctype\s+html|<(?:html|head|body|title|meta|link|base|script|style|noscript|iframe"
    rb"|h[1-6]|div|span|p|a|b|i|br|hr|font|table|ul|ol|dl|pre|form|img|article|section"
    rb"|main|header|footer|nav|aside|center|blockquote)[\s>/]",
    re.IGNORECASE,
)
_BINARY_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f]")

_MARKDOWN_NAMES = (".md", ".markdown", ".mdown", ".mkd", ".mkdn")
_TEXT_NAMES = (".txt", ".text")
_MD_FEATURES = [
    re.compile(r"^#{1,6}[ \t]+\S", re.MULTILINE),  # ATX heading
    re.compile(r"^[ \t]{0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+\S", re.MULTILINE),  # list item
    re.compile(r"!?\[[^\]\n]+\]\([^)\s]+(?:[ \t]+\"[^\"\n]*\")?\)"),  # [link](url)
    re.compile(r"^[ \t]{0,3}(?:```|~~~)", re.MULTILINE),  # fenced code
    re.compile(r"^\S[^\n]*\n[ \t]{0,3}(?:=+|-{2,})[ \t]*$", re.MULTILINE),  # setext heading
]


def _not_this(what: str) -> UnsupportedUpload:
    return UnsupportedUpload(
        gettext_noop(
            "This looks like %(what)s, which is not accepted: upload a PDF, HTML, text or "
            "Markdown, Word (.docx), OpenDocument (.odt), PNG, JPEG or WebP file."
        ),
        what=what,
    )


# Translators: each of these completes "This looks like …, but it is damaged: …"
_IMAGE_NAMES = {
    PNG: gettext_noop("a PNG image"),
    JPEG: gettext_noop("a JPEG image"),
    WEBP: gettext_noop("a WebP image"),
}
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Start-of-frame markers (which give the size), and the markers that have no length.
_JPEG_FRAMES = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_JPEG_STANDALONE = frozenset([0x01, *range(0xD0, 0xD9)])
_JPEG_FILL = re.compile(rb"\xff+")
#: Segments looked through for the frame header: it comes after a few metadata segments.
_JPEG_MAX_SEGMENTS = 10_000


def _image_type(content: bytes) -> str | None:
    if content.startswith(_PNG_SIGNATURE):
        return PNG
    if content.startswith(b"\xff\xd8\xff"):
        return JPEG
    if content[:4] == b"RIFF" and content[8:12] == b"WEBP":
        return WEBP
    return None


def _png_sizes(content: bytes) -> list[tuple[int, int]]:
    # The IHDR chunk comes first: length 13, type, width, height, ..., CRC.
    if len(content) < 33 or content[8:16] != b"\x00\x00\x00\x0dIHDR":
        return []
    if zlib.crc32(content[12:29]) != struct.unpack_from(">I", content, 29)[0]:
        return []
    return [struct.unpack_from(">II", content, 16)]


def _jpeg_sizes(content: bytes) -> list[tuple[int, int]]:
    """The size of every frame header before the image data (a file may hold more than one,
    and a decoder may take the last)."""
    sizes = []
    position = 2
    for _ in range(_JPEG_MAX_SEGMENTS):
        fill = _JPEG_FILL.match(content, position)
        if fill is None or fill.end() >= len(content):
            return []
        marker = content[fill.end()]
        position = fill.end() + 1
        if marker in _JPEG_STANDALONE:
            continue
        if marker in (0xD9, 0xDA):  # end of image, start of scan: no frame header after this
            return sizes
        if position + 2 > len(content):
            return []
        (length,) = struct.unpack_from(">H", content, position)
        if length < 2 or position + length > len(content):
            return []
        if marker in _JPEG_FRAMES:
            if length < 8:
                return []
            height, width = struct.unpack_from(">HH", content, position + 3)
            sizes.append((width, height))
        position += length
    return []


def _webp_sizes(content: bytes) -> list[tuple[int, int]]:
    kind, data = content[12:16], content[20:30]
    if len(data) < 10:
        return []
    if kind == b"VP8 " and data[3:6] == b"\x9d\x01\x2a":  # lossy: 14-bit sizes after a tag
        width, height = struct.unpack_from("<HH", data, 6)
        return [(width & 0x3FFF, height & 0x3FFF)]
    if kind == b"VP8L" and data[0] == 0x2F:  # lossless: 14-bit sizes, minus one
        (bits,) = struct.unpack_from("<I", data, 1)
        return [((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)]
    if kind == b"VP8X":  # extended: 24-bit canvas sizes, minus one, after 4 bytes of flags
        return [(int.from_bytes(data[4:7], "little") + 1, int.from_bytes(data[7:10], "little") + 1)]
    return []


_IMAGE_SIZES = {PNG: _png_sizes, JPEG: _jpeg_sizes, WEBP: _webp_sizes}


def _check_image(content: bytes, media_type: str, max_pixels: int) -> None:
    """Refuse an image whose header is damaged (its size cannot be read) or which declares
    more than ``max_pixels`` pixels, or more than :data:`MAX_IMAGE_SIDE` pixels a side."""
    sizes = _IMAGE_SIZES[media_type](content)
    if not sizes or not all(width and height for width, height in sizes):
        raise UnsupportedUpload(
            gettext_noop(
                "This looks like %(what)s, but it is damaged: its size in pixels cannot be "
                "read from its header."
            ),
            what=_IMAGE_NAMES[media_type],
        )
    for width, height in sizes:
        if width > MAX_IMAGE_SIDE or height > MAX_IMAGE_SIDE or width * height > max_pixels:
            raise UnsupportedUpload(
                gettext_noop(
                    "This image is %(width)s × %(height)s pixels, more than can be read: the "
                    "limit is %(limit)s pixels in all, and %(side)s pixels a side. Upload a "
                    "smaller image."
                ),
                width=width,
                height=height,
                limit=max_pixels,
                side=MAX_IMAGE_SIDE,
            )


def _zip_document_type(content: bytes) -> str:
    """DOCX or ODT for a Word or OpenDocument text; any other ZIP is refused."""
    # Imported here: sources._documents imports the child module, and is needed only now.
    from sources._documents import document_type

    kind = document_type(content)
    if kind is None:
        raise _not_this(_ZIP)
    return kind


def _is_binary(chunk: bytes) -> bool:
    if _BINARY_CONTROL.search(chunk):
        return True
    try:
        chunk.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < len(chunk) - 3  # a character cut at the chunk's end is fine
    return False


def _known_other_type(content: bytes) -> str | None:
    start_is_binary = _is_binary(content[:64])
    for magic, what, only_if_binary in _SIGNATURES:
        if content.startswith(magic) and (start_is_binary or not only_if_binary):
            return what
    if content[:4] == b"RIFF" and content[8:12] in _RIFF:
        return _RIFF[content[8:12]]
    if content[4:8] == b"ftyp":
        if content[8:12] in _ISO_IMAGE_BRANDS:
            return gettext_noop("an image (HEIC/AVIF)")
        return gettext_noop("a video file")
    return None


def _pdf_header_at(content: bytes) -> int | None:
    match = _PDF_HEADER.search(content, 0, _PDF_SEARCH + 8)
    if match is None:
        return None
    at = match.start()
    # Leading garbage: a line of its own, or binary junk (e.g. a MacBinary header), not
    # "%PDF-1.4" quoted in the middle of a sentence of a text file.
    if at == 0 or content[at - 1 : at] in (b"\n", b"\r") or _is_binary(content[:at]):
        return at
    return None


def _markup_start(content: bytes) -> bytes:
    head = content[:_SNIFF]
    if head.startswith(codecs.BOM_UTF8):
        head = head[3:]
    return head[_LEADING_MISC.match(head).end() :]


def _looks_like_markdown(text: str) -> bool:
    sample = text[:_SAMPLE]
    return sum(1 for pattern in _MD_FEATURES if pattern.search(sample)) >= 2


def _utf8_head(content: bytes, start: int) -> tuple[str, int]:
    """The first :data:`_SAMPLE` characters of ``content[start:]``, and its length in
    characters; :class:`UnsupportedUpload` unless all of it is UTF-8.

    Decoded a chunk at a time and thrown away: the upload's bytes are in memory already, and
    a 20 MB text decoded whole would add as much again (four times that for some scripts).
    """
    view = memoryview(content)
    head, length, position = "", 0, start
    while True:
        chunk = view[position : position + _DECODE_CHUNK]
        final = position + len(chunk) >= len(content)
        try:
            # Not final: a character cut at the chunk's end is left for the next chunk.
            text, used = codecs.utf_8_decode(chunk, "strict", final)
        except UnicodeDecodeError as exc:
            raise UnsupportedUpload(
                gettext_noop(
                    "The file is not valid UTF-8 text (first bad byte at position "
                    "%(position)s). If it is text, save it as UTF-8 and upload it again; "
                    "other files are accepted as PDF, HTML, Word (.docx), OpenDocument (.odt), "
                    "PNG, JPEG or WebP."
                ),
                position=position + exc.start,
            ) from None
        if len(head) < _SAMPLE:
            head += text[: _SAMPLE - len(head)]
        length += len(text)
        position += used
        if final:
            return head, length


def detect_media_type(
    content: bytes, filename: str = "", *, max_pixels: int = DEFAULT_MAX_PIXELS
) -> str:
    """One of :data:`MEDIA_TYPES`, decided from ``content``; raises :class:`UnsupportedUpload`.

    ``filename`` only chooses between TEXT and MARKDOWN for content that is text anyway (and
    lets a ``.md`` file that opens with an HTML fragment such as ``<p align="center">`` stay
    Markdown); it never makes other content acceptable. Order: PNG / JPEG / WebP by magic
    bytes (then their header is checked: :func:`_check_image`, with ``max_pixels``), a ZIP
    (a Word or OpenDocument text, or refused), a password-protected Office file (refused,
    saying so), known other types by magic bytes, ``%PDF-`` at the start, SVG / HTML
    sniffing, ``%PDF-`` later in the first 1024 bytes, then UTF-8 text.
    """
    if not content:
        raise UnsupportedUpload(gettext_noop("The file is empty (0 bytes)."))
    if (image := _image_type(content)) is not None:
        _check_image(content, image, max_pixels)
        return image
    if content.startswith(b"PK\x03\x04"):
        return _zip_document_type(content)
    if content.startswith(_OLE):
        from sources._documents import is_encrypted_office_file

        if is_encrypted_office_file(content):
            raise UnsupportedUpload(
                gettext_noop(
                    "This is a password-protected Office file (such as a Word .docx), so its "
                    "text cannot be read. Save a copy without the password and upload that."
                )
            )
    if (other := _known_other_type(content)) is not None:
        raise _not_this(other)
    if content.startswith(b"%PDF-"):
        return PDF
    if content.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise UnsupportedUpload(
            gettext_noop("The file is UTF-16 text. Save it as UTF-8 text and upload it again.")
        )

    start = _markup_start(content)
    if _SVG_START.match(start):
        raise _not_this(gettext_noop("an SVG image"))
    name = filename.lower()
    if _HTML_START.match(start) and not (
        # A README.md that opens with <p align="center">… is Markdown, not a web page.
        name.endswith(_MARKDOWN_NAMES) and not _HTML_DOCUMENT.match(start)
    ):
        if (nul := content.find(b"\x00")) != -1:
            raise UnsupportedUpload(
                gettext_noop(
                    "The file starts like HTML but contains binary data (a NUL byte at "
                    "position %(position)s), so it cannot be read. Upload a PDF, HTML, text "
                    "or Markdown, Word (.docx), OpenDocument (.odt), PNG, JPEG or WebP file."
                ),
                position=nul,
            )
        return HTML
    if _pdf_header_at(content) is not None:
        return PDF

    head, length = _utf8_head(content, 3 if content.startswith(codecs.BOM_UTF8) else 0)
    if (nul := content.find(b"\x00")) != -1:
        raise UnsupportedUpload(
            gettext_noop(
                "The file contains binary data (a NUL byte at position %(position)s) and is of "
                "no kind that is accepted. Upload a PDF, HTML, text or Markdown, Word (.docx), "
                "OpenDocument (.odt), PNG, JPEG or WebP file."
            ),
            position=nul,
        )
    controls = len(_BINARY_CONTROL.findall(content[:_SAMPLE]))
    if controls and controls * 100 >= min(length, _SAMPLE):
        raise UnsupportedUpload(
            gettext_noop(
                "The file contains binary control characters and is of no kind that is "
                "accepted. Upload a PDF, HTML, text or Markdown, Word (.docx), OpenDocument "
                "(.odt), PNG, JPEG or WebP file."
            )
        )

    if name.endswith(_MARKDOWN_NAMES):
        return MARKDOWN
    if name.endswith(_TEXT_NAMES):
        return TEXT
    return MARKDOWN if _looks_like_markdown(head) else TEXT


# --------------------------------------------------------------------------------------------
# Extraction
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExtractionResult:
    text: str  # canonical: Unicode NFC, "\n" line endings, no NUL / control characters
    page_offsets: list[int] = field(default_factory=list)  # PDF: where each page starts
    sections: list[dict] = field(default_factory=list)  # HTML: title / description / body
    extractor: str = ""  # e.g. "pypdfium2 5.15.2", "trafilatura 2.3.1", "utf-8"
    ocr_confidence: float | None = None  # OCR: the mean word confidence, 0-100; else None
    ocr_layout: dict = field(default_factory=dict)  # OCR: SourceVersion.ocr_layout


#: The folder that holds the ``sources`` package: the child runs with it as cwd / PYTHONPATH.
_IMPORT_ROOT = Path(__file__).resolve().parent.parent
_CHILD_MODULE = "sources._extract_child"
_READ_CHUNK = 1 << 16
_STDERR_KEPT = 4000
_CRASH_SIGNALS = {signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGTRAP}

#: The extraction child's whole environment. Nothing of the worker's is passed on: it holds
#: SECRET_KEY, DATABASE_URL, the storage and mail credentials, and the child parses hostile
#: files. A parser that needs a variable gets it here, by name.
CHILD_ENVIRONMENT = {
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "HOME": "/nonexistent",
    "PYTHONPATH": str(_IMPORT_ROOT),
    "PYTHONIOENCODING": "utf-8",
    # Nothing is writable in the sandbox, and the child may write no file anyway (its
    # RLIMIT_FSIZE is 0): no .pyc is even tried.
    "PYTHONDONTWRITEBYTECODE": "1",
    # Tesseract reads a page on one core: a worker extracts files side by side, and OpenMP's
    # threads would only contend with each other.
    "OMP_THREAD_LIMIT": "1",
}


@dataclass
class _ChildRun:
    returncode: int
    stdout: bytearray
    stderr: bytes
    timed_out: bool
    peak_rss_kb: int  # ru_maxrss of the child (kilobytes on Linux)
    seconds: float
    ocr_pages: int = 0  # pages the child said it reads by OCR (each brought more time)


class _OcrProgress:
    """The pipe on which the child says how many pages it will read by OCR: each brings
    ``page_seconds`` more seconds of wall-clock time, for ``max_pages`` pages in all at most
    (a child taken over by a hostile file gets no more than that)."""

    def __init__(self, page_seconds: float, max_pages: int):
        self.read_fd, self.write_fd = os.pipe()
        self.page_seconds = page_seconds
        self.max_pages = max_pages
        self.pages = 0
        self._pending = b""

    def more_seconds(self, chunk: bytes) -> float:
        """The seconds that the pages announced in ``chunk`` (a count and "\\n") bring."""
        *lines, rest = (self._pending + chunk).split(b"\n")
        self._pending = rest[-20:]  # a count is a few digits; more is noise
        granted = 0
        for line in lines:
            pages = int(line[-20:]) if line.isdigit() else 0
            pages = min(pages, self.max_pages - self.pages)
            self.pages += pages
            granted += pages
        return granted * self.page_seconds

    def close(self) -> None:
        """Close both ends, once (a number closed twice may be another file's by then)."""
        for name in ("read_fd", "write_fd"):
            fd = getattr(self, name)
            setattr(self, name, -1)
            if fd >= 0:
                os.close(fd)


# --------------------------------------------------------------------------------------------
# The sandbox (bubblewrap)
# --------------------------------------------------------------------------------------------


def _bwrap_binds() -> list[str]:
    """Read-only binds of what the child needs and nothing else: the system's programs and
    libraries, the Python installation and virtualenv with its packages, and the ``sources``
    package. Not the project's other files, the uploads, the database, /etc or /home."""
    options = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/", name)
        if path.is_symlink():  # merged /usr: /lib -> usr/lib
            options += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            options += ["--ro-bind", str(path), str(path)]
    # The dynamic loader's cache; no secret is kept in it.
    options += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    bound = [Path("/usr")]
    wanted = (
        sys.base_prefix,
        sys.base_exec_prefix,
        sys.prefix,
        sys.exec_prefix,
        Path(sys.executable).resolve().parent,
        _IMPORT_ROOT / "sources",
    )
    for path in map(Path, wanted):
        if path.is_dir() and not any(path.is_relative_to(done) for done in bound):
            options += ["--ro-bind", str(path), str(path)]
            bound.append(path)
    return options


@functools.cache
def bwrap_options() -> tuple[str, ...]:
    """bubblewrap's options for the extraction child: every namespace of its own (no network
    but a loopback of its own, no other process, no IPC), no capability, killed with the
    worker, a session of its own (no terminal to push keys into), :func:`_bwrap_binds`
    read-only, a minimal /dev and its own /proc, and everything else read-only too, so the
    child can write nowhere: its only output is its stdout pipe."""
    return (
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        *_bwrap_binds(),
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--remount-ro",
        "/dev",
        "--remount-ro",
        "/",
        "--chdir",
        str(_IMPORT_ROOT),
    )


@functools.cache
def bwrap_check() -> tuple[str | None, str]:
    """``(bwrap's path, "")`` when the child runs in the sandbox here, else ``(None, why
    not)``. Checked once per process, by starting the child in the sandbox the way
    extraction does and importing its parsers there."""
    path = shutil.which("bwrap")
    if path is None:
        return None, "bubblewrap (bwrap) is not installed"
    try:
        report = _probe(path, {"import": PARSER_MODULES}, time_limit=60, memory_limit_mb=1024)
    except ExtractionFailed as failure:
        # e.g. "bwrap: No permissions to create new namespace" where user namespaces are off
        last = failure.detail.splitlines()[-1] if failure.detail else failure.reason
        return None, f"{path} cannot start the extraction child ({last[:300]})"
    failed = {name: outcome for name, outcome in report["import"].items() if outcome != "done"}
    if failed:
        return None, f"the extraction child cannot import {failed} inside {path}'s sandbox"
    return path, ""


_warned: set[str] = set()


def _bwrap_for(sandbox: str) -> str | None:
    """The bwrap to start the child with, or None to start it without the sandbox."""
    if sandbox not in SANDBOX_MODES:
        raise ValueError(f"sandbox must be one of {SANDBOX_MODES}, not {sandbox!r}")
    if sandbox == "none":
        return None
    path, problem = bwrap_check()
    if path is not None:
        return path
    if sandbox == "bwrap":
        raise SandboxUnavailable(f"The extraction sandbox is required, but {problem}.")
    if problem not in _warned:  # once per process, not once per file
        _warned.add(problem)
        logger.warning(
            "Text extraction runs WITHOUT its sandbox: %s. The extraction child still starts "
            "with an empty environment and its resource limits, but it can reach the network "
            "and read what the worker can read. Install bubblewrap (apt-get install "
            "bubblewrap) with user namespaces enabled, or set EXTRACTION_SANDBOX=none to say "
            "that this is intended (see docs/operations.md, 'Extraction sandbox').",
            problem,
        )
    return None


# --------------------------------------------------------------------------------------------
# The child process
# --------------------------------------------------------------------------------------------


def _run_child(
    args: list[str],
    data: bytes | BinaryIO,
    time_limit: float,
    *,
    sandboxed: bool = False,
    progress: _OcrProgress | None = None,
) -> _ChildRun:
    """Run ``args`` with ``data`` (bytes, or a binary file read a chunk at a time) on stdin;
    kill its process group past ``time_limit``, plus the time ``progress`` grants for pages
    read by OCR. ``sandboxed``: ``args`` start bwrap, which exits with 128 + N when the child
    is killed by signal N."""
    started = time.monotonic()
    deadline = started + time_limit
    # Streamed from a file, a large upload is never held whole in the worker.
    source = data if hasattr(data, "read") else io.BytesIO(data)
    # Our own interpreter and child module, never a shell; the upload goes in on stdin.
    proc = subprocess.Popen(  # noqa: S603
        args,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=_IMPORT_ROOT,
        env=CHILD_ENVIRONMENT,
        start_new_session=True,  # its own process group, so a kill reaches everything in it
        close_fds=True,
        pass_fds=(progress.write_fd,) if progress else (),
    )
    if progress:
        os.close(progress.write_fd)  # the child's now: at its exit the pipe ends
        progress.write_fd = -1
    out, err = bytearray(), bytearray()
    pending = memoryview(b"")
    timed_out = False
    status = rusage = None
    try:
        with selectors.DefaultSelector() as selector:
            os.set_blocking(proc.stdin.fileno(), False)
            selector.register(proc.stdin, selectors.EVENT_WRITE)
            selector.register(proc.stdout, selectors.EVENT_READ, out)
            selector.register(proc.stderr, selectors.EVENT_READ, err)
            if progress:
                selector.register(progress.read_fd, selectors.EVENT_READ, progress)
            while selector.get_map():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    timed_out = True
                    break
                for key, _ in selector.select(remaining):
                    if key.fileobj is proc.stdin:
                        if not pending:
                            pending = memoryview(source.read(_READ_CHUNK))
                        try:
                            sent = os.write(key.fd, pending) if pending else 0
                        except BlockingIOError:
                            continue
                        except BrokenPipeError:
                            sent, pending = 0, None  # the child stopped reading: it will report
                        if pending:
                            pending = pending[sent:]
                        else:  # all sent
                            selector.unregister(proc.stdin)
                            proc.stdin.close()
                    elif progress and key.fd == progress.read_fd:
                        chunk = os.read(key.fd, 256)
                        if chunk:
                            deadline += progress.more_seconds(chunk)
                        else:
                            selector.unregister(key.fileobj)
                    else:
                        chunk = os.read(key.fd, _READ_CHUNK)
                        if chunk:
                            key.data.extend(chunk)
                            if key.data is err and len(err) > 4 * _STDERR_KEPT:
                                del err[: len(err) - _STDERR_KEPT]
                        else:
                            selector.unregister(key.fileobj)
        # The pipes are closed; the child is exiting. Reap it, still within the deadline.
        while not timed_out:
            pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() >= deadline:
                timed_out = True
            else:
                time.sleep(0.005)
    finally:
        if status is None:  # timed out, or the caller was interrupted: never leave it running
            with contextlib.suppress(ProcessLookupError):
                # bwrap (--die-with-parent) takes its sandbox, and the child in it, along.
                os.killpg(proc.pid, signal.SIGKILL)
            _, status, rusage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream and not stream.closed:
                stream.close()
        if progress:
            progress.close()
    returncode = proc.returncode
    if sandboxed and 128 < returncode < 128 + signal.NSIG:
        returncode = 128 - returncode  # as if unsandboxed: -N for signal N
    return _ChildRun(
        returncode=returncode,
        stdout=out,
        stderr=bytes(err[-_STDERR_KEPT:]),
        timed_out=timed_out,
        peak_rss_kb=rusage.ru_maxrss,  # bwrap reaps the child: its peak is counted here
        seconds=time.monotonic() - started,
        ocr_pages=progress.pages if progress else 0,
    )


def _child_args(
    media_type: str,
    time_limit: float,
    memory_limit_mb: int,
    max_pages: int = DEFAULT_MAX_PAGES,
    max_stream_mb: int | None = None,
    *,
    ocr_languages: str = DEFAULT_OCR_LANGUAGES,
    ocr_max_pages: int = DEFAULT_OCR_MAX_PAGES,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    progress_fd: int | None = None,
    bwrap: str | None = None,
) -> list[str]:
    if max_stream_mb is None:
        max_stream_mb = max_stream_mb_for(memory_limit_mb)
    sandbox = [bwrap, *bwrap_options(), "--"] if bwrap else []
    return [
        *sandbox,
        sys.executable,
        "-m",
        _CHILD_MODULE,
        media_type,
        repr(float(time_limit)),
        str(int(memory_limit_mb)),
        str(int(max_pages)),
        str(int(max_stream_mb)),
        ocr_languages,
        str(int(ocr_max_pages)),
        str(int(max_pixels)),
        "-" if progress_fd is None else str(progress_fd),
    ]


def _time_message(time_limit: float, ocr_pages: int = 0) -> str:
    if ocr_pages:
        total = time_limit * (1 + ocr_pages)
        return (
            f"Extraction took longer than {total:g} seconds ({time_limit:g} seconds, and "
            f"{time_limit:g} more for each of the {ocr_pages} pages read by OCR) and was stopped."
        )
    return f"Extraction took longer than {time_limit:g} seconds and was stopped."


def _memory_message(memory_limit_mb: int) -> str:
    return (
        f"Extraction needed more than the {memory_limit_mb} MB memory limit and was stopped "
        "(the file may be built to exhaust memory, or be too complex)."
    )


def _reply_from(run: _ChildRun, time_limit: float, memory_limit_mb: int) -> dict:
    """The child's reply (its first line), once its exit says it finished; ExtractionFailed
    naming the limit it ran into or how it failed otherwise."""
    detail = run.stderr.decode("utf-8", "replace").strip()
    if run.timed_out:
        raise ExtractionFailed(_time_message(time_limit, run.ocr_pages), detail)
    if run.returncode < 0:
        number = -run.returncode
        name = signal.Signals(number).name if number in signal.Signals else str(number)
        if number == signal.SIGXCPU:
            raise ExtractionFailed(_time_message(time_limit, run.ocr_pages), detail)
        near_cap = run.peak_rss_kb * 1024 >= memory_limit_mb * 1024 * 1024 // 2
        if near_cap and (number in _CRASH_SIGNALS or number == signal.SIGKILL):
            # PDFium aborts when an allocation fails under RLIMIT_AS.
            raise ExtractionFailed(_memory_message(memory_limit_mb), detail)
        raise ExtractionFailed(
            f"The file could not be read: the extractor stopped unexpectedly ({name}).", detail
        )
    if run.returncode != 0:
        if "MemoryError" in detail:
            raise ExtractionFailed(_memory_message(memory_limit_mb), detail)
        last = detail.splitlines()[-1] if detail else f"exit status {run.returncode}"
        raise ExtractionFailed(f"The extractor failed to start or run ({last[:200]}).", detail)
    end = run.stdout.find(b"\n")
    try:
        reply = json.loads(run.stdout[:end]) if end >= 0 else None
    except ValueError:
        reply = None
    if not isinstance(reply, dict):
        raise ExtractionFailed("The extractor returned no usable result.", detail)
    if not reply.get("ok"):
        kind, reason = reply.get("kind"), reply.get("reason", "")
        if kind == "memory":
            raise ExtractionFailed(_memory_message(memory_limit_mb), detail)
        if kind == "no_text":
            raise NoExtractableText(reason, detail)
        if kind == "crash":
            raise ExtractionFailed(f"The file could not be read ({reason}).", detail)
        raise ExtractionFailed(reason, detail)
    reply["detail"] = detail
    return reply


def _result_from(run: _ChildRun, time_limit: float, memory_limit_mb: int) -> ExtractionResult:
    reply = _reply_from(run, time_limit, memory_limit_mb)
    # Decoded in place from the reply's buffer, which is dropped as soon as the text is made.
    body = memoryview(run.stdout)[run.stdout.find(b"\n") + 1 :]
    try:
        if len(body) != reply.get("text_bytes"):
            raise ExtractionFailed("The extractor returned no usable result.", reply["detail"])
        text = str(body, "utf-8")
    except UnicodeDecodeError:
        raise ExtractionFailed(
            "The extractor returned no usable result.", reply["detail"]
        ) from None
    finally:
        body.release()
    run.stdout.clear()
    return ExtractionResult(
        text=text,
        page_offsets=list(reply["page_offsets"]),
        sections=list(reply["sections"]),
        extractor=reply["extractor"],
        ocr_confidence=reply.get("ocr_confidence"),
        ocr_layout=reply.get("ocr_layout") or {},
    )


def _probe(bwrap: str | None, request: dict, *, time_limit: float, memory_limit_mb: int) -> dict:
    args = _child_args(PROBE, time_limit, memory_limit_mb, bwrap=bwrap)
    run = _run_child(args, json.dumps(request).encode(), time_limit, sandboxed=bool(bwrap))
    return _reply_from(run, time_limit, memory_limit_mb)


def probe_child(
    request: dict | None = None,
    *,
    sandbox: str = "auto",
    time_limit: float = 30,
    memory_limit_mb: int = 512,
) -> dict:
    """What the extraction child sees from inside its limits and sandbox, started exactly as
    :func:`extract_text` starts it: its ``environ``, ``uid`` and the outcome of each of the
    ``request``'s attempts (``connect``: ``[host, port]``; ``write``, ``read``: paths;
    ``import``: modules), "done" or the error. For the tests and for checking a server."""
    bwrap = _bwrap_for(sandbox)
    return _probe(bwrap, request or {}, time_limit=time_limit, memory_limit_mb=memory_limit_mb)


_OCR_LANGUAGES = re.compile(r"[A-Za-z0-9_]+(?:\+[A-Za-z0-9_]+)*")


def extract_text(
    content: bytes | BinaryIO,
    media_type: str,
    *,
    time_limit: float = 30,
    memory_limit_mb: int = 512,
    max_pages: int = DEFAULT_MAX_PAGES,
    max_stream_mb: int | None = None,
    sandbox: str = "auto",
    ocr_languages: str = DEFAULT_OCR_LANGUAGES,
    ocr_max_pages: int = DEFAULT_OCR_MAX_PAGES,
    max_pixels: int = DEFAULT_MAX_PIXELS,
) -> ExtractionResult:
    """Extract the canonical text of ``content`` (of a type from :func:`detect_media_type`):
    bytes, or a binary file, which is streamed to the child and never read whole here.

    Runs in a child process limited to ``time_limit`` seconds of wall-clock time (and about as
    much CPU time) and ``memory_limit_mb`` MB of address space, with the environment
    :data:`CHILD_ENVIRONMENT` only, and in the bubblewrap sandbox as ``sandbox`` says
    (:data:`SANDBOX_MODES`). A PDF of more than ``max_pages`` pages, or with a stream that
    inflates past ``max_stream_mb`` MB (default: an eighth of ``memory_limit_mb``), is refused
    before PDFium reads it, as is one nested too deeply or with a circular page tree. Raises
    :class:`NoExtractableText` when the file holds no text and :class:`ExtractionFailed` when
    it cannot be read, is refused, runs past a limit or crashes the extractor;
    :class:`SandboxUnavailable` when the sandbox is required and cannot run.

    Images, and PDFs without any text of at most ``ocr_max_pages`` pages, are read by OCR in
    ``ocr_languages`` (Tesseract's codes joined with "+"; those installed are used): each page
    brings ``time_limit`` more seconds to the wall-clock limit, and may take that long at
    most. An image of more than ``max_pixels`` pixels is refused, as a PDF page is rendered
    with no more.
    """
    if media_type not in MEDIA_TYPES:
        raise ValueError(f"media_type must be one of {MEDIA_TYPES}, not {media_type!r}")
    if time_limit <= 0 or memory_limit_mb <= 0:
        raise ValueError("time_limit and memory_limit_mb must be positive")
    if max_pages <= 0 or (max_stream_mb is not None and max_stream_mb <= 0):
        raise ValueError("max_pages and max_stream_mb must be positive")
    if ocr_max_pages <= 0 or max_pixels <= 0:
        raise ValueError("ocr_max_pages and max_pixels must be positive")
    if not _OCR_LANGUAGES.fullmatch(ocr_languages):
        raise ValueError(f"ocr_languages must be codes joined with '+', not {ocr_languages!r}")
    bwrap = _bwrap_for(sandbox)
    # Only what may need OCR may ask for more time: a parser of any other kind that a
    # hostile file took over must not stretch its own limits by announcing pages.
    reads_by_ocr = media_type == PDF or media_type in IMAGES
    progress = _OcrProgress(time_limit, ocr_max_pages) if reads_by_ocr else None
    try:
        args = _child_args(
            media_type,
            time_limit,
            memory_limit_mb,
            max_pages,
            max_stream_mb,
            ocr_languages=ocr_languages,
            ocr_max_pages=ocr_max_pages if reads_by_ocr else 0,
            max_pixels=max_pixels,
            progress_fd=progress.write_fd if progress else None,
            bwrap=bwrap,
        )
        run = _run_child(args, content, time_limit, sandboxed=bool(bwrap), progress=progress)
    finally:
        if progress:
            progress.close()
    return _result_from(run, time_limit, memory_limit_mb)
