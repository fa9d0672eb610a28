"""The extraction child process: ``python -m sources._extract_child MEDIA_TYPE TIME
MEMORY_MB MAX_PAGES MAX_STREAM_MB OCR_LANGUAGES OCR_MAX_PAGES MAX_PIXELS PROGRESS_FD``.

Reads the uploaded bytes on stdin, extracts the text and writes to stdout ONE line of JSON,
then, on success, the text itself in UTF-8 (``text_bytes`` bytes of it):

    {"ok": true, "text_bytes": ..., "page_offsets": [...], "sections": [...], "extractor": ...,
     "ocr_confidence": null | 0-100, "ocr_layout": {} | {"pages": [...], "words": [...]}}
    {"ok": false, "kind": "failed" | "no_text" | "memory" | "crash", "reason": "..."}

The text goes out raw, not as a JSON string, so that the worker reading a huge text holds it
once or twice, not four times over (the reply, its decoding, the parsed string...).

Resource limits (address space, CPU seconds, no file written, no core dumps) are set here,
first thing, before any parser is imported, so they also bound the libraries' own start-up.
The parent (:mod:`sources.extraction`) starts this process with an empty environment, in the
bubblewrap sandbox where it can, adds a wall-clock limit and kills the process group past it.

A PDF is first checked by pypdf (:func:`check_pdf_structure`), with output limits derived
from the memory cap, for what a hostile file uses: more pages than ``MAX_PAGES``, a stream
that inflates past ``MAX_STREAM_MB``, structure nested too deeply or a page tree that loops.
Anything else pypdf cannot read is left to PDFium, which extracts the text and repairs what
it can.

A PDF without any text, and a PNG, JPEG or WebP image, are read by OCR (:func:`ocr_pdf`,
:func:`extract_image`): each page is rendered (PDFium) or decoded (Pillow, under
``MAX_PIXELS``), made grayscale and piped to Tesseract's command line, a child of this
process inside the same sandbox and limits. Before it starts, this process writes the
number of pages it will read by OCR to ``PROGRESS_FD`` ("-": none), and the parent gives it
``TIME`` seconds more for each one (up to ``OCR_MAX_PAGES``); each page has ``TIME`` seconds
of Tesseract at most.

``MEDIA_TYPE`` :data:`PROBE` is not a file: the child reports what it can see and do from
inside its limits and sandbox (:func:`probe`), for the parent's check that the sandbox works
and for the tests that prove it holds no secrets, network or writable file system.

This module imports only the standard library at import time (the parent imports
:func:`canonical_text` from here) and never Django; the PDF, HTML, image and document
libraries are imported inside the functions that need them.
"""

from __future__ import annotations

import collections
import io
import json
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

PDF, HTML, TEXT, MARKDOWN = "application/pdf", "text/html", "text/plain", "text/markdown"
PNG, JPEG, WEBP = "image/png", "image/jpeg", "image/webp"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
ODT = "application/vnd.oasis.opendocument.text"
#: Read by OCR, always.
IMAGES = (PNG, JPEG, WEBP)
#: Not a media type: asks the child for :func:`probe`'s report instead of a text.
PROBE = "x-sandbox-probe"
#: What extraction imports: the parent's sandbox check imports them all inside the sandbox.
PARSER_MODULES = (
    "pypdf",
    "pypdfium2",
    "trafilatura",
    "lxml.html",
    "PIL.Image",
    "docx",
    "odfdo",
)

#: Images of more pixels than this, or wider or taller than :data:`MAX_IMAGE_SIDE`, are
#: refused: decoded, one would take more memory than extraction has.
DEFAULT_MAX_PIXELS = 40_000_000
MAX_IMAGE_SIDE = 20_000
#: Defaults for a direct call (the parent passes the settings OCR_LANGUAGES, OCR_MAX_PAGES).
DEFAULT_OCR_LANGUAGES = "eng+spa+por+fra+ara"
DEFAULT_OCR_MAX_PAGES = 50

#: Pages of a PDF are joined with this; ``page_offsets[i]`` is where page ``i + 1`` starts.
PAGE_SEPARATOR = "\n\n"
#: Title, description and body of an HTML page are joined with this.
SECTION_SEPARATOR = "\n\n"

