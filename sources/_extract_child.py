"""The extraction child process: ``python -m sources._extract_child MEDIA_TYPE TIME MEMORY_MB``.

Reads the uploaded bytes on stdin, extracts the text and writes ONE JSON object to stdout:

    {"ok": true, "text": ..., "page_offsets": [...], "sections": [...], "extractor": ...}
    {"ok": false, "kind": "failed" | "no_text" | "memory", "reason": "..."}

Resource limits (address space, CPU seconds, no core dumps) are set here, first thing, before
any parser is imported, so they also bound the libraries' own start-up. The parent
(:mod:`sources.extraction`) adds a wall-clock limit and kills the process group past it.

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
import sys
import unicodedata

PDF, HTML, TEXT, MARKDOWN = "application/pdf", "text/html", "text/plain", "text/markdown"

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


def extract_pdf(content: bytes) -> dict:
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
    and no core files."""
    memory = memory_limit_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = math.ceil(time_limit) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def main(argv: list[str]) -> int:
    media_type, time_limit, memory_limit_mb = argv[0], float(argv[1]), int(argv[2])
    # Keep the JSON channel private: anything a library prints to fd 1 goes to stderr.
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # Pre-built, so that it can still be written when memory has run out.
    out_of_memory = json.dumps({"ok": False, "kind": "memory", "reason": "MemoryError"}).encode()

    set_limits(time_limit, memory_limit_mb)
    import logging

    logging.disable(logging.CRITICAL)  # trafilatura / pypdfium2 warnings are not results
    try:
        extractor = EXTRACTORS[media_type]
        content = sys.stdin.buffer.read()
        result = {"ok": True, **extractor(content)}
        payload = json.dumps(result, ensure_ascii=False).encode("utf-8")
    except MemoryError:
        payload = out_of_memory
    except Failure as failure:
        payload = json.dumps({"ok": False, "kind": failure.kind, "reason": failure.reason})
        payload = payload.encode()
    except Exception as exc:  # a parser bug on a hostile file: report it, briefly
        reason = f"{type(exc).__name__}: {exc}"[:300]
        payload = json.dumps({"ok": False, "kind": "crash", "reason": reason}).encode()
    channel.write(payload)
    channel.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
