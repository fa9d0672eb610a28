"""
Scans and screenshots read by OCR (Tesseract, in the extraction child's sandbox), from files
made here (tests/scans.py): uploaded through the real upload view, extracted by the real task,
and an OCR'd sentence quoted as the browser quotes it, exactly, on its page.

Without Tesseract (or a language) these tests skip outside CI, saying what to install; in
CI (``CI`` set), which installs them, they fail.
"""

import io
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image, ImageDraw

from sources import extraction
from sources.extraction import (
    JPEG,
    PAGE_SEPARATOR,
    PDF,
    PNG,
    ExtractionFailed,
    NoExtractableText,
    extract_text,
)
from sources.models import ExtractionStatus, SourceVersion
from sources.services import quotation_create_from_selection
from tests import scans

METADATA = {
    "title": "A post and a letter, read by OCR",
    "publisher": "",
    "authors": "",
    "url": "",
    "published_on": "",
    "accessed_on": "",
    "role": "primary",
    "notes": "",
}

POST = [
    "@citydesk · 2h",
    "Breaking: the mayor says unemployment fell to 4.1% in October.",
    "The statistics office has not published the October figures yet.",
]
POST_SENTENCE = POST[1]

LETTER = [
    "Ministry of Housing, Letter 12/2026",
    "The council approved a budget of 4.2 million euros on Tuesday.",
    "Officials said the new bridge would open in March 2027.",
]
CARTA = [
    "El ministerio informó que la inflación bajó al 3,5 por ciento.",
    "Según el informe, el año pasado se construyeron más viviendas.",
]
#: A page in each language, with the letters Tesseract confuses across them.
ACCENTS = [
    CARTA,
    [
        "Le ministère a déclaré que le chômage a baissé cette année.",
        "Selon l'étude, près d'un élève sur cinq n'a pas accès à internet.",
    ],
    [
        "A informação não foi confirmada pelas autoridades de saúde.",
        "Segundo o relatório, a população da região diminuiu este ano.",
    ],
]
ARABIC = ["قالت الوزارة إن التضخم انخفض هذا العام", "وافق المجلس على الميزانية الجديدة"]

ALL_LANGUAGES = "eng+spa+por+fra+ara"
INSTALL_EVERYTHING = (
    "apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-spa tesseract-ocr-por "
    "tesseract-ocr-fra tesseract-ocr-ara"
)


@pytest.fixture
def tag(request):
    """Unique bytes for each test's files (the media folder stores them by SHA-256)."""
    return f"{__name__}.{request.node.name}"


def upload(client, name, content):
    data = METADATA | {"file": SimpleUploadedFile(name, content, "application/octet-stream")}
    return client.post(reverse("sources:source_create"), data)


def quote(version, sentence, editor):
    """Quote ``sentence`` as a reader selecting it in the text would."""
    start = version.extracted_text.index(sentence)
    quotation, _ = quotation_create_from_selection(
        version=version,
        start=start,
        end=start + len(sentence),
        selected_text=sentence,
        actor=editor,
    )
    return quotation