# C0 controls except TAB and LF, DEL, C1 controls, and lone surrogates.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def canonical_text(text: str) -> str:
    """The stored form of any extracted text: "\\r\\n" and "\\r" become "\\n", NUL and other
    control characters (except "\\n" and "\\t") are removed, then Unicode NFC."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text)
    return unicodedata.normalize("NFC", text)


class Failure(Exception):
    def __init__(self, kind: str, reason: str):
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


def _join(parts: list[tuple[str, str]], separator: str) -> tuple[str, list[dict]]:
    """Join canonical ``(kind, text)`` parts, returning the text and each part's offsets.

    Parts are canonicalised one by one: "\\n" never composes under NFC, so that equals
    canonicalising the joined text, and the offsets stay exact (in code points).
    """
    out: list[str] = []
    sections = []
    position = 0
    for kind, part in parts:
        if out:
            out.append(separator)
            position += len(separator)
        out.append(part)
        sections.append({"kind": kind, "start": position, "end": position + len(part)})
        position += len(part)
    return "".join(out), sections


# --------------------------------------------------------------------------------------------
# PDF structural pre-check (pypdf)
# --------------------------------------------------------------------------------------------

#: Direct objects nested deeper than this are refused. PDFium stops parsing at 64 levels, and
#: real files stay far below that; a deeper nesting is built to exhaust a parser's stack.
MAX_PDF_NESTING = 100

#: Defaults for a direct call of :func:`extract_pdf` (the parent passes its settings).
DEFAULT_MAX_PAGES = 5000
DEFAULT_MAX_STREAM_MB = 64


def max_stream_mb_for(memory_limit_mb: int) -> int:
    """The most one PDF stream may inflate to under a ``memory_limit_mb`` address-space cap:
    an eighth, so that a chain of filters (each output held while the next one runs), the
    parsed objects and PDFium itself still fit."""
    return max(1, memory_limit_mb // 8)


def _refused(reason: str) -> Failure:
    return Failure("failed", f"This PDF was refused: {reason}")


def _too_many_pages(count: int | None, max_pages: int) -> Failure:
    if count is None:
        return _refused(f"it has more than {max_pages:,} pages, the most that is accepted.")
    return _refused(f"it has {count:,} pages, more than the limit of {max_pages:,} pages.")


def _bomb(max_stream_mb: int) -> Failure:
    return _refused(
        f"a compressed stream expands beyond {max_stream_mb} MB — possibly a decompression bomb."
    )


_NESTED = _refused(
    f"its structure is nested too deeply (more than {MAX_PDF_NESTING} levels) — possibly "
    "built to exhaust the reader."
)
_CIRCULAR = _refused(
    "its page tree is circular (a node lists itself, or one of its parents, as a child)."
)


def _caused_by_recursion(exc: BaseException) -> bool:
    seen = 0
    while exc is not None and seen < 20:
        if isinstance(exc, RecursionError):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def _limit_failure(exc: Exception, max_pages: int, max_stream_mb: int) -> Failure | None:
    """The refusal for a pypdf LimitReachedError met while reading the structure, or None
    when the limit is one that a damaged but repairable file can reach (left to PDFium)."""
    message = str(exc).lower()
    if "decompress" in message or "decoding" in message or "buffer size" in message:
        return _bomb(max_stream_mb)
    if "cycl" in message:
        return _CIRCULAR
    if "page tree entry" in message or "page entry" in message:
        return _too_many_pages(None, max_pages)
    if "depth" in message:
        return _NESTED
    return None


def _pypdf_configuration(pypdf, max_stream_bytes: int, max_pages: int):
    """pypdf's resource limits, set explicitly from ours (its module-level ``*_MAX_*``
    constants are gone in pypdf 7: changing them raises DeprecationError)."""
    return pypdf.Configuration().with_overwrites(
        zlib_maximum_output_length=max_stream_bytes,
        lzw_maximum_output_length=max_stream_bytes,
        run_length_maximum_output_length=max_stream_bytes,
        jbig2_maximum_output_length=max_stream_bytes,
        brotli_maximum_output_length=max_stream_bytes,
        maximum_declared_stream_length=max_stream_bytes,
        array_based_stream_maximum_output_length=max_stream_bytes,
        image_maximum_buffer_size=max_stream_bytes,
        stream_decoding_work_maximum_length=4 * max_stream_bytes,
        # Entries (pages and /Pages nodes) of the page tree: room for max_pages pages.
        page_tree_maximum_entries=2 * max_pages + 100,
        # Never run an external program (jbig2dec) on an upload.
        jbig2dec_binary=None,
    )


def _is_structural(exc: Exception) -> bool:
    """Whether a pypdf error met on one object is about the file's structure as a whole (a
    limit, a cycle, exhausted memory or stack) rather than damage to that object."""
    from pypdf.errors import LimitReachedError

    return (
        isinstance(exc, (LimitReachedError, MemoryError))
        or _caused_by_recursion(exc)
        or "cycl" in str(exc).lower()
    )


def _walk_pdf_objects(reader, max_stream_mb: int) -> None:
    """Visit every object reachable from the catalog once, without recursion (so loops and
    deep chains of references cost nothing extra), decoding each stream under the limits and
    dropping the result. Raises Failure for nesting past MAX_PDF_NESTING and for a stream
    that reaches a decoding limit. An object pypdf cannot read is skipped, so that damage
    (or a pypdf bug) in one object does not hide a bomb in another."""
    from pypdf.errors import LimitReachedError
    from pypdf.filters import decode_stream_data
    from pypdf.generic import (
        ArrayObject,
        DictionaryObject,
        EncodedStreamObject,
        IndirectObject,
    )

    visited: set[tuple[int, int]] = set()
    stack = [(reader.trailer.raw_get("/Root"), 0)]
    while stack:
        obj, depth = stack.pop()
        if isinstance(obj, IndirectObject):
            key = (obj.idnum, obj.generation)
            if key not in visited:
                visited.add(key)
                try:
                    stack.append((obj.get_object(), 0))
                except Exception as exc:
                    if _is_structural(exc):
                        raise
            continue
        if depth > MAX_PDF_NESTING:
            raise _NESTED
        if isinstance(obj, EncodedStreamObject):
            try:
                decode_stream_data(obj)
            except LimitReachedError:
                raise _bomb(max_stream_mb) from None
            except Exception:  # noqa: S110 - an undecodable stream is PDFium's to judge
                pass
        if isinstance(obj, DictionaryObject):
            stack.extend((value, depth + 1) for value in obj.values())
        elif isinstance(obj, ArrayObject):
            stack.extend((value, depth + 1) for value in obj)


def check_pdf_structure(content: bytes, *, max_pages: int, max_stream_mb: int) -> None:
    """Refuse (raise :class:`Failure`) a PDF that is built to exhaust a reader: more than
    ``max_pages`` pages, a stream that inflates past ``max_stream_mb`` MB, objects nested
    deeper than :data:`MAX_PDF_NESTING`, or a page tree that contains itself.

    pypdf (strict=False) reads the structure with its output limits set from ours. Whatever
    else it cannot read (a broken cross-reference table, a truncated file, a password, a
    pypdf bug) is not refused here: PDFium repairs what it can and reports the rest.
    """
    import gc
    import io

    import pypdf
    from pypdf.errors import LimitReachedError, PdfReadError

    configuration = _pypdf_configuration(pypdf, max_stream_mb * 1024 * 1024, max_pages)
    reader = None
    try:
        with pypdf.apply_configuration(configuration):
            reader = pypdf.PdfReader(io.BytesIO(content), strict=False)
            if reader.is_encrypted and not reader.decrypt(""):
                return  # needs a password: PDFium says so
            count = len(reader.pages)
            if count > max_pages:
                raise _too_many_pages(count, max_pages)
            _walk_pdf_objects(reader, max_stream_mb)
    except Failure:
        raise
    except RecursionError:
        raise _NESTED from None
    except LimitReachedError as exc:
        failure = _limit_failure(exc, max_pages, max_stream_mb)
        if failure is not None:
            raise failure from None
    except PdfReadError as exc:
        if _caused_by_recursion(exc):
            raise _NESTED from None
        if "cycl" in str(exc).lower():
            raise _CIRCULAR from None
    except MemoryError:
        pass  # pypdf's object cache outgrew the cap: PDFium, lighter, decides alone
    except Exception:  # noqa: S110 - pypdf fails on many damaged files PDFium can repair
        pass
    finally:
        del reader
        gc.collect()


# --------------------------------------------------------------------------------------------
# PDF (pypdfium2)
# --------------------------------------------------------------------------------------------


# Far beyond any page: text that overflows the page box (a line running past the margin) is
# kept whole instead of being cut at the edge mid-word, as the default page-box bounds would.
_UNBOUNDED = {"left": -1e7, "bottom": -1e7, "right": 1e7, "top": 1e7}


def _pdfium_page_text(textpage) -> str:
    text = textpage.get_text_bounded(**_UNBOUNDED)
    # PDFium marks a hyphen it took for a line-end hyphenation with U+0002 and drops the line
    # break after it; put both back so the text reads as the page does ("ele-\nment").
    return text.replace("\x02", "-\n")


def extract_pdf(
    content: bytes,
    *,
    max_pages: int = DEFAULT_MAX_PAGES,
    max_stream_mb: int = DEFAULT_MAX_STREAM_MB,
    ocr: OcrOptions | None = None,
) -> dict:
    """The text of a PDF, page by page (PDFium), after :func:`check_pdf_structure`; read by
    OCR (:func:`ocr_pdf`) when no page has any text, as ``ocr`` says."""
    check_pdf_structure(content, max_pages=max_pages, max_stream_mb=max_stream_mb)

    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    extractor = f"pypdfium2 {_version('pypdfium2')}"
    try:
        document = pdfium.PdfDocument(content)
    except pdfium.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        if code in (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY):
            raise Failure(
                "no_text",
                "This PDF is encrypted and needs a password to open, so its text cannot be "
                "read. Upload a copy without the password.",
            ) from None
        raise Failure(
            "failed",
            "The PDF could not be read: it is damaged or incomplete (for example a truncated "
            f"download). ({exc})",
        ) from None

    pages: list[str] = []
    try:
        if len(document) > max_pages:  # pypdf could not count them (say, a repaired file)
            raise _too_many_pages(len(document), max_pages)
        for index in range(len(document)):
            try:
                page = document[index]
                textpage = page.get_textpage()
            except pdfium.PdfiumError:
                raise _damaged_page(index) from None
            pages.append(canonical_text(_pdfium_page_text(textpage)))
            textpage.close()
            page.close()
        if pages and not any(p.strip() for p in pages):
            return ocr_pdf(document, ocr or OcrOptions())
    finally:
        document.close()

    if not pages:
        raise Failure("no_text", "This PDF has no pages.")
    text, spans = _join([("page", p) for p in pages], PAGE_SEPARATOR)
    return {
        "text": text,
        "page_offsets": [s["start"] for s in spans],
        "sections": [],
        "extractor": extractor,
    }


def _damaged_page(index: int) -> Failure:
    return Failure("failed", f"The PDF could not be read: page {index + 1} is damaged.")


# --------------------------------------------------------------------------------------------
# OCR (Tesseract's command line): scanned PDFs and images
# --------------------------------------------------------------------------------------------

#: A scanned page is rendered at this resolution (less where the page is so large that it
#: would pass the pixel limit).
OCR_DPI = 300
#: Marks Tesseract puts around numbers in right-to-left lines: for display, not text.
_BIDI_MARKS = re.compile("[\u200e\u200f\u061c]")
# Tesseract given several languages leans on the first: French or Portuguese read with "eng"
# first lose their accents ("ministere", "informacáo"), and Arabic read with Latin languages
# beside it loses words even with "ara" first. So a page is read in the languages as they are
# given, then, when what it reads says another order would do better, again (see
# _better_languages), and the reading Tesseract is surer of (its mean word confidence) is
# kept. Latin text is read as well with "ara" among the languages as without.

#: The script of the letters of each of Tesseract's languages not written in Latin letters
#: (the first word of the letters' Unicode names): a page read mostly in one of these is read
#: again in that script's requested languages alone.
_SCRIPTS = {
    **dict.fromkeys(("ara", "fas", "urd", "pus", "snd", "uig"), "ARABIC"),
    **dict.fromkeys(("heb", "yid"), "HEBREW"),
    **dict.fromkeys(("rus", "ukr", "bel", "bul", "mkd", "srp", "kaz", "kir", "mon"), "CYRILLIC"),
    **dict.fromkeys(("ell", "grc"), "GREEK"),
    **dict.fromkeys(("hin", "mar", "nep", "san"), "DEVANAGARI"),
    "tha": "THAI",
    "kor": "HANGUL",
}
#: The commonest short words of Tesseract's languages written in Latin letters, without
#: their accents (which a reading in the wrong language gets wrong): a page whose words are
#: clearly most often those of one of them is read again with that language first.
_FUNCTION_WORDS = {
    code: frozenset(words.split())
    for code, words in {
        "eng": "the of and to in is that for it was on with as by this are be at from have has "
        "not which were will an its their said",
        "spa": "el la de que y en los se del las un por con no una su para es al lo como mas "
        "pero sus le fue este ha segun tambien entre",
        "por": "o a de que e do da em um para com nao uma os no se na por mais as dos como mas "
        "foi ao das tem seu sua ou ser pelo pela pelas segundo ja",
        "fra": "le la les de des et est un une du en que qui dans pour pas au sur ce il ne se "
        "plus par avec sont cette d l n qu aux selon",
        "deu": "der die und in den von zu das mit sich des auf fur ist im dem nicht ein eine "
        "als auch es an werden aus er hat dass sie nach wird bei",
        "ita": "il di che e la a per un in del non una sono le si con da della al i gli dei nel "
        "alla piu ha anche come questo ma",
        "nld": "de en van het een in is dat op te zijn met voor niet aan er die maar om ook als "
        "bij door wordt naar hij werd",
    }.items()
}
#: A page's language is believed from this many of its function words, when they are at
#: least twice as many as the next language's.
_IDENTIFIED_FROM = 4
_WORDS = re.compile(r"[^\W\d_]+")


def _ignore(pages: int) -> None:
    return None


@dataclass(frozen=True)
class OcrOptions:
    """How OCR reads a file: in ``languages`` (Tesseract's codes joined with "+"; those that
    are installed), at most ``max_pages`` pages of a scanned PDF, images of at most
    ``max_pixels`` pixels, ``page_seconds`` seconds of Tesseract a page. ``announce(pages)``
    is called once, before OCR of ``pages`` pages starts: the parent gives time for them."""

    languages: str = DEFAULT_OCR_LANGUAGES
    max_pages: int = DEFAULT_OCR_MAX_PAGES
    max_pixels: int = DEFAULT_MAX_PIXELS
    page_seconds: float = 60
    announce: Callable[[int], None] = _ignore


@dataclass(frozen=True)
class Tesseract:
    path: str
    version: str  # "5.3.0"
    languages: tuple[str, ...]  # the requested languages that are installed

    @property
    def name(self) -> str:
        """What the version's ``extractor`` says, e.g. "tesseract 5.3.0 (OCR, eng+spa)"."""
        name = f"tesseract {self.version} (OCR, {'+'.join(self.languages)})"
        return name if len(name) <= 100 else name[:98] + "…)"


