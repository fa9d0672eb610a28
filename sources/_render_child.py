"""The drawing child process: ``python -m sources._render_child TIME MEMORY_MB``.

Draws a quotation on the page it stands on: the page rendered as an image, the quoted
characters covered by their own boxes in translucent yellow with a solid outline, and a bar
in the margin beside them. Started by :mod:`sources.page_images` exactly as the extraction
child is started (:func:`sources.extraction._run_child`: an empty environment, the
bubblewrap sandbox where it works, a wall clock), and it sets the same limits on itself
(:func:`sources._extract_child.set_limits`) before it reads anything: the file is an upload.

stdin: one line of JSON, the request, then the file's bytes. The request's ``kind``:

* ``"pdf"``, a PDF with a text layer. Each of its ``pages`` is ``{"page": n (from 1), "text":
  the page's stored text, "start", "end": the quotation's offsets in it}``. The stored text is
  what extraction made of the page (:func:`sources._extract_child.extract_pdf`); the offsets
  are mapped to PDFium's characters by rebuilding that text from them one by one
  (:func:`page_characters`), and the page is drawn only if the rebuilt text is the stored
  text, character for character: otherwise the boxes could be someone else's words.
* ``"pdf_ocr"``, a scanned PDF read by OCR, and ``"image"``, a PNG, JPEG or WebP image read by
  OCR. Each page is ``{"page": n, "width", "height": the size OCR read it at, in pixels,
  "boxes": [[left, top, right, bottom], ...]}``, the words of the quotation in those pixels.

``max_width`` and ``max_height`` bound the images drawn, in pixels.

stdout: ONE line of JSON, then the PNGs, one after the other, of the pages drawn:

    {"ok": true, "pages": [{"page": n, "ok": true, "width", "height", "png_bytes",
                            "rects": [[left, bottom, right, top], ...]}
                           | {"page": n, "ok": false, "reason": "..."}]}
    {"ok": false, "kind": "failed" | "memory" | "crash", "reason": "..."}

``rects`` are the highlighted boxes as drawn, one per line of the quotation: for ``"pdf"`` in
PDF user space (points, y up, as PDFium's ``FPDFText_GetBoundedText`` takes them), otherwise
in pixels of the OCR page image (y down, ``bottom`` below ``top``, so ``bottom > top``).

Only the standard library is imported at import time; pypdfium2 and Pillow where needed.
"""

from __future__ import annotations

import io
import json
import os
import sys
import unicodedata

from sources._extract_child import (
    _UNBOUNDED,
    Failure,
    _pdfium_page_text,
    canonical_text,
    set_limits,
)

PDF, PDF_OCR, IMAGE = "pdf", "pdf_ocr", "image"

#: The highlight: a translucent yellow over the quoted words, a solid outline around them,
#: and a solid bar in the left margin beside the lines they are on (RGBA).
HIGHLIGHT_FILL = (255, 214, 0, 110)
HIGHLIGHT_OUTLINE = (196, 110, 0, 255)
MARGIN_MARK = (196, 40, 0, 255)

#: The most a PDF page is enlarged: a small page (a card, a slide) is not blown up past 4×
#: (288 dpi), which is sharp enough to read and keeps the image small.
MAX_PDF_SCALE = 4.0
#: The most pixels an image may have to be opened here (Pillow refuses a larger one); OCR
#: has read it already, so only a file built to exhaust the reader gets near.
MAX_IMAGE_PIXELS = 120_000_000


# --------------------------------------------------------------------------------------------
# PDFium's characters and the stored text
# --------------------------------------------------------------------------------------------


