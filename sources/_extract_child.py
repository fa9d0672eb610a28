"""The extraction child process:
``python -m sources._extract_child MEDIA_TYPE TIME MEMORY_MB MAX_PAGES MAX_STREAM_MB``.

Reads the uploaded bytes on stdin, extracts the text and writes to stdout ONE line of JSON,
then, on success, the text itself in UTF-8 (``text_bytes`` bytes of it):

    {"ok": true, "text_bytes": ..., "page_offsets": [...], "sections": [...], "extractor": ...}
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

``MEDIA_TYPE`` :data:`PROBE` is not a file: the child reports what it can see and do from
inside its limits and sandbox (:func:`probe`), for the parent's check that the sandbox works
and for the tests that prove it holds no secrets, network or writable file system.

This module imports only the standard library at import time (the parent imports
:func:`canonical_text` from here) and never Django; the PDF and HTML libraries are imported
inside the functions that need them.
"""

from __future__ import annotations

import json
import math
import os
import re
import resource
import signal
import sys
import unicodedata

PDF, HTML, TEXT, MARKDOWN = "application/pdf", "text/html", "text/plain", "text/markdown"
#: Not a media type: asks the child for :func:`probe`'s report instead of a text.
PROBE = "x-sandbox-probe"
#: What extraction imports: the parent's sandbox check imports them all inside the sandbox.
PARSER_MODULES = ("pypdf", "pypdfium2", "trafilatura", "lxml.html")

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
) -> dict:
    """The text of a PDF, page by page (PDFium), after :func:`check_pdf_structure`."""
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
                raise Failure(
                    "failed",
                    f"The PDF could not be read: page {index + 1} is damaged.",
                ) from None
            pages.append(canonical_text(_pdfium_page_text(textpage)))
            textpage.close()
            page.close()
    finally:
        document.close()

    if not pages:
        raise Failure("no_text", "This PDF has no pages.")

    if not any(p.strip() for p in pages):
        raise Failure(
            "no_text",
            "This PDF has no extractable text (it may be scanned images). Upload a PDF with a "
            "text layer (run OCR on it first) or the text itself.",
        )
    text, spans = _join([("page", p) for p in pages], PAGE_SEPARATOR)
    return {
        "text": text,
        "page_offsets": [s["start"] for s in spans],
        "sections": [],
        "extractor": extractor,
    }


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

EXTRACTORS = {PDF: extract_pdf, HTML: extract_html, TEXT: extract_plain, MARKDOWN: extract_plain}


def _version(distribution: str) -> str:
    from importlib.metadata import version

    return version(distribution)


def set_limits(time_limit: float, memory_limit_mb: int) -> None:
    """Cap this process: address space, CPU seconds (a backstop to the parent's wall clock),
    no file written and no core files."""
    memory = memory_limit_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = math.ceil(time_limit) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    # Extraction writes only to its stdout pipe, which this limit leaves alone. Without the
    # sandbox (whose file system is read-only) it is what stops a compromised parser from
    # planting code, such as a .pth file, where the worker would run it. Ignoring SIGXFSZ
    # turns such a write into an error (EFBIG) rather than a silent death.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


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
    # Keep the reply channel private: anything a library prints to fd 1 goes to stderr.
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # Pre-built, so that it can still be written when memory has run out.
    out_of_memory = json.dumps({"ok": False, "kind": "memory", "reason": "MemoryError"}).encode()

    set_limits(time_limit, memory_limit_mb)
    import logging

    logging.disable(logging.CRITICAL)  # trafilatura / pypdfium2 warnings are not results
    body = b""
    try:
        content = sys.stdin.buffer.read()
        if media_type == PROBE:
            result = {"ok": True, **probe(json.loads(content or b"{}"))}
        else:
            extractor = EXTRACTORS[media_type]
            options = {"max_pages": max_pages, "max_stream_mb": max_stream_mb}
            result = extractor(content, **options) if media_type == PDF else extractor(content)
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
    sys.exit(main(sys.argv[1:]))