def _install_hint(languages: list[str]) -> str:
    packages = [f"tesseract-ocr-{code.lower().replace('_', '-')}" for code in languages]
    return f"apt-get install {' '.join(['tesseract-ocr', *packages])}"


def _run(args: list[str], data: bytes = b"", *, timeout: float) -> subprocess.CompletedProcess:
    # Our own arguments, no shell; the environment and limits are this process's own.
    return subprocess.run(args, input=data, capture_output=True, timeout=timeout, check=False)  # noqa: S603


def find_tesseract(languages: str) -> Tesseract:
    """Tesseract and the languages of ``languages`` it has; a :class:`Failure` that says what
    to install when it is missing or has none of them."""
    requested = [code for code in languages.split("+") if code]
    path = shutil.which("tesseract")
    if path is None:
        raise Failure(
            "failed",
            "This file must be read by OCR, but Tesseract is not installed on the server. An "
            f"administrator can install it with: {_install_hint(requested)}",
        )
    try:
        listed = _run([path, "--list-langs"], timeout=30)
        about = _run([path, "--version"], timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        raise Failure("failed", f"Tesseract (OCR) could not be started: {exc}") from None
    # "List of available languages in "…" (6):", then one code a line.
    installed = {line.strip() for line in listed.stdout.decode(errors="replace").splitlines()[1:]}
    usable = tuple(code for code in requested if code in installed)
    if not usable:
        raise Failure(
            "failed",
            "This file must be read by OCR, but Tesseract has none of the languages it is set "
            f"to read ({'+'.join(requested)}) installed. An administrator can install them "
            f"with: {_install_hint(requested)}",
        )
    first = (about.stdout or about.stderr).decode(errors="replace").partition("\n")[0].split()
    version = first[1] if len(first) > 1 else "(unknown version)"
    return Tesseract(path=path, version=version, languages=usable)


@dataclass
class _PageText:
    """One page as Tesseract read it: its text, each word's ``(start, end, left, top,
    right, bottom)`` (offsets in the page's text, pixels of its image) and confidences."""

    text: str = ""
    words: list[tuple[int, int, int, int, int, int]] = field(default_factory=list)
    confidences: list[float] = field(default_factory=list)

    @property
    def confidence(self) -> float:
        return sum(self.confidences) / len(self.confidences) if self.confidences else 0.0


def page_from_tsv(tsv: str) -> _PageText:
    """A page's text from Tesseract's TSV: the words of a line joined by a space, lines by
    "\\n", paragraphs and blocks by "\\n\\n"; each word canonical (so, joined by separators
    that compose with nothing, the whole text is too), without bidirectional marks."""
    page = _PageText()
    parts: list[str] = []
    position = 0
    last = None
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t", 11)
        if len(cells) != 12 or cells[0] != "5":  # 5: a word; 1-4: page, block, paragraph, line
            continue
        word = _BIDI_MARKS.sub("", canonical_text(cells[11])).strip()
        if not word or any(character.isspace() for character in word):
            continue
        try:
            left, top, width, height = (int(cell) for cell in cells[6:10])
            confidence = float(cells[10])
        except ValueError:
            continue
        line = (cells[2], cells[3], cells[4])  # block, paragraph, line
        if last is not None:
            separator = "\n\n" if line[:2] != last[:2] else "\n" if line != last else " "
            parts.append(separator)
            position += len(separator)
        last = line
        parts.append(word)
        page.words.append((position, position + len(word), left, top, left + width, top + height))
        position += len(word)
        if confidence >= 0:
            page.confidences.append(confidence)
    page.text = "".join(parts)
    return page


def _dominant_script(text: str) -> str | None:
    scripts = collections.Counter(
        unicodedata.name(character, "?").split(" ")[0] for character in text if character.isalpha()
    )
    return scripts.most_common(1)[0][0] if scripts else None


def _folded(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word.lower()) if c.isascii())


