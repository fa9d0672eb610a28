"""Content-type detection and text extraction of uploads (sources.extraction): no database."""

import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

from sources.extraction import (
    DOCX,
    HTML,
    JPEG,
    MARKDOWN,
    ODT,
    PAGE_SEPARATOR,
    PDF,
    PNG,
    TEXT,
    WEBP,
    ExtractionFailed,
    NoExtractableText,
    UnsupportedUpload,
    canonical_text,
    detect_media_type,
    extract_text,
)
from tests import documents, scans
from tests import sample_files as samples

ROOT = Path(__file__).resolve().parents[2]
ACCEPTED = (
    "which is not accepted: upload a PDF, HTML, text or Markdown, Word (.docx), OpenDocument "
    "(.odt), PNG, JPEG or WebP file."
)


def _child_pids() -> set[int]:
    pids = set()
    for task in Path("/proc/self/task").iterdir():
        pids.update(int(p) for p in (task / "children").read_text().split())
    return pids


# --------------------------------------------------------------------------------------------
# Detection
# --------------------------------------------------------------------------------------------


def test_empty_file_is_refused_as_empty():
    with pytest.raises(UnsupportedUpload) as refused:
        detect_media_type(samples.EMPTY_BYTES, "report.pdf")
    assert refused.value.reason == "The file is empty (0 bytes)."


@pytest.mark.parametrize(
    ("content", "name", "what"),
    [
        (samples.GIF_BYTES, "page.html", "a GIF image"),
        (samples.GIF_BYTES, "notes.md", "a GIF image"),
        (b"II*\x00" + b"\x00" * 60, "scan.pdf", "a TIFF image"),
        (b"\x00\x00\x00\x18ftypheic" + b"\x00" * 60, "photo.png", "an image (HEIC/AVIF)"),
        (samples.ZIP_BYTES, "notes.txt", "a ZIP archive"),
        (samples.GZIP_BYTES, "report.pdf", "a gzip-compressed file"),
        (samples.ELF_BYTES, "readme.txt", "an ELF executable"),
        (samples.EXE_BYTES, "report.pdf", "a Windows executable"),
    ],
)
def test_known_other_type_is_refused_whatever_its_name(content, name, what):
    with pytest.raises(UnsupportedUpload) as refused:
        detect_media_type(content, name)
    assert refused.value.reason.startswith(f"This looks like {what}")
    assert refused.value.reason.endswith(ACCEPTED)


def test_gif_named_pdf_gets_the_exact_refusal_naming_what_is_accepted():
    with pytest.raises(UnsupportedUpload) as refused:
        detect_media_type(samples.GIF_BYTES, "report.pdf")
    assert refused.value.reason == f"This looks like a GIF image, {ACCEPTED}"
    assert refused.value.message == "This looks like %(what)s, " + ACCEPTED
    assert refused.value.params == {"what": "a GIF image"}


def test_svg_is_refused_as_an_svg_image_even_named_html():
    with pytest.raises(UnsupportedUpload) as refused:
        detect_media_type(samples.SVG_BYTES, "page.html")
    assert refused.value.reason == f"This looks like an SVG image, {ACCEPTED}"


@pytest.mark.parametrize(
    ("image_format", "media_type", "options"),
    [
        ("PNG", PNG, {}),
        ("JPEG", JPEG, {}),
        ("JPEG", JPEG, {"progressive": True}),
        ("WEBP", WEBP, {}),  # lossy: a VP8 chunk
        ("WEBP", WEBP, {"lossless": True}),  # a VP8L chunk
        ("WEBP", WEBP, {"exif": b"Exif\x00\x00"}),  # extended: a VP8X chunk
    ],
    ids=["png", "jpeg", "progressive-jpeg", "webp-lossy", "webp-lossless", "webp-extended"],
)
def test_png_jpeg_and_webp_images_are_accepted_by_their_bytes_whatever_their_name(
    image_format, media_type, options
):
    image = Image.new("RGB", (640, 360), "white")
    out = io.BytesIO()
    image.save(out, image_format, **options)

    assert detect_media_type(out.getvalue(), "report.pdf") == media_type
    assert detect_media_type(out.getvalue(), "notes.txt", max_pixels=640 * 360) == media_type
    with pytest.raises(UnsupportedUpload, match=r"640 × 360 pixels, more than can be read"):
        detect_media_type(out.getvalue(), max_pixels=640 * 360 - 1)