def _raw_characters(textpage) -> list[tuple[str, int]]:
    """The text PDFium gives for the whole page (``get_text_bounded`` with the unbounded
    rectangle extraction uses), as ``(character, index)`` pairs: the index in PDFium's
    character list of the character each comes from, -1 for a line break PDFium inserts.

    It retraces ``CPDF_TextPage::GetTextByPredicate``: a character whose box meets the
    rectangle is kept; a space outside it separates words once; anything else outside it
    (the line breaks PDFium generates have empty boxes) makes the next kept character on
    another line start with "\\r\\n". The caller checks the result against PDFium's own.
    """
    import ctypes

    import pypdfium2.raw as pdfium_c

    bound = _UNBOUNDED
    origin_x, origin_y = ctypes.c_double(), ctypes.c_double()
    out: list[tuple[str, int]] = []
    line_y = 0.0
    kept_before = line_feed_due = False
    for index in range(textpage.count_chars()):
        code = pdfium_c.FPDFText_GetUnicode(textpage, index)
        left, bottom, right, top = textpage.get_charbox(index)
        left, right = sorted((left, right))
        bottom, top = sorted((bottom, top))
        meets = max(left, bound["left"]) < min(right, bound["right"]) and max(
            bottom, bound["bottom"]
        ) < min(top, bound["top"])
        if meets:
            pdfium_c.FPDFText_GetCharOrigin(textpage, index, origin_x, origin_y)
            if line_y != origin_y.value and not kept_before and line_feed_due:
                line_y = origin_y.value
                if out:
                    out += [("\r", -1), ("\n", -1)]
            kept_before, line_feed_due = True, False
            if code:
                # Past Unicode's last code point there is no character: the check fails.
                out.append((chr(code) if code <= 0x10FFFF else "\ufffd", index))
        elif code == 0x20:
            if kept_before:
                out.append((" ", index))
                kept_before = line_feed_due = False
        else:
            kept_before, line_feed_due = False, True
    return _utf16_pairs(out)