def _identify(text: str, codes: list[str]) -> str | None:
    """The one of ``codes`` (Latin-script languages of :data:`_FUNCTION_WORDS`) that ``text``
    is clearly written in, by its commonest short words; None when it is not clear."""
    words = collections.Counter(_folded(word) for word in _WORDS.findall(text[:4000]))
    scores = sorted(
        ((sum(words[w] for w in _FUNCTION_WORDS[code]), code) for code in codes), reverse=True
    )
    (best, found), (second, _) = scores[0], scores[1]
    return found if best >= _IDENTIFIED_FROM and best >= 2 * second else None


def _better_languages(text: str, languages: tuple[str, ...]) -> tuple[str, ...] | None:
    """The languages to read a page again in, from ``text``, read in ``languages``: those of
    its script alone, for a page mostly in a script other than Latin; its language first,
    for a page in a Latin-script language that is not first already. None: no better."""
    script = _dominant_script(text)
    if script is None:
        return None
    if script != "LATIN":
        alone = tuple(code for code in languages if _SCRIPTS.get(code) == script)
        return alone if alone and alone != languages else None
    latin = [code for code in languages if code in _FUNCTION_WORDS]
    if len(latin) < 2:
        return None
    found = _identify(text, latin)
    if found is None or found == languages[0]:
        return None
    return (found, *(code for code in languages if code != found))