def test_a_one_pixel_png_is_an_image_not_a_refusal():
    assert detect_media_type(samples.PNG_BYTES, "report.pdf") == PNG


def test_word_and_opendocument_files_are_told_from_other_zips():
    assert detect_media_type(documents.make_docx("detection"), "report.zip") == DOCX
    assert detect_media_type(documents.make_odt("detection"), "notes.txt") == ODT
    with pytest.raises(UnsupportedUpload, match=r"^This looks like a ZIP archive"):
        detect_media_type(samples.ZIP_BYTES, "report.docx")


def test_pdf_is_detected_from_its_header_not_its_name():
    assert detect_media_type(samples.make_text_pdf(["Hello."]), "notes.txt") == PDF


def test_pdf_header_after_leading_garbage_is_still_a_pdf():
    assert detect_media_type(b"\x00\x01junk header\n" + samples.make_text_pdf(["Hi."])) == PDF
    assert detect_media_type(b"From: mail gateway\r\n" + samples.make_text_pdf(["Hi."])) == PDF


def test_pdf_header_quoted_inside_a_sentence_stays_text():
    assert detect_media_type(b"A PDF starts with %PDF-1.7 as its first bytes.\n") == TEXT


@pytest.mark.parametrize(
    "content",
    [
        b"<!DOCTYPE html><html><body><p>Hi</p></body></html>",
        b"<html><p>Hi</p></html>",
        b"\xef\xbb\xbf  \n <head><title>T</title></head>",
        b"<!-- saved from a browser -->\n<BODY>Hi</BODY>",
        b'<?xml version="1.0"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0//EN">\n<html/>',
        b"<p>Just a fragment.</p>",
        b"\n\n<div class='x'>Hi</div>",
    ],
)
def test_html_is_sniffed_from_the_start_of_the_content(content):
    assert detect_media_type(content, "page.txt") == HTML


def test_text_that_mentions_tags_later_is_not_html():
    assert detect_media_type(b"Use <b> for bold and <html> for the root.\n") == TEXT
    assert detect_media_type(b"<alice@example.org> wrote: fine.\n") == TEXT


def test_readme_md_opening_with_an_html_fragment_is_markdown():
    readme = b'<p align="center"><img src="logo.png"></p>\n\n# Project\n\n- item\n'
    assert detect_media_type(readme, "README.md") == MARKDOWN
    assert detect_media_type(readme, "page.html") == HTML


def test_invalid_utf8_is_refused_with_the_first_bad_byte_position():
    with pytest.raises(UnsupportedUpload) as refused:
        detect_media_type(samples.INVALID_UTF8_BYTES, "notes.txt")
    position = samples.INVALID_UTF8_BAD_POSITION
    assert refused.value.reason.startswith(
        f"The file is not valid UTF-8 text (first bad byte at position {position})."
    )


def test_bad_byte_position_counts_the_bom():
    with pytest.raises(UnsupportedUpload, match=r"at position 5\)"):
        detect_media_type(b"\xef\xbb\xbfab\xc3(")


def test_nul_bytes_make_a_utf8_file_binary():
    with pytest.raises(UnsupportedUpload, match="NUL byte at position 3"):
        detect_media_type(b"abc\x00def", "notes.txt")


def test_binary_control_characters_are_refused():
    with pytest.raises(UnsupportedUpload, match="binary control characters"):
        detect_media_type(b"\x01\x02\x03\x04 looks like text")


def test_utf16_text_is_refused_with_advice():
    with pytest.raises(UnsupportedUpload, match="UTF-16"):
        detect_media_type("Hello".encode("utf-16"), "notes.txt")


def test_utf8_text_with_bom_emoji_and_accents_is_text():
    assert detect_media_type(b"\xef\xbb\xbf" + samples.EMOJI_TEXT) == TEXT
    assert detect_media_type(samples.COMBINING_ACCENT_TEXT, "notes.txt") == TEXT