def _utf16_pairs(characters: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Surrogate halves as PDFium's UTF-16 text has them: a pair makes one character, and a
    lone half is dropped (the text is decoded with ``errors="ignore"``)."""
    if not any("\ud800" <= char <= "\udfff" for char, _ in characters):
        return characters
    out: list[tuple[str, int]] = []
    position = 0
    while position < len(characters):
        char, index = characters[position]
        following = characters[position + 1][0] if position + 1 < len(characters) else ""
        if "\ud800" <= char <= "\udbff" and "\udc00" <= following <= "\udfff":
            pair = (char + following).encode("utf-16-le", "surrogatepass").decode("utf-16-le")
            out.append((pair, index))
            position += 2
            continue
        if not "\ud800" <= char <= "\udfff":
            out.append((char, index))
        position += 1
    return out


def _as_stored(characters: list[tuple[str, int]]) -> list[tuple[str, tuple[int, ...]]]:
    """``characters`` turned into the stored page text as extraction turns PDFium's text into
    it (``canonical_text(_pdfium_page_text(...))``), each character with the PDFium indices
    it comes from: the hyphen mark "\\x02" becomes "-\\n", "\\r\\n" and "\\r" become "\\n",
    control characters go, and the text is composed (NFC)."""
    spelled: list[tuple[str, int]] = []
    for char, index in characters:
        if char == "\x02":
            spelled += [("-", index), ("\n", -1)]
        else:
            spelled.append((char, index))
    lines: list[tuple[str, tuple[int, ...]]] = []
    position = 0
    while position < len(spelled):
        char, index = spelled[position]
        if char == "\r":
            if position + 1 < len(spelled) and spelled[position + 1][0] == "\n":
                position += 1
            lines.append(("\n", (index,)))
        elif canonical_text(char) or char in "\n\t":
            lines.append((char, (index,)))
        position += 1
    return _composed(lines)


def _composed(characters: list[tuple[str, tuple[int, ...]]]) -> list[tuple[str, tuple[int, ...]]]:
    """``characters`` in Unicode NFC. A character and the combining marks after it (and any
    neighbour that composes with them) are composed together; what they become is mapped to
    all of their indices."""
    text = "".join(char for char, _ in characters)
    if unicodedata.is_normalized("NFC", text):
        return characters

    def cluster_end(start: int) -> int:
        end = start + 1
        while end < len(characters) and unicodedata.combining(characters[end][0]):
            end += 1
        return end

    out: list[tuple[str, tuple[int, ...]]] = []
    start = 0
    while start < len(characters):
        end = cluster_end(start)
        chunk = "".join(char for char, _ in characters[start:end])
        while end < len(characters):
            following_end = cluster_end(end)
            following = "".join(char for char, _ in characters[end:following_end])
            joined = unicodedata.normalize("NFC", chunk + following)
            apart = unicodedata.normalize("NFC", chunk) + unicodedata.normalize("NFC", following)
            if joined == apart:
                break
            chunk, end = chunk + following, following_end
        composed = unicodedata.normalize("NFC", chunk)
        if composed == chunk:
            out += characters[start:end]
        else:
            indices = tuple(sorted({i for _, group in characters[start:end] for i in group}))
            out += [(char, indices) for char in composed]
        start = end
    return out


def page_characters(textpage) -> list[tuple[str, tuple[int, ...]]]:
    """The page's text as extraction stored it, a character at a time, each with the indices
    of the PDFium characters it was made from (none for a line break PDFium inserted).

    Raises :class:`Failure` when rebuilding PDFium's text from its characters does not give
    the text PDFium itself reports: the mapping would not be exact.
    """
    characters = _raw_characters(textpage)
    rebuilt = "".join(char for char, _ in characters)
    if rebuilt != textpage.get_text_bounded(**_UNBOUNDED):
        raise Failure(
            "failed",
            "The page's characters could not be matched to its text as PDFium reads it, so "
            "the quotation's place on the page is not known.",
        )
    return _as_stored(characters)


# --------------------------------------------------------------------------------------------
# Boxes
# --------------------------------------------------------------------------------------------


def merge_lines(boxes: list[tuple[float, float, float, float]]) -> list[list[float]]:
    """Boxes ``(x0, y0, x1, y1)`` (``y0 < y1``, either way up), in reading order, joined into
    one box per line: a box that shares at least half its height with the line's box and does
    not start back to its left joins it."""
    lines: list[list[float]] = []
    for x0, y0, x1, y1 in boxes:
        if lines:
            line = lines[-1]
            shared = min(line[3], y1) - max(line[1], y0)
            height = min(line[3] - line[1], y1 - y0)
            if shared >= height / 2 and x0 >= line[0] - (y1 - y0):
                line[:] = [min(line[0], x0), min(line[1], y0), max(line[2], x1), max(line[3], y1)]
                continue
        lines.append([x0, y0, x1, y1])
    return lines


def _quoted_boxes(textpage, characters, start: int, end: int) -> list[list[float]]:
    """The boxes of the characters from ``start`` to ``end`` of the page's stored text, one
    per line, in PDF user space: ``[left, bottom, right, top]``."""
    import pypdfium2.raw as pdfium_c

    indices = sorted({i for _, group in characters[start:end] for i in group if i >= 0})
    boxes = []
    for index in indices:
        if pdfium_c.FPDFText_IsGenerated(textpage, index) == 1:
            continue
        if chr(pdfium_c.FPDFText_GetUnicode(textpage, index) or 0x20).isspace():
            continue  # a space's box adds nothing, and can reach into the next word
        left, bottom, right, top = textpage.get_charbox(index)
        left, right = sorted((left, right))
        bottom, top = sorted((bottom, top))
        # PDFium's own rule for selection boxes (CPDF_TextPage::GetRectArray).
        if right - left < 0.01 or top - bottom < 0.01:
            continue
        boxes.append((left, bottom, right, top))
    return merge_lines(boxes)


# --------------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------------


def highlight(image, boxes: list[tuple[int, int, int, int]]):
    """``image`` (Pillow) with ``boxes`` (pixels: left, top, right, bottom) highlighted and a
    bar in the left margin beside them, as an RGB image."""
    from PIL import Image, ImageDraw

    base = image.convert("RGBA")
    overlay = Image.new("RGBA", base.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    pad = max(2, round(base.width / 500))
    for left, top, right, bottom in boxes:
        draw.rectangle(
            (left - pad, top - pad, right + pad, bottom + pad),
            fill=HIGHLIGHT_FILL,
            outline=HIGHLIGHT_OUTLINE,
            width=pad,
        )
    if boxes:
        bar = max(4, round(base.width / 200))
        first = min(top for _, top, _, _ in boxes) - pad
        last = max(bottom for _, _, _, bottom in boxes) + pad
        draw.rectangle((bar, first, 2 * bar, last), fill=MARGIN_MARK)
    drawn = Image.alpha_composite(base, overlay).convert("RGB")
    base.close()
    overlay.close()
    return drawn


def _png(image) -> bytes:
    """``image`` as a PNG of at most 256 colours: a third of the bytes of full colour, and
    text and highlight read the same."""
    from PIL import Image

    out = io.BytesIO()
    with image.quantize(256, method=Image.Quantize.FASTOCTREE) as palette:
        palette.save(out, format="PNG")
    return out.getvalue()


def _pdf_scale(page, max_width: int, max_height: int) -> float:
    width, height = page.get_size()
    return min(max_width / width, max_height / height, MAX_PDF_SCALE)


def _to_pixels(converter, left, bottom, right, top) -> tuple[int, int, int, int]:
    corners = [converter.to_bitmap(x, y) for x in (left, right) for y in (bottom, top)]
    xs = [x for x, _ in corners]
    ys = [y for _, y in corners]
    return min(xs), min(ys), max(xs), max(ys)


def _open_pdf(content: bytes):
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(content)
    except pdfium.PdfiumError as exc:
        raise Failure("failed", f"The PDF could not be opened ({exc}).") from None


def _pdf_page(document, number: int):
    import pypdfium2 as pdfium

    if not 1 <= number <= len(document):
        raise Failure("failed", f"The PDF has no page {number}.")
    try:
        return document[number - 1]
    except pdfium.PdfiumError:
        raise Failure("failed", f"Page {number} of the PDF is damaged.") from None


def draw_pdf_text_page(document, wanted: dict, max_width: int, max_height: int):
    """``(png, width, height, rects)`` for one page of a PDF with a text layer."""
    page = _pdf_page(document, wanted["page"])
    textpage = page.get_textpage()
    try:
        stored = wanted["text"]
        if canonical_text(_pdfium_page_text(textpage)) != stored:
            raise Failure(
                "failed",
                "The page's text, as PDFium reads it now, is not the text stored for it, so "
                "the quotation's characters cannot be found on the page.",
            )
        characters = page_characters(textpage)
        mapped = "".join(char for char, _ in characters)
        if mapped != stored:
            raise Failure(
                "failed",
                "The page's characters could not be matched one by one to its stored text, "
                "so the quotation's place on the page is not known.",
            )
        rects = _quoted_boxes(textpage, characters, wanted["start"], wanted["end"])
        if not rects:
            raise Failure("failed", "The quoted characters have no boxes on the page to draw.")
        bitmap = page.render(scale=_pdf_scale(page, max_width, max_height))
        converter = bitmap.get_posconv(page)
        pixels = [_to_pixels(converter, *rect) for rect in rects]
        image = bitmap.to_pil()
        drawn = highlight(image, pixels)
        result = (_png(drawn), drawn.width, drawn.height, rects)
        drawn.close()
        image.close()
        bitmap.close()
        return result
    finally:
        textpage.close()
        page.close()


def _scaled(boxes, factor: float) -> list[tuple[int, int, int, int]]:
    return [
        (round(left * factor), round(top * factor), round(right * factor), round(bottom * factor))
        for left, top, right, bottom in boxes
    ]


def _word_lines(wanted: dict) -> list[list[float]]:
    """The quotation's words on an OCR page, one box per line: ``[left, top, right, bottom]``."""
    return merge_lines([tuple(box) for box in wanted["boxes"]])


def draw_pdf_scan_page(document, wanted: dict, max_width: int, max_height: int):
    """``(png, width, height, rects)`` for one page of a scanned PDF read by OCR."""
    page = _pdf_page(document, wanted["page"])
    try:
        rects = _word_lines(wanted)
        if not rects:
            raise Failure("failed", "OCR found none of the quoted words on the page.")
        bitmap = page.render(scale=_pdf_scale(page, max_width, max_height))
        image = bitmap.to_pil()
        drawn = highlight(image, _scaled(rects, image.width / wanted["width"]))
        result = (_png(drawn), drawn.width, drawn.height, rects)
        drawn.close()
        image.close()
        bitmap.close()
        return result
    finally:
        page.close()


def draw_image_page(content: bytes, wanted: dict, max_width: int, max_height: int):
    """``(png, width, height, rects)`` for an image read by OCR, scaled down to fit."""
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS
    rects = _word_lines(wanted)
    if not rects:
        raise Failure("failed", "OCR found none of the quoted words in the image.")
    try:
        with Image.open(io.BytesIO(content), formats=["PNG", "JPEG", "WEBP"]) as opened:
            image = _as_read(opened, wanted)
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        raise Failure("failed", f"The image could not be read ({exc}).") from None
    factor = min(max_width / image.width, max_height / image.height, 1.0)
    if factor < 1:
        size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
        image = image.resize(size)
    drawn = highlight(image, _scaled(rects, image.width / wanted["width"]))
    result = (_png(drawn), drawn.width, drawn.height, rects)
    drawn.close()
    image.close()
    return result


def _as_read(opened, wanted: dict):
    """The image as OCR read it: turned upright as its EXIF orientation says when that gives
    the size OCR read (the words' pixels are of that image), else as stored."""
    from PIL import ImageOps

    opened.load()
    upright = ImageOps.exif_transpose(opened)
    image = upright if upright.size == (wanted["width"], wanted["height"]) else opened
    return image.convert("RGB")


def draw(request: dict, content: bytes) -> tuple[list[dict], list[bytes]]:
    """Each page of the request drawn: its report, and the PNGs of the pages drawn."""
    kind = request["kind"]
    max_width, max_height = int(request["max_width"]), int(request["max_height"])
    document = _open_pdf(content) if kind in (PDF, PDF_OCR) else None
    reports, images = [], []
    try:
        for wanted in request["pages"]:
            try:
                if kind == PDF:
                    drawn = draw_pdf_text_page(document, wanted, max_width, max_height)
                elif kind == PDF_OCR:
                    drawn = draw_pdf_scan_page(document, wanted, max_width, max_height)
                else:
                    drawn = draw_image_page(content, wanted, max_width, max_height)
            except Failure as failure:
                reports.append({"page": wanted["page"], "ok": False, "reason": failure.reason})
                continue
            png, width, height, rects = drawn
            reports.append(
                {
                    "page": wanted["page"],
                    "ok": True,
                    "width": width,
                    "height": height,
                    "png_bytes": len(png),
                    "rects": [[round(value, 3) for value in rect] for rect in rects],
                }
            )
            images.append(png)
    finally:
        if document is not None:
            document.close()
    return reports, images


def main(argv: list[str]) -> int:
    time_limit, memory_limit_mb = float(argv[0]), int(argv[1])
    # Keep the reply channel private: anything a library prints to fd 1 goes to stderr.
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # Pre-built, so that it can still be written when memory has run out.
    out_of_memory = json.dumps({"ok": False, "kind": "memory", "reason": "MemoryError"}).encode()

    set_limits(time_limit, memory_limit_mb)
    import logging

    logging.disable(logging.CRITICAL)
    body = b""
    try:
        request = json.loads(sys.stdin.buffer.readline())
        content = sys.stdin.buffer.read()
        reports, images = draw(request, content)
        del content
        body = b"".join(images)
        header = json.dumps({"ok": True, "pages": reports}).encode()
    except MemoryError:
        header = out_of_memory
    except Failure as failure:
        header = json.dumps({"ok": False, "kind": failure.kind, "reason": failure.reason})
        header = header.encode()
    except Exception as exc:  # a library's bug on a hostile file: report it, briefly
        reason = f"{type(exc).__name__}: {exc}"[:300]
        header = json.dumps({"ok": False, "kind": "crash", "reason": reason}).encode()
    channel.write(header + b"\n")
    channel.write(body)
    channel.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