def _tesseract_tsv(
    tesseract: Tesseract,
    image: bytes,
    languages: tuple[str, ...],
    *,
    dpi: int | None,
    page: int,
    seconds: float,
    deadline: float,
) -> str:
    """Tesseract's TSV for ``image`` (PNM bytes, read from its stdin), stopped at
    ``deadline`` (``seconds`` after the page's reading started)."""
    args = [tesseract.path, "stdin", "stdout", "-l", "+".join(languages)]
    if dpi:
        args += ["--dpi", str(dpi)]
    try:
        done = _run([*args, "tsv"], image, timeout=max(0.1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        raise Failure(
            "failed",
            f"Reading page {page} by OCR took longer than {seconds:g} seconds (the limit for "
            "a page) and was stopped.",
        ) from None
    except OSError as exc:
        raise Failure("failed", f"Tesseract (OCR) could not be started: {exc}") from None
    if done.returncode < 0:
        number = -done.returncode
        name = signal.Signals(number).name if number in signal.Signals else str(number)
        raise Failure(
            "failed",
            f"OCR stopped unexpectedly on page {page} ({name}): the page may be too large or "
            "complex for the memory limit.",
        )
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        last = lines[-1][:200] if lines else f"exit status {done.returncode}"
        raise Failure("failed", f"OCR failed on page {page} ({last}).")
    return done.stdout.decode("utf-8", errors="replace")


def _pnm(image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PPM")  # a grayscale image: binary PGM, which Tesseract reads at once
    return buffer.getvalue()


def ocr_image(tesseract: Tesseract, image, *, dpi: int | None, page: int, seconds: float):
    """Read a grayscale Pillow ``image`` (page ``page``) with Tesseract, within ``seconds``:
    in the languages as given, then again where :func:`_better_languages` finds better ones,
    keeping the reading Tesseract is surer of. A blank image is not read at all."""
    deadline = time.monotonic() + seconds
    low, high = image.getextrema()
    if low == high:
        return _PageText()
    data = _pnm(image)
    options = {"dpi": dpi, "page": page, "seconds": seconds, "deadline": deadline}
    read = page_from_tsv(_tesseract_tsv(tesseract, data, tesseract.languages, **options))
    better = _better_languages(read.text, tesseract.languages)
    if better:
        again = page_from_tsv(_tesseract_tsv(tesseract, data, better, **options))
        if again.confidence > read.confidence:
            return again
    return read


def _ocr_result(tesseract: Tesseract, pages: list[_PageText], sizes: list[dict], empty: str):
    text, spans = _join([("page", page.text) for page in pages], PAGE_SEPARATOR)
    words = [
        [number, span["start"] + start, span["start"] + end, left, top, right, bottom]
        for number, (page, span) in enumerate(zip(pages, spans, strict=True), start=1)
        for start, end, left, top, right, bottom in page.words
    ]
    if not words:
        raise Failure("no_text", empty)
    confidences = [confidence for page in pages for confidence in page.confidences]
    mean = sum(confidences) / len(confidences) if confidences else 0.0
    return {
        "text": text,
        "page_offsets": [span["start"] for span in spans],
        "sections": [],
        "extractor": tesseract.name,
        "ocr_confidence": round(mean, 1),
        "ocr_layout": {"pages": sizes, "words": words},
    }


def _render_dpi(width: float, height: float, max_pixels: int) -> float:
    """:data:`OCR_DPI`, or less for a page (``width`` × ``height`` points) that would pass
    ``max_pixels`` pixels or :data:`MAX_IMAGE_SIDE` pixels a side."""
    if width <= 0 or height <= 0:
        return OCR_DPI
    fits = min(
        72 * math.sqrt(max_pixels / (width * height)), 72 * MAX_IMAGE_SIDE / max(width, height)
    )
    return min(OCR_DPI, fits)


def ocr_pdf(document, ocr: OcrOptions) -> dict:
    """The text of a PDF without a text layer (an open pypdfium2 document), read by OCR page
    by page: each page rendered in grayscale at :func:`_render_dpi` and read by Tesseract.
    More pages than ``ocr.max_pages`` are refused before any is read."""
    import pypdfium2 as pdfium

    count = len(document)
    if count > ocr.max_pages:
        raise _refused(
            f"it has no text layer, and its {count:,} pages are more than the {ocr.max_pages:,} "
            "pages that are read by OCR. Split it into smaller PDFs, or upload one with a text "
            "layer."
        )
    tesseract = find_tesseract(ocr.languages)
    ocr.announce(count)
    pages, sizes = [], []
    for index in range(count):
        try:
            page = document[index]
            dpi = _render_dpi(*page.get_size(), ocr.max_pixels)
            image = page.render(scale=dpi / 72, grayscale=True).to_pil().convert("L")
            page.close()
        except pdfium.PdfiumError:
            raise _damaged_page(index) from None
        sizes.append({"width": image.width, "height": image.height, "dpi": round(dpi)})
        pages.append(
            ocr_image(tesseract, image, dpi=round(dpi), page=index + 1, seconds=ocr.page_seconds)
        )
        del image
    return _ocr_result(
        tesseract,
        pages,
        sizes,
        "This PDF has no extractable text: it has no text layer, and OCR found no text on its "
        "pages either.",
    )


_POSSIBLE_BOMB = re.compile(r"\((\d+) pixels\)")


def _image_refused(size: str, max_pixels: int) -> Failure:
    return Failure(
        "failed",
        f"This image was refused: it is {size}, more than the limit of {max_pixels:,} pixels "
        f"({MAX_IMAGE_SIDE:,} a side) — possibly a decompression bomb.",
    )


def _grayscale(image):
    """``image`` in shades of grey, transparent parts white (as a screenshot is seen)."""
    from PIL import Image

    if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
        rgba = image.convert("RGBA")
        white = Image.new("RGBA", rgba.size, "white")
        white.alpha_composite(rgba)
        image = white
    return image.convert("L")


def extract_image(content: bytes, *, ocr: OcrOptions | None = None) -> dict:
    """The text of a PNG, JPEG or WebP image, read by OCR: decoded by Pillow (refused past
    ``ocr.max_pixels`` pixels, even when its header said less), turned upright as its EXIF
    orientation says, made grayscale and read by Tesseract. One page: ``page_offsets`` [0]."""
    import warnings

    from PIL import Image, ImageOps, UnidentifiedImageError

    ocr = ocr or OcrOptions()
    Image.MAX_IMAGE_PIXELS = ocr.max_pixels
    try:
        with warnings.catch_warnings():
            # Pillow only warns between the limit and twice the limit; both are refused.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(content), formats=["PNG", "JPEG", "WEBP"])
            width, height = image.size
            if width > MAX_IMAGE_SIDE or height > MAX_IMAGE_SIDE:
                raise _image_refused(f"{width:,} × {height:,} pixels", ocr.max_pixels)
            image.seek(0)  # the first frame of an animation
            image.load()
            dpi = image.info.get("dpi")
            image = _grayscale(ImageOps.exif_transpose(image))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        # Pillow's message names the pixels the header declares: "Image size (… pixels)".
        found = _POSSIBLE_BOMB.search(str(exc))
        if found is None:
            raise Failure("failed", f"This image was refused: {exc}") from None
        raise _image_refused(f"{int(found.group(1)):,} pixels", ocr.max_pixels) from None
    except (Failure, MemoryError):
        raise
    except UnidentifiedImageError:
        raise Failure(
            "failed",
            "The image could not be read: it is damaged, or not really a PNG, JPEG or WebP image.",
        ) from None
    except Exception as exc:  # Pillow raises OSError, SyntaxError, ValueError... on damage
        raise Failure(
            "failed", f"The image could not be read: it is damaged or incomplete ({exc})."
        ) from None
    tesseract = find_tesseract(ocr.languages)
    ocr.announce(1)
    try:
        resolution = round(float(dpi[0])) if dpi else None
    except (TypeError, ValueError, IndexError):
        resolution = None
    page = ocr_image(tesseract, image, dpi=None, page=1, seconds=ocr.page_seconds)
    size = {"width": image.width, "height": image.height, "dpi": resolution}
    return _ocr_result(tesseract, [page], [size], "OCR found no text in this image.")


# --------------------------------------------------------------------------------------------
# Word and OpenDocument (sources._documents, imported when needed: it imports this module)
# --------------------------------------------------------------------------------------------


def extract_docx(content: bytes) -> dict:
    from sources import _documents

    return _documents.extract_docx(content)


def extract_odt(content: bytes) -> dict:
    from sources import _documents

    return _documents.extract_odt(content)


# --------------------------------------------------------------------------------------------
# HTML (trafilatura for the body, lxml for <title> and <meta name="description">)
# --------------------------------------------------------------------------------------------

_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE
)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9_.:-]+)""")
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")


def decode_html(content: bytes) -> str:
    """Decode HTML bytes: BOM, then valid UTF-8, then the declared charset, then windows-1252."""
    import codecs

    for bom, encoding in (
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ):
        if content.startswith(bom):
            return content[len(bom) :].decode(encoding, errors="replace")
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        pass
    head = content[:4096]
    match = _META_CHARSET.search(head) or _XML_ENCODING.search(head)
    if match:
        try:
            name = codecs.lookup(match.group(1).decode("ascii")).name
        except LookupError:
            name = ""
        if name == "latin-1" or name == "iso8859-1" or name == "ascii":
            name = "cp1252"  # as browsers do
        if name and not name.startswith(("utf-16", "utf-32")):
            return content.decode(name, errors="replace")
    return content.decode("cp1252", errors="replace")


def _collapse(text: str | None) -> str:
    return " ".join((text or "").split())


def extract_html(content: bytes) -> dict:
    import lxml.html
    import trafilatura

    markup = _XML_DECLARATION.sub("", decode_html(content), count=1)
    title = description = ""
    if markup.strip():
        try:
            tree = lxml.html.document_fromstring(markup)
        except Exception:  # lxml raises ParserError / ValueError on hopeless input
            tree = None
        if tree is not None:
            for element in tree.iter("title"):
                # The document title, not an SVG <title> inside the body.
                if not any(a.tag == "svg" for a in element.iterancestors()):
                    title = _collapse(element.text_content())
                    break
            for element in tree.iter("meta"):
                if (element.get("name") or "").strip().lower() == "description":
                    description = _collapse(element.get("content"))
                    break

    body = (
        trafilatura.extract(
            markup,
            output_format="txt",
            include_comments=False,
            include_tables=True,
            include_images=False,
            include_links=False,
            favor_recall=True,
        )
        or ""
    )
    body = canonical_text(body).strip()
    if not body:
        raise Failure(
            "no_text",
            "This HTML page has no extractable text (it may be empty, or built by JavaScript "
            "in the browser). Upload the page as PDF or copy its text instead.",
        )
    parts = [
        (kind, canonical_text(value))
        for kind, value in (("title", title), ("description", description), ("body", body))
        if value
    ]
    text, sections = _join(parts, SECTION_SEPARATOR)
    return {
        "text": text,
        "page_offsets": [],
        "sections": sections,
        "extractor": f"trafilatura {_version('trafilatura')}",
    }


# --------------------------------------------------------------------------------------------
# Text and Markdown
# --------------------------------------------------------------------------------------------


def extract_plain(content: bytes) -> dict:
    if content.startswith(b"\xef\xbb\xbf"):
        content = content[3:]
    try:
        decoded = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Failure(
            "failed",
            f"The file is not valid UTF-8 text (first bad byte at position {exc.start}).",
        ) from None
    text = canonical_text(decoded)
    if not text.strip():
        raise Failure("no_text", "The file has no text (it is empty or only whitespace).")
    return {"text": text, "page_offsets": [], "sections": [], "extractor": "utf-8"}


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------

EXTRACTORS = {
    PDF: extract_pdf,
    HTML: extract_html,
    TEXT: extract_plain,
    MARKDOWN: extract_plain,
    DOCX: extract_docx,
    ODT: extract_odt,
    PNG: extract_image,
    JPEG: extract_image,
    WEBP: extract_image,
}


def _version(distribution: str) -> str:
    from importlib.metadata import version

    return version(distribution)


def set_limits(time_limit: float, memory_limit_mb: int, ocr_max_pages: int = 0) -> None:
    """Cap this process (and Tesseract, which inherits the caps): address space, CPU seconds
    (a backstop to the parent's wall clock; :func:`_more_cpu_time` raises it for each page
    read by OCR, up to ``ocr_max_pages`` pages), no file written and no core files."""
    memory = memory_limit_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = math.ceil(time_limit) + 1
    most = cpu + math.ceil(time_limit) * ocr_max_pages
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, most + 1))
    # Extraction writes only to its stdout pipe, which this limit leaves alone. Without the
    # sandbox (whose file system is read-only) it is what stops a compromised parser from
    # planting code, such as a .pth file, where the worker would run it. Ignoring SIGXFSZ
    # turns such a write into an error (EFBIG) rather than a silent death.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _more_cpu_time(seconds: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (min(soft + seconds, hard - 1), hard))


def _announcer(progress_fd: int | None, time_limit: float) -> Callable[[int], None]:
    """``announce(pages)`` for :class:`OcrOptions`: this process may use ``time_limit`` more
    CPU seconds for each page, and the parent (told on ``progress_fd``) as many more seconds
    of wall-clock time."""

    def announce(pages: int) -> None:
        _more_cpu_time(math.ceil(time_limit) * pages)
        if progress_fd is not None:
            os.write(progress_fd, f"{pages}\n".encode())
            os.close(progress_fd)

    return announce


def _attempt(action) -> str:
    try:
        action()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return "done"


def probe(request: dict) -> dict:
    """What this process can see and do, for :data:`PROBE`: its environment, its user, and
    the outcome ("done" or the error) of each attempt the request asks for: ``connect`` to
    ``[host, port]``, ``write`` one byte to each of the paths, ``read`` each of the paths,
    ``import`` each of the modules."""
    import importlib
    import socket

    def connect(host: str, port: int) -> None:
        with socket.create_connection((host, port), timeout=5):
            pass

    def write(path: str) -> None:
        with open(path, "wb") as file:
            file.write(b"x")

    def read(path: str) -> None:
        with open(path, "rb") as file:
            file.read(1)

    report: dict = {"environ": dict(os.environ), "uid": os.getuid(), "pid": os.getpid()}
    if "connect" in request:
        report["connect"] = _attempt(lambda: connect(*request["connect"]))
    for key, action in (("write", write), ("read", read), ("import", importlib.import_module)):
        report[key] = {
            name: _attempt(lambda name=name, action=action: action(name))
            for name in request.get(key, ())
        }
    return report


def main(argv: list[str]) -> int:
    media_type, time_limit, memory_limit_mb = argv[0], float(argv[1]), int(argv[2])
    max_pages, max_stream_mb = int(argv[3]), int(argv[4])
    ocr_languages, ocr_max_pages, max_pixels = argv[5], int(argv[6]), int(argv[7])
    progress_fd = None if argv[8] == "-" else int(argv[8])
    # Keep the reply channel private: anything a library prints to fd 1 goes to stderr.
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # Pre-built, so that it can still be written when memory has run out.
    out_of_memory = json.dumps({"ok": False, "kind": "memory", "reason": "MemoryError"}).encode()

    set_limits(time_limit, memory_limit_mb, ocr_max_pages)
    ocr = OcrOptions(
        languages=ocr_languages,
        max_pages=ocr_max_pages,
        max_pixels=max_pixels,
        page_seconds=time_limit,
        announce=_announcer(progress_fd, time_limit),
    )
    import logging

    logging.disable(logging.CRITICAL)  # trafilatura / pypdfium2 warnings are not results
    body = b""
    try:
        content = sys.stdin.buffer.read()
        if media_type == PROBE:
            result = {"ok": True, **probe(json.loads(content or b"{}"))}
        else:
            options = {}
            if media_type == PDF:
                options = {"max_pages": max_pages, "max_stream_mb": max_stream_mb, "ocr": ocr}
            elif media_type in IMAGES:
                options = {"ocr": ocr}
            result = EXTRACTORS[media_type](content, **options)
            del content
            body = result.pop("text").encode("utf-8")
            result = {"ok": True, "text_bytes": len(body), **result}
        header = json.dumps(result).encode()
    except MemoryError:
        header = out_of_memory
    except Failure as failure:
        header = json.dumps({"ok": False, "kind": failure.kind, "reason": failure.reason})
        header = header.encode()
    except Exception as exc:  # a parser bug on a hostile file: report it, briefly
        reason = f"{type(exc).__name__}: {exc}"[:300]
        header = json.dumps({"ok": False, "kind": "crash", "reason": reason}).encode()
    channel.write(header + b"\n")
    channel.write(body)
    channel.flush()
    return 0


if __name__ == "__main__":
    # Run as sources._extract_child, not as __main__: sources._documents raises that module's
    # Failure, which must be the very class main() catches.
    from sources._extract_child import main as package_main

    sys.exit(package_main(sys.argv[1:]))