def test_markdown_is_chosen_by_name_or_by_clear_structure():
    assert detect_media_type(b"Plain words only.\n", "notes.md") == MARKDOWN
    assert detect_media_type(b"Plain words only.\n", "notes.markdown") == MARKDOWN
    assert detect_media_type(samples.MARKDOWN_TEXT) == MARKDOWN
    assert detect_media_type(samples.MARKDOWN_TEXT, "notes.txt") == TEXT
    assert detect_media_type(b"Plain words only.\n") == TEXT
    # One feature alone (shell-style comments, or a list) is not clear Markdown.
    assert detect_media_type(b"# comment\n# another comment\nx = 1\n") == TEXT
    assert detect_media_type(b"Shopping:\n- eggs\n- milk\n") == TEXT


def test_a_name_never_makes_a_binary_file_acceptable():
    for name in ("notes.md", "notes.txt", "page.html", "report.pdf"):
        with pytest.raises(UnsupportedUpload):
            detect_media_type(b"\x00\x01\x02\x03\xff\xfe binary", name)


# --------------------------------------------------------------------------------------------
# PDF
# --------------------------------------------------------------------------------------------


def test_text_pdf_is_extracted_page_by_page_with_page_offsets():
    pages = ["Page one: the quick brown fox.", "Page two: jumps over", "Page three: the dog."]
    result = extract_text(samples.make_text_pdf(pages), PDF)

    assert result.extractor.startswith("pypdfium2 ")
    assert result.text == PAGE_SEPARATOR.join(pages)
    assert result.page_offsets[0] == 0
    assert len(result.page_offsets) == len(pages)
    for i, page in enumerate(pages):
        assert result.text[result.page_offsets[i] :].startswith(page)
    assert result.sections == []


def test_page_offsets_stay_right_around_an_empty_page_and_accents():
    pages = ["Café crème.", "", "Déjà vu, naïve façade."]
    result = extract_text(samples.make_text_pdf(pages), PDF)
    assert result.page_offsets == [0, 13, 15]
    for i, page in enumerate(pages):
        assert result.text[result.page_offsets[i] :].startswith(page)
    assert "Café" in result.text and "e\u0301" not in result.text


def test_multi_line_pdf_page_uses_lf_line_endings():
    result = extract_text(samples.make_text_pdf(["First line\nSecond line"]), PDF)
    assert result.text == "First line\nSecond line"


def test_pdf_line_running_past_the_page_edge_is_kept_whole():
    line = " ".join(f"word{i}" for i in range(60)) + " end."  # ~400 chars: twice the width
    result = extract_text(samples.make_text_pdf([line], width_chars=1000), PDF)
    assert result.text == line


def test_password_protected_pdf_has_no_extractable_text():
    with pytest.raises(NoExtractableText) as failed:
        extract_text(samples.make_encrypted_pdf(), PDF)
    assert failed.value.reason.startswith("This PDF is encrypted")


def test_pdf_encrypted_without_a_user_password_is_extracted():
    result = extract_text(samples.make_encrypted_pdf(["Open to all."], user_password=""), PDF)
    assert result.text == "Open to all."


def test_image_only_pdf_without_letters_has_no_extractable_text_even_by_ocr():
    scans.require_tesseract()
    with pytest.raises(NoExtractableText) as failed:
        extract_text(samples.make_image_only_pdf(), PDF)
    assert failed.value.reason == (
        "This PDF has no extractable text: it has no text layer, and OCR found no text on its "
        "pages either."
    )


def test_blank_pdf_has_no_extractable_text():
    scans.require_tesseract()
    with pytest.raises(NoExtractableText):
        extract_text(samples.make_blank_pdf(3), PDF)


def test_truncated_pdf_fails_as_damaged():
    content = samples.make_truncated_pdf(0.5)
    assert detect_media_type(content, "report.pdf") == PDF
    with pytest.raises(ExtractionFailed) as failed:
        extract_text(content, PDF)
    assert not isinstance(failed.value, NoExtractableText)
    assert "damaged or incomplete" in failed.value.reason