def overlap(a, b):
    """How much of box ``b`` box ``a`` covers (0 to 1)."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    if width <= 0 or height <= 0:
        return 0.0
    return width * height / ((b[2] - b[0]) * (b[3] - b[1]))


# --------------------------------------------------------------------------------------------
# Through the upload view
# --------------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("image_format", "media_type", "name"),
    [
        ("PNG", "image/png", "post.png"),
        ("JPEG", "image/jpeg", "post.jpg"),
        ("WEBP", "image/webp", "post.webp"),
    ],
    ids=["png", "jpeg", "webp"],
)
def test_a_screenshot_is_read_by_ocr_and_its_sentence_quoted_exactly(
    editor_client, editor, tag, image_format, media_type, name
):
    scans.require_tesseract("eng")
    content = scans.screenshot(POST, tag=tag, image_format=image_format)

    response = upload(editor_client, name, content)

    assert response.status_code == 302
    version = SourceVersion.objects.get()
    assert version.media_type == media_type
    assert version.extraction_status == ExtractionStatus.READY, version.extraction_error
    assert version.read_by_ocr and version.is_image
    assert 80 <= version.ocr_confidence <= 100
    assert version.extractor.startswith("tesseract 5.")
    assert version.page_offsets == [0]
    assert version.ocr_layout["pages"] == [{"width": 1280, "height": 364, "dpi": None}]
    quotation = quote(version, POST_SENTENCE, editor)
    assert quotation.exact == POST_SENTENCE
    assert quotation.page == 1
    assert version.file.name.endswith(f"{version.sha256}.{version.EXTENSIONS[media_type]}")


@pytest.mark.django_db
def test_a_two_page_scan_is_read_page_by_page_and_each_sentence_quoted_on_its_page(
    editor_client, editor, tag
):
    scans.require_tesseract("eng", "spa")
    content = scans.scan_pdf([LETTER, CARTA], tag=tag)

    response = upload(editor_client, "letter.pdf", content)

    assert response.status_code == 302
    version = SourceVersion.objects.get()
    assert version.media_type == "application/pdf"
    assert version.extraction_status == ExtractionStatus.READY, version.extraction_error
    assert version.read_by_ocr and not version.is_image
    assert 80 <= version.ocr_confidence <= 100
    text = version.extracted_text
    assert len(version.page_offsets) == 2
    second = version.page_offsets[1]
    assert version.page_offsets[0] == 0
    assert text[second - len(PAGE_SEPARATOR) : second] == PAGE_SEPARATOR
    assert text[second:].startswith(CARTA[0])
    assert [page["dpi"] for page in version.ocr_layout["pages"]] == [300, 300]

    first_quotation = quote(version, LETTER[1], editor)
    second_quotation = quote(version, CARTA[1], editor)

    assert (first_quotation.exact, first_quotation.page) == (LETTER[1], 1)
    assert (second_quotation.exact, second_quotation.page) == (CARTA[1], 2)
    page = editor_client.get(version.source.get_absolute_url())
    assert page.status_code == 200
    assert CARTA[1] in page.text  # the text read by OCR is the source's text


@pytest.mark.django_db
def test_an_image_without_text_is_stored_with_no_extractable_text(editor_client, tag):
    scans.require_tesseract("eng")
    drawn = scans.text_image([], size=(800, 600))
    for left in range(40, 760, 90):  # boxes, not letters
        ImageDraw.Draw(drawn.image).rectangle((left, 100, left + 50, 500), fill=80)
    content = scans.encode(drawn.image, tag=tag)

    upload(editor_client, "chart.png", content)

    version = SourceVersion.objects.get()
    assert version.extraction_status == ExtractionStatus.NO_TEXT
    assert version.extraction_error == "OCR found no text in this image."
    assert not version.read_by_ocr


@pytest.mark.django_db
def test_without_tesseract_the_version_fails_saying_what_to_install(
    editor_client, tag, monkeypatch, settings
):
    # As on a server without the package: the child finds no tesseract on its PATH.
    monkeypatch.setitem(extraction.CHILD_ENVIRONMENT, "PATH", "/nonexistent")
    settings.OCR_LANGUAGES = ALL_LANGUAGES

    upload(editor_client, "post.png", scans.screenshot(POST, tag=tag))

    version = SourceVersion.objects.get()
    assert version.extraction_status == ExtractionStatus.FAILED
    assert version.extraction_error == (
        "This file must be read by OCR, but Tesseract is not installed on the server. An "
        f"administrator can install it with: {INSTALL_EVERYTHING}"
    )


@pytest.mark.django_db
def test_a_scan_of_more_pages_than_ocr_reads_fails_saying_so(editor_client, tag, settings):
    settings.OCR_MAX_PAGES = 1

    upload(editor_client, "letter.pdf", scans.scan_pdf([LETTER, CARTA], tag=tag))

    version = SourceVersion.objects.get()
    assert version.extraction_status == ExtractionStatus.FAILED
    assert version.extraction_error == (
        "This PDF was refused: it has no text layer, and its 2 pages are more than the 1 pages "
        "that are read by OCR. Split it into smaller PDFs, or upload one with a text layer."
    )


# --------------------------------------------------------------------------------------------
# extract_text itself
# --------------------------------------------------------------------------------------------


def test_spanish_french_and_portuguese_pages_keep_their_accents_letter_for_letter(tag):
    # Read with "eng" first, the French and Portuguese pages would come out "ministere",
    # "chómage", "informacáo": each is read again with its own language first.
    scans.require_tesseract("eng", "spa", "fra", "por")

    result = extract_text(scans.scan_pdf(ACCENTS, tag=tag), PDF, ocr_languages=ALL_LANGUAGES)

    assert result.text == PAGE_SEPARATOR.join("\n".join(page) for page in ACCENTS)


def test_every_word_box_holds_its_word_and_lies_where_it_was_drawn(tag):
    scans.require_tesseract("eng", "spa")
    drawn = scans.text_image(LETTER + CARTA, size=(2480, 900))

    result = extract_text(scans.encode(drawn.image, tag=tag), PNG, ocr_languages=ALL_LANGUAGES)

    layout = result.ocr_layout
    assert layout["pages"] == [{"width": 2480, "height": 900, "dpi": None}]
    words = [result.text[start:end] for _, start, end, *_ in layout["words"]]
    assert words == result.text.split()  # every word, in order, and nothing else
    for page, _, _, left, top, right, bottom in layout["words"]:
        assert page == 1
        assert 0 <= left < right <= 2480 and 0 <= top < bottom <= 900
    boxes = {result.text[start:end]: box for _, start, end, *box in layout["words"]}
    for word in ("council", "budget", "Tuesday.", "inflación", "viviendas."):
        assert overlap(boxes[word], drawn.boxes[word]) > 0.8, word


def test_the_scans_page_boxes_are_on_their_own_page(tag):
    scans.require_tesseract("eng", "spa")

    result = extract_text(scans.scan_pdf([LETTER, CARTA], tag=tag), PDF)

    second = result.page_offsets[1]
    pages = result.ocr_layout["pages"]
    assert len(pages) == 2
    for page, start, end, left, top, right, bottom in result.ocr_layout["words"]:
        assert (start >= second) == (page == 2)
        assert 0 <= left < right <= pages[page - 1]["width"]
        assert 0 <= top < bottom <= pages[page - 1]["height"]
        assert result.text[start:end].strip() == result.text[start:end] != ""


def test_a_photo_is_read_upright_as_its_exif_orientation_says(tag):
    # Phones store the pixels as the sensor saw them and say in EXIF how to turn them.
    scans.require_tesseract("eng")
    upright = scans.text_image(LETTER, size=(2000, 500)).image
    stored = upright.transpose(Image.Transpose.ROTATE_90)  # what orientation 6 turns back
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: rotate 90° clockwise to show
    out = io.BytesIO()
    stored.save(out, "JPEG", quality=92, exif=exif.tobytes(), comment=tag.encode())

    result = extract_text(out.getvalue(), JPEG)

    assert result.text == "\n".join(LETTER)
    (page,) = result.ocr_layout["pages"]
    assert (page["width"], page["height"]) == (2000, 500)  # the image as shown, not as stored


def test_latin_text_reads_the_same_with_arabic_among_the_languages(tag):
    scans.require_tesseract("eng", "spa", "por", "fra", "ara")
    content = scans.encode(scans.text_image(LETTER + CARTA, size=(2480, 900)).image, tag=tag)

    with_arabic = extract_text(content, PNG, ocr_languages=ALL_LANGUAGES)
    without = extract_text(content, PNG, ocr_languages="eng+spa+por+fra")

    # The same words, letter for letter (the blocks Tesseract finds may differ).
    assert with_arabic.text.split() == without.text.split() == " ".join(LETTER + CARTA).split()
    assert with_arabic.extractor.endswith(f"(OCR, {ALL_LANGUAGES})")


def test_an_arabic_page_is_read_again_in_arabic_alone(tag):
    # With the Latin languages beside it, Tesseract reads "إن" as "yl": the page is mostly
    # Arabic letters, so it is read again with "ara" only, and that reading is kept.
    scans.require_tesseract("eng", "ara")
    scans.require_arabic_shaping()
    drawn = scans.text_image(ARABIC, size=(2000, 400), font=scans.SANS, right_to_left=True)

    result = extract_text(scans.encode(drawn.image, tag=tag), PNG, ocr_languages=ALL_LANGUAGES)

    assert result.text.split() == " ".join(ARABIC).split()  # every word, letter for letter
    assert result.extractor.endswith(f"(OCR, {ALL_LANGUAGES})")
    assert "\u200f" not in result.text and "\u200e" not in result.text


def test_requested_languages_that_are_not_installed_are_left_out(tag):
    scans.require_tesseract("eng")
    content = scans.screenshot(POST, tag=tag)

    result = extract_text(content, PNG, ocr_languages="eng+xyz")

    assert result.extractor.endswith("(OCR, eng)")
    assert POST_SENTENCE in result.text


def test_with_none_of_its_languages_installed_ocr_says_which_packages_to_install(tag):
    scans.require_tesseract()

    with pytest.raises(ExtractionFailed) as failed:
        extract_text(scans.screenshot(POST, tag=tag), PNG, ocr_languages="xyz+chi_qq")

    assert failed.value.reason == (
        "This file must be read by OCR, but Tesseract has none of the languages it is set to "
        "read (xyz+chi_qq) installed. An administrator can install them with: apt-get install "
        "tesseract-ocr tesseract-ocr-xyz tesseract-ocr-chi-qq"
    )
    assert not isinstance(failed.value, NoExtractableText)


def test_a_blank_scan_has_no_extractable_text_even_by_ocr(tag):
    scans.require_tesseract()
    blank = scans.scan_pdf([[], []], tag=tag, degrees=0)

    with pytest.raises(NoExtractableText) as failed:
        extract_text(blank, PDF)

    assert failed.value.reason == (
        "This PDF has no extractable text: it has no text layer, and OCR found no text on its "
        "pages either."
    )


def test_a_scan_of_more_pages_than_the_ocr_limit_is_refused_before_any_is_read(tag):
    started = time.monotonic()
    with pytest.raises(ExtractionFailed, match="its 3 pages are more than the 2 pages"):
        extract_text(scans.scan_pdf([LETTER] * 3, tag=tag), PDF, ocr_max_pages=2)
    assert time.monotonic() - started < 5


def test_each_page_read_by_ocr_brings_the_time_limit_again(tag):
    scans.require_tesseract()
    page = ["Each page brings its own time."]
    small = {"size": (1600, 400), "specks": 200}
    one_page = scans.scan_pdf([page], tag=f"{tag}-one", **small)
    timings = []
    for _ in range(2):  # the first may also check the sandbox
        started = time.monotonic()
        extract_text(one_page, PDF)
        timings.append(time.monotonic() - started)
    time_limit = 3 * min(timings)  # ample to start and read one page, not sixteen

    started = time.monotonic()
    pages = scans.scan_pdf([page] * 16, tag=tag, **small)
    result = extract_text(pages, PDF, time_limit=time_limit)
    elapsed = time.monotonic() - started

    assert len(result.page_offsets) == 16
    assert elapsed > time_limit  # longer than a file may take: each page brought its own time


def test_ocr_languages_must_be_tesseract_codes():
    for languages in ("", "eng+", "eng spa", "eng;rm -rf", "../eng"):
        with pytest.raises(ValueError):
            extract_text(b"x", PNG, ocr_languages=languages)