def test_pdf_missing_only_its_last_bytes_is_repaired():
    result = extract_text(samples.make_truncated_pdf(0.99), PDF)
    assert result.text.startswith("Truncated page 1.")
    assert len(result.page_offsets) == 4


def test_pdf_past_the_time_limit_is_stopped_and_the_caller_carries_on():
    bomb = samples.make_form_bomb_pdf(depth=6)  # ~13 s and ~5 GB of work for PDFium
    before = _child_pids()
    started = time.monotonic()
    with pytest.raises(ExtractionFailed) as failed:
        extract_text(bomb, PDF, time_limit=0.5, memory_limit_mb=8192)
    elapsed = time.monotonic() - started

    assert failed.value.reason == "Extraction took longer than 0.5 seconds and was stopped."
    assert elapsed < 2
    assert _child_pids() == before  # the child was killed and reaped
    assert extract_text(samples.make_text_pdf(["Still fine."]), PDF).text == "Still fine."


def test_many_page_pdf_past_a_tiny_time_limit_is_stopped():
    with pytest.raises(ExtractionFailed, match=r"took longer than 0\.2 seconds"):
        extract_text(samples.make_slow_pdf(pages=600), PDF, time_limit=0.2)


def test_pdf_past_the_memory_cap_is_stopped_with_a_message_naming_the_cap():
    with pytest.raises(ExtractionFailed) as failed:
        extract_text(samples.make_form_bomb_pdf(depth=6), PDF, memory_limit_mb=150)
    assert "150 MB memory limit" in failed.value.reason
    assert extract_text(b"ok", TEXT).text == "ok"


# --------------------------------------------------------------------------------------------
# HTML
# --------------------------------------------------------------------------------------------


def test_html_keeps_title_description_and_body_but_no_script_or_handlers():
    result = extract_text(samples.make_html(), HTML)

    assert result.extractor.startswith("trafilatura ")
    kinds = [s["kind"] for s in result.sections]
    assert kinds == ["title", "description", "body"]
    by_kind = {s["kind"]: result.text[s["start"] : s["end"]] for s in result.sections}
    assert by_kind["title"] == samples.HTML_TITLE
    assert by_kind["description"] == samples.HTML_DESCRIPTION
    for paragraph in samples.HTML_PARAGRAPHS:
        assert paragraph in by_kind["body"]
    assert result.sections[-1]["end"] == len(result.text)
    for fragment in samples.HTML_FORBIDDEN_FRAGMENTS:
        assert fragment not in result.text
    assert result.page_offsets == []


def test_html_without_title_or_description_has_only_a_body_section():
    result = extract_text(samples.make_html(title=None, description=None), HTML)
    assert [s["kind"] for s in result.sections] == ["body"]
    assert result.sections[0] == {"kind": "body", "start": 0, "end": len(result.text)}


def test_html_without_text_has_no_extractable_text():
    with pytest.raises(NoExtractableText, match="no extractable text"):
        extract_text(samples.make_empty_html(), HTML)


def test_html_in_a_declared_legacy_charset_is_decoded():
    content = samples.make_html(
        title="Café",
        description="Crème brûlée",
        paragraphs=["Déjà vu, naïve façade."],
        charset="windows-1252",
    )
    result = extract_text(content, HTML)
    assert result.text.startswith("Café\n\nCrème brûlée\n\n")
    assert "Déjà vu, naïve façade." in result.text


# --------------------------------------------------------------------------------------------
# Plain text and Markdown
# --------------------------------------------------------------------------------------------


def test_emoji_text_round_trips():
    result = extract_text(samples.EMOJI_TEXT, TEXT)
    assert result.text == samples.EMOJI_TEXT.decode()
    assert result.extractor == "utf-8"
    assert result.page_offsets == [] and result.sections == []


def test_crlf_and_cr_become_lf():
    assert extract_text(samples.CRLF_TEXT, TEXT).text == (
        "first line\nsecond line\nthird line\nfourth line\n"
    )


def test_decomposed_accent_becomes_composed_nfc():
    text = extract_text(samples.COMBINING_ACCENT_TEXT, TEXT).text
    assert text == "Caf\u00e9 de la R\u00e9publique\n"
    assert "\u0301" not in text


def test_bom_nul_and_control_characters_are_removed_but_tab_and_newline_kept():
    assert extract_text(b"\xef\xbb\xbfa\x00b\x07c\td\ne\x1b", TEXT).text == "abc\td\ne"


def test_markdown_is_kept_as_written():
    result = extract_text(samples.MARKDOWN_TEXT, MARKDOWN)
    assert result.text == samples.MARKDOWN_TEXT.decode()


def test_invalid_utf8_given_to_extract_text_fails_with_the_position():
    with pytest.raises(ExtractionFailed, match=r"first bad byte at position 10\)"):
        extract_text(samples.INVALID_UTF8_BYTES, TEXT)


def test_whitespace_only_text_has_no_extractable_text():
    with pytest.raises(NoExtractableText):
        extract_text(b" \r\n\t\n", TEXT)


# --------------------------------------------------------------------------------------------
# Canonical text, the child process, the module boundary
# --------------------------------------------------------------------------------------------


def test_canonical_text_normalises_line_endings_controls_and_nfc():
    assert canonical_text("e\u0301\r\nx\ry\x00z\x7f\x85\t") == "\u00e9\nx\nyz\t"


def test_extraction_works_when_the_caller_runs_from_another_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    assert extract_text(b"hello", TEXT).text == "hello"


def test_unknown_media_type_is_a_programming_error():
    with pytest.raises(ValueError):
        extract_text(b"x", "image/gif")


def test_extraction_code_never_imports_django():
    probe = (
        "import sys\n"
        "import sources.extraction as e\n"
        "from sources import _extract_child as c\n"
        "from tests import sample_files as s\n"
        "c.extract_pdf(s.make_text_pdf(['x']))\n"
        "c.extract_html(s.make_html())\n"
        "c.extract_plain(b'x')\n"
        "from tests import documents as d\n"
        "c.extract_docx(d.make_docx('x'))\n"
        "sys.exit(1 if any(m.split('.')[0] == 'django' for m in sys.modules) else 0)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, timeout=60)
    assert done.returncode == 0


# --------------------------------------------------------------------------------------------
# Hostile PDFs: the pypdf pre-check in the child, before PDFium
# --------------------------------------------------------------------------------------------

BOMB_MESSAGE = (
    "This PDF was refused: a compressed stream expands beyond {mb} MB — possibly a "
    "decompression bomb."
)
NESTED_MESSAGE = (
    "This PDF was refused: its structure is nested too deeply (more than 100 levels) — "
    "possibly built to exhaust the reader."
)


@pytest.mark.parametrize("filters", ["flate", "runlength"])
def test_pdf_stream_inflating_to_gigabytes_is_refused_as_a_possible_decompression_bomb(filters):
    bomb = samples.make_inflation_bomb_pdf(2048, filters=filters)
    assert len(bomb) < 64 * 1024  # a small file...
    started = time.monotonic()
    with pytest.raises(ExtractionFailed) as failed:
        extract_text(bomb, PDF, memory_limit_mb=512)

    assert failed.value.reason == BOMB_MESSAGE.format(mb=64)  # an eighth of the memory cap
    assert time.monotonic() - started < 10  # ...refused long before 2 GB were inflated


def test_stream_output_limit_follows_the_memory_cap_or_an_explicit_value():
    bomb = samples.make_inflation_bomb_pdf(256)
    with pytest.raises(ExtractionFailed) as derived:
        extract_text(bomb, PDF, memory_limit_mb=256)
    with pytest.raises(ExtractionFailed) as explicit:
        extract_text(bomb, PDF, memory_limit_mb=512, max_stream_mb=10)

    assert derived.value.reason == BOMB_MESSAGE.format(mb=32)
    assert explicit.value.reason == BOMB_MESSAGE.format(mb=10)


def test_stream_that_inflates_within_the_limit_is_not_refused():
    # 8 MB of zeros is no text, but no bomb either: PDFium reads it and finds nothing.
    scans.require_tesseract()
    with pytest.raises(NoExtractableText) as failed:
        extract_text(samples.make_inflation_bomb_pdf(8), PDF, max_stream_mb=64)
    assert "no extractable text" in failed.value.reason


@pytest.mark.parametrize("kind", ["array", "dict"])
def test_pdf_nested_100000_levels_deep_is_refused(kind):
    with pytest.raises(ExtractionFailed) as failed:
        extract_text(samples.make_deeply_nested_pdf(100_000, kind=kind), PDF)
    assert failed.value.reason == NESTED_MESSAGE


def test_pdf_with_ordinary_nesting_is_extracted():
    result = extract_text(samples.make_deeply_nested_pdf(50), PDF)
    assert result.text == "Deeply nested page."


def test_pdf_whose_page_tree_contains_itself_is_refused_as_circular():
    with pytest.raises(ExtractionFailed) as failed:
        extract_text(samples.make_circular_page_tree_pdf(), PDF)
    assert failed.value.reason == (
        "This PDF was refused: its page tree is circular (a node lists itself, or one of its "
        "parents, as a child)."
    )


def test_pdf_with_circular_object_references_is_extracted_without_looping():
    started = time.monotonic()
    result = extract_text(samples.make_circular_reference_pdf(), PDF, time_limit=10)
    assert result.text == "Circular references page."
    assert time.monotonic() - started < 5


def test_a_bomb_behind_an_object_pypdf_cannot_read_is_still_found():
    # pypdf fails on an object that is only a reference (7 0 obj 8 0 R); the walk goes on.
    pdf = samples.make_circular_reference_pdf(hidden_bomb_megabytes=1024)
    with pytest.raises(ExtractionFailed) as failed:
        extract_text(pdf, PDF, memory_limit_mb=512)
    assert failed.value.reason == BOMB_MESSAGE.format(mb=64)


def test_pdf_of_10000_pages_is_refused_naming_its_page_count_and_the_limit():
    with pytest.raises(ExtractionFailed) as failed:
        extract_text(samples.make_many_pages_pdf(10_000), PDF, max_pages=5000)
    assert failed.value.reason == (
        "This PDF was refused: it has 10,000 pages, more than the limit of 5,000 pages."
    )


def test_page_limit_accepts_exactly_the_limit_and_refuses_one_more():
    at_limit = extract_text(samples.make_many_pages_pdf(50), PDF, max_pages=50)
    with pytest.raises(ExtractionFailed, match="it has 51 pages, more than the limit of 50"):
        extract_text(samples.make_many_pages_pdf(51), PDF, max_pages=50)
    assert len(at_limit.page_offsets) == 50


def test_pdf_with_garbage_xref_offsets_is_repaired_not_refused():
    result = extract_text(samples.make_broken_xref_pdf(["First.", "Second."]), PDF)
    assert result.text == "First.\n\nSecond."


def test_password_protected_pdf_still_gets_the_password_message_after_the_pre_check():
    with pytest.raises(NoExtractableText, match="encrypted and needs a password"):
        extract_text(samples.make_encrypted_pdf(), PDF)


def test_pdf_html_zip_polyglot_is_one_pdf_and_its_script_never_reaches_the_text():
    polyglot = samples.make_pdf_html_zip_polyglot()
    assert b"<script>" in polyglot and polyglot.endswith(samples.ZIP_BYTES)
    assert detect_media_type(polyglot, "page.html") == PDF

    result = extract_text(polyglot, PDF)

    assert result.text == "Polyglot page text."


def test_page_and_stream_limits_must_be_positive():
    with pytest.raises(ValueError):
        extract_text(b"%PDF-1.7", PDF, max_pages=0)
    with pytest.raises(ValueError):
        extract_text(b"%PDF-1.7", PDF, max_stream_mb=0)


def test_extraction_modules_import_no_parser_until_a_file_is_extracted():
    probe = (
        "import sys\n"
        "import sources.extraction\n"
        "loaded = {m.split('.')[0] for m in sys.modules}\n"
        "parsers = {'pypdf', 'pypdfium2', 'trafilatura', 'lxml', 'PIL', 'docx', 'odfdo'}\n"
        "sys.exit(len(loaded & (parsers | {'django'})))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, timeout=60)
    assert done.returncode == 0
