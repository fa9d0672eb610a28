"""
Hostile uploads, end to end: a corpus of files built here (nothing is downloaded) goes through
the real upload view as raw multipart bodies (Django's own upload handling, file names byte
for byte as a hostile client sends them), the database task backend and its real
``db_worker``. Each file is refused in the form with a specific message, or stored under our
own name and extracted, refused or stopped by the extraction child within its caps; right
after each one the web process answers and the worker extracts a following good upload.
"""

import html
import io
import re
import resource
import struct
import time
import uuid
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from sources.extraction import (
    DOCX,
    JPEG,
    ODT,
    PNG,
    ExtractionFailed,
    NoExtractableText,
    UnsupportedUpload,
    detect_media_type,
    extract_text,
)
from sources.models import ExtractionStatus, Source, SourceVersion
from tests import documents, sample_files, scans
from tests.factories import SourceFactory

DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
MB = 1024 * 1024
DEFAULT_UPLOAD_LIMIT = 25 * MB
#: The test process may grow by this much at most over one case: a bomb inflated here (and
#: not in the capped child) would add gigabytes.
PEAK_MEMORY_GROWTH_LIMIT = 300 * MB

METADATA = {
    "title": "Hostile upload under test",
    "publisher": "",
    "authors": "",
    "url": "",
    "published_on": "",
    "accessed_on": "",
    "role": "primary",
    "notes": "Typed before the upload.",
}

HOSTILE_FILE_NAME = "../../../etc/cron.d/..\\..\\Windows\\\x1b[31mev\x00il\x07\u202eexe.txt"
CLEANED_FILE_NAME = "[31mevilexe.txt"
STORED_NAME = re.compile(r"media/sources/([0-9a-f]{2})/\1[0-9a-f]{62}(?:_[A-Za-z0-9]{7})?\.\w+")

ACCEPTED = (
    "which is not accepted: upload a PDF, HTML, text or Markdown, Word (.docx), OpenDocument "
    "(.odt), PNG, JPEG or WebP file."
)
TOO_MANY_PIXELS = (
    "This image is {width} × {height} pixels, more than can be read: the limit is 40,000,000 "
    "pixels in all, and 20,000 pixels a side. Upload a smaller image."
)
#: The same refusal as detection words it, before the site formats its numbers for the reader.
TOO_MANY_PIXELS_REASON = (
    "This image is {width} × {height} pixels, more than can be read: the limit is 40000000 "
    "pixels in all, and 20000 pixels a side. Upload a smaller image."
)
DAMAGED_PNG = (
    "This looks like a PNG image, but it is damaged: its size in pixels cannot be read from its "
    "header."
)


@dataclass(frozen=True)
class Case:
    id: str
    filename: str
    build: object  # () -> bytes, called in the test
    refused: str = ""  # the form's message: nothing is saved
    status: str = ""  # else the version's final extraction status...
    error: str = ""  # ...and the start of its extraction_error
    text: str = ""  # in the extracted text
    forbidden: tuple = ()  # never in the extracted text
    media_type: str = ""
    settings: dict = field(default_factory=dict)
    needs_tesseract: bool = False  # read by OCR


CORPUS = [
    Case(
        "pdf-stream-inflating-to-2-gb",
        "report.pdf",
        lambda: sample_files.make_inflation_bomb_pdf(2048),
        status=ExtractionStatus.FAILED,
        error="This PDF was refused: a compressed stream expands beyond 96 MB — possibly a "
        "decompression bomb.",
    ),
    Case(
        "pdf-run-length-stream-inflating-to-2-gb",
        "report.pdf",
        lambda: sample_files.make_inflation_bomb_pdf(2048, filters="runlength"),
        status=ExtractionStatus.FAILED,
        error="This PDF was refused: a compressed stream expands beyond 96 MB",
    ),
    Case(
        "pdf-arrays-nested-100000-deep",
        "nested.pdf",
        lambda: sample_files.make_deeply_nested_pdf(100_000),
        status=ExtractionStatus.FAILED,
        error="This PDF was refused: its structure is nested too deeply",
    ),
    Case(
        "pdf-dictionaries-nested-100000-deep",
        "nested.pdf",
        lambda: sample_files.make_deeply_nested_pdf(100_000, kind="dict"),
        status=ExtractionStatus.FAILED,
        error="This PDF was refused: its structure is nested too deeply",
    ),
    Case(
        "pdf-circular-page-tree",
        "loop.pdf",
        sample_files.make_circular_page_tree_pdf,
        status=ExtractionStatus.FAILED,
        error="This PDF was refused: its page tree is circular",
    ),
    Case(
        "pdf-circular-object-references",
        "loop.pdf",
        sample_files.make_circular_reference_pdf,
        status=ExtractionStatus.READY,
        text="Circular references page.",
    ),
    Case(
        "pdf-of-10000-pages",
        "long.pdf",
        lambda: sample_files.make_many_pages_pdf(10_000),
        status=ExtractionStatus.FAILED,
        error="This PDF was refused: it has 10,000 pages, more than the limit of 5,000 pages.",
    ),
    Case(
        "pdf-encrypted-with-a-password",
        "locked.pdf",
        sample_files.make_encrypted_pdf,
        status=ExtractionStatus.NO_TEXT,
        error="This PDF is encrypted and needs a password to open",
    ),
    Case(
        "pdf-with-garbage-xref-offsets",
        "broken.pdf",
        sample_files.make_broken_xref_pdf,
        status=ExtractionStatus.READY,
        text="Broken xref page one.\n\nBroken xref page two.",
    ),
    Case(
        "pdf-form-bomb-past-the-time-limit",
        "forms.pdf",
        lambda: sample_files.make_form_bomb_pdf(depth=6),
        status=ExtractionStatus.FAILED,
        error="Extraction took longer than 1 seconds and was stopped.",
        settings={"EXTRACTION_TIME_LIMIT_SECONDS": 1, "EXTRACTION_MEMORY_LIMIT_MB": 8192},
    ),
    Case(
        "pdf-form-bomb-past-the-memory-cap",
        "forms.pdf",
        lambda: sample_files.make_form_bomb_pdf(depth=6),
        status=ExtractionStatus.FAILED,
        error="Extraction needed more than the 150 MB memory limit and was stopped",
        settings={"EXTRACTION_MEMORY_LIMIT_MB": 150},
    ),
    Case(
        "html-with-script-iframe-onerror-javascript-and-meta-refresh",
        "page.html",
        sample_files.make_hostile_html,
        status=ExtractionStatus.READY,
        text=sample_files.HTML_PARAGRAPHS[1],
        forbidden=tuple(sample_files.HOSTILE_HTML_FRAGMENTS),
        media_type="text/html",
    ),
    Case(
        "svg-with-script",
        "drawing.html",
        lambda: sample_files.SVG_SCRIPT_BYTES,
        refused=f"This looks like an SVG image, {ACCEPTED}",
    ),
    Case(
        "png-decompression-bomb-of-30000-by-30000-pixels",
        "screenshot.png",
        lambda: scans.decompression_bomb_png("hostile upload"),
        refused=TOO_MANY_PIXELS.format(width="30,000", height="30,000"),
    ),
    Case(
        "jpeg-declaring-65000-by-65000-pixels",
        "photo.jpg",
        lambda: scans.huge_jpeg("hostile upload"),
        refused=TOO_MANY_PIXELS.format(width="65,000", height="65,000"),
    ),
    Case(
        "jpeg-with-a-small-frame-header-then-a-huge-one",
        "photo.jpg",
        lambda: scans.huge_jpeg("hostile upload", second=True),
        refused=TOO_MANY_PIXELS.format(width="65,000", height="65,000"),
    ),
    Case(
        "png-with-a-damaged-header",
        "screenshot.png",
        lambda: scans.damaged_png("hostile upload"),
        refused=DAMAGED_PNG,
    ),
    Case(
        "png-whose-data-holds-far-more-rows-than-its-header-says",
        "screenshot.png",
        lambda: scans.lying_png("hostile upload"),
        status=ExtractionStatus.NO_TEXT,
        error="OCR found no text in this image.",
        media_type="image/png",
        needs_tesseract=True,
    ),
    Case(
        "docx-zip-bomb-inflating-to-1-gb",
        "letter.docx",
        lambda: documents.zip_bomb_docx("hostile upload"),
        status=ExtractionStatus.FAILED,
        error="This Word file was refused: its member word/document.xml would expand to "
        "1,073,741,824 bytes, more than the limit of 100 MB for one member — possibly a zip bomb.",
        media_type=DOCX,
    ),
    Case(
        "docx-with-an-external-entity",
        "letter.docx",
        lambda: documents.xxe_docx("hostile upload"),
        status=ExtractionStatus.FAILED,
        error="This Word file was refused: its XML declares entities (an external entity, "
        "which can read files or reach the network, in word/document.xml)",
        forbidden=("root:",),
        media_type=DOCX,
    ),
    Case(
        "odt-with-a-billion-laughs",
        "letter.odt",
        lambda: documents.billion_laughs_odt("hostile upload"),
        status=ExtractionStatus.FAILED,
        error="This OpenDocument file was refused: its XML declares entities (entities that "
        "expand into other entities",
        media_type=ODT,
    ),
    Case(
        "pdf-html-zip-polyglot",
        "page.html",
        sample_files.make_pdf_html_zip_polyglot,
        status=ExtractionStatus.READY,
        text="Polyglot page text.",
        forbidden=("<", "script", "alert"),
        media_type="application/pdf",
    ),
    Case(
        "file-name-with-dot-dot-slash-and-control-characters",
        HOSTILE_FILE_NAME,
        lambda: b"Plain words under a hostile name.",
        status=ExtractionStatus.READY,
        text="Plain words under a hostile name.",
        media_type="text/plain",
    ),
    Case(
        "zero-bytes",
        "empty.pdf",
        lambda: b"",
        refused="The submitted file is empty.",
    ),
    Case(
        "one-byte-over-the-limit",
        "big.txt",
        lambda: b"a" * (DEFAULT_UPLOAD_LIMIT + 1),
        refused="The file is 26,214,401 bytes, over the limit of 26,214,400 bytes (25.0 MB).",
    ),
]


def multipart(fields, filename, content):
    """A multipart/form-data body written by hand, so that the file name reaches Django's
    parser exactly as given (the test client would keep only its basename)."""
    boundary = f"hostile-{uuid.uuid4().hex}"
    parts = []
    for name, value in fields.items():
        disposition = f'Content-Disposition: form-data; name="{name}"'
        parts.append(f"--{boundary}\r\n{disposition}\r\n\r\n{value}\r\n".encode())
    quoted = filename.replace('"', "%22").encode("utf-8")
    parts.append(
        f"--{boundary}\r\n".encode()
        + b'Content-Disposition: form-data; name="file"; filename="'
        + quoted
        + b'"\r\nContent-Type: application/octet-stream\r\n\r\n'
        + content
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def post_new_source(client, filename, content, **fields):
    body, content_type = multipart(METADATA | fields, filename, content)
    return client.post(reverse("sources:source_create"), data=body, content_type=content_type)


def run_worker():
    call_command("db_worker", "--batch", "--no-startup-delay", "--queue-name", "*")


def file_tree(root):
    return {str(path.relative_to(root)) for path in Path(root).rglob("*") if path.is_file()}


def child_pids():
    pids = set()
    for task in Path("/proc/self/task").iterdir():
        pids.update(int(p) for p in (task / "children").read_text().split())
    return pids


def peak_memory():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux


@pytest.fixture
def sandbox(settings, tmp_path):
    """MEDIA_ROOT and Django's upload temp folder inside one fresh folder, with the tasks
    going to the database for db_worker."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.FILE_UPLOAD_TEMP_DIR = tmp_path / "upload-tmp"
    settings.FILE_UPLOAD_TEMP_DIR.mkdir()
    settings.TASKS = DATABASE_TASKS
    settings.SOURCE_UPLOAD_MAX_BYTES = DEFAULT_UPLOAD_LIMIT
    return tmp_path


def assert_the_app_carries_on(client, after):
    """The web process answers at once, and the worker extracts the next ordinary upload."""
    health = client.get(reverse("healthz"))
    assert (health.status_code, health.content) == (200, b"ok")
    assert client.get(reverse("sources:source_list")).status_code == 200

    good = sample_files.make_text_pdf([f"The next upload, after {after}."])
    response = post_new_source(client, "next.pdf", good, title="The next upload")
    assert response.status_code == 302
    run_worker()
    following = SourceVersion.objects.get(source__title="The next upload")
    assert following.extraction_status == ExtractionStatus.READY
    assert following.extracted_text == f"The next upload, after {after}."
    page = client.get(following.source.get_absolute_url())
    assert page.status_code == 200


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("case", CORPUS, ids=[case.id for case in CORPUS])
def test_each_hostile_upload_is_refused_or_handled_within_the_caps_and_the_app_carries_on(
    case, editor_client, sandbox, settings
):
    for name, value in case.settings.items():
        setattr(settings, name, value)
    if case.needs_tesseract:
        scans.require_tesseract(*settings.OCR_LANGUAGES.split("+"))
    content = case.build()
    before_files = file_tree(sandbox)
    before_children = child_pids()
    before_peak = peak_memory()

    response = post_new_source(editor_client, case.filename, content)

    if case.refused:
        assert response.status_code == 422
        # filesizeformat puts a no-break space between number and unit.
        assert case.refused in html.unescape(response.text).replace("\xa0", " ")
        assert METADATA["title"] in response.text  # what was typed is kept
        assert METADATA["notes"] in response.text
        assert not Source.objects.exists()
        assert not SourceVersion.objects.exists()
        assert file_tree(sandbox) == before_files
    else:
        assert response.status_code == 302
        version = SourceVersion.objects.get()
        assert version.extraction_status == ExtractionStatus.PENDING
        started = time.monotonic()
        run_worker()
        elapsed = time.monotonic() - started

        version.refresh_from_db()
        assert version.extraction_status == case.status, version.extraction_error
        assert version.extraction_error.startswith(case.error)
        if case.status == ExtractionStatus.READY:
            assert version.extraction_error == ""
            assert case.text in version.extracted_text
        else:
            assert version.extracted_text == ""
        for fragment in case.forbidden:
            assert fragment not in version.extracted_text
        if case.media_type:
            assert version.media_type == case.media_type
        assert DBTaskResult.objects.get().status == "SUCCESSFUL"  # the task itself never failed
        assert elapsed < settings.EXTRACTION_TIME_LIMIT_SECONDS + 5

        # Stored under our own name (from the digest), and nowhere else.
        new_files = file_tree(sandbox) - before_files
        assert new_files == {f"media/{version.file.name}"}
        assert STORED_NAME.fullmatch(f"media/{version.file.name}")
        assert version.file.name.startswith(f"sources/{version.sha256[:2]}/{version.sha256}")
        assert "/" not in version.original_filename
        assert "\\" not in version.original_filename
        assert not any(ord(char) < 32 or ord(char) == 127 for char in version.original_filename)
        if case.filename == HOSTILE_FILE_NAME:
            assert version.original_filename == CLEANED_FILE_NAME

    assert not list((sandbox / "upload-tmp").iterdir())  # Django's temp files are gone
    assert child_pids() == before_children  # every extraction child was reaped
    assert peak_memory() - before_peak < PEAK_MEMORY_GROWTH_LIMIT
    assert_the_app_carries_on(editor_client, after=case.id)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("build", "media_type", "extension"),
    [
        (lambda: sample_files.make_text_pdf(["Downloaded page."]), "application/pdf", "pdf"),
        (sample_files.make_hostile_html, "text/html", "html"),
        (lambda: b"Plain downloaded words.", "text/plain", "txt"),
        (lambda: sample_files.MARKDOWN_TEXT, "text/markdown", "md"),
        (sample_files.make_pdf_html_zip_polyglot, "application/pdf", "pdf"),
    ],
    ids=["pdf", "html", "text", "markdown", "pdf-html-zip-polyglot"],
)
def test_every_original_is_served_only_as_a_sandboxed_attachment_under_our_own_name(
    editor_client, settings, tmp_path, build, media_type, extension
):
    settings.MEDIA_ROOT = tmp_path / "media"
    content = build()
    name = "..\\../notes\x1b.md" if extension == "md" else f"../evil\r\x07.{extension}"
    post_new_source(editor_client, name, content, title="Council budget: claims & figures")
    version = SourceVersion.objects.get()
    assert version.media_type == media_type

    response = editor_client.get(
        reverse("sources:version_download", args=[version.source_id, version.number])
    )

    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        f'attachment; filename="council-budget-claims-figures-v1.{extension}"'
    )
    assert response["Content-Type"] == "application/octet-stream"
    assert response["Content-Security-Policy"].split(";")[0] == "sandbox"
    assert "default-src 'none'" in response["Content-Security-Policy"]
    assert response["X-Content-Type-Options"] == "nosniff"
    assert b"".join(response.streaming_content) == content


@pytest.mark.django_db
def test_a_file_name_given_straight_to_the_service_is_cleaned_too(settings, tmp_path):
    # Callers other than the upload view (seeding, scripts) get no help from Django's parser.
    from sources.services import source_version_upload

    settings.MEDIA_ROOT = tmp_path / "media"
    source = SourceFactory()
    long_stem = "é" * 300

    version, _ = source_version_upload(
        source=source,
        content=b"Words from a script.",
        filename="../../../etc/pass\x00wd\u200b\u202e\r\n.txt",
        actor=None,
    )
    other, _ = source_version_upload(
        source=source, content=b"Other words.", filename=f"C:\\Temp\\{long_stem}.md", actor=None
    )
    nfd, _ = source_version_upload(
        source=source, content=b"Third words.", filename="Cafe\u0301 menu.txt", actor=None
    )

    assert version.original_filename == "passwd.txt"
    assert other.original_filename == "é" * 252 + ".md"
    assert nfd.original_filename == "Caf\u00e9 menu.txt"
    assert file_tree(tmp_path) == {f"media/{v.file.name}" for v in (version, other, nfd)}


def test_the_corpus_files_are_what_their_names_say():
    bomb = sample_files.make_inflation_bomb_pdf(2048)
    once = zlib.decompressobj()
    inner = once.decompress(bomb.split(b"stream\n", 1)[1].rsplit(b"\nendstream", 1)[0])
    twice = zlib.decompressobj()
    assert len(twice.decompress(inner, 64 * MB)) == 64 * MB and twice.unconsumed_tail
    assert len(bomb) < 32 * 1024

    assert b"[" * 100_000 in sample_files.make_deeply_nested_pdf(100_000)
    assert b"/Count 10000" in sample_files.make_many_pages_pdf(10_000)
    assert b"/Kids [2 0 R]" in sample_files.make_circular_page_tree_pdf()
    assert b"/Encrypt" in sample_files.make_encrypted_pdf()
    assert b"startxref\n999999" in sample_files.make_broken_xref_pdf()

    page = sample_files.make_hostile_html()
    for feature in (b"<script", b"<iframe", b"onerror=", b"javascript:", b'http-equiv="refresh"'):
        assert feature in page
    assert b"<script" in sample_files.SVG_SCRIPT_BYTES

    polyglot = sample_files.make_pdf_html_zip_polyglot()
    assert polyglot.startswith(b"%PDF-") and b"<script>" in polyglot[:1024]
    assert zipfile.ZipFile(io.BytesIO(polyglot)).namelist() == ["word/document.xml"]

    bomb = scans.decompression_bomb_png("corpus")
    assert len(bomb) < 200 * 1024
    assert struct.unpack(">II", bomb[16:24]) == (30_000, 30_000)  # IHDR: 900 million pixels
    lying = scans.lying_png("corpus")
    assert struct.unpack(">II", lying[16:24]) == (64, 64)
    assert _inflated_size(_idat(lying)) == 30_000 * (1 + 30_000 // 8)  # 30000 rows of 30000
    for jpeg in (scans.huge_jpeg("corpus"), scans.huge_jpeg("corpus", second=True)):
        frame = jpeg.rindex(b"\xff\xc0")
        assert struct.unpack(">HH", jpeg[frame + 5 : frame + 9]) == (65_000, 65_000)


def _inflated_size(data: bytes) -> int:
    inflater, size = zlib.decompressobj(), 0
    while data:
        size += len(inflater.decompress(data, 8 * MB))
        data = inflater.unconsumed_tail
    return size


def _idat(png: bytes) -> bytes:
    at = png.index(b"IDAT")
    (length,) = struct.unpack(">I", png[at - 4 : at])
    return png[at + 4 : at + 4 + length]


# --------------------------------------------------------------------------------------------
# Hostile images, straight to detection and to the extraction child
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "refusal"),
    [
        (scans.decompression_bomb_png, TOO_MANY_PIXELS_REASON.format(width=30000, height=30000)),
        (scans.huge_jpeg, TOO_MANY_PIXELS_REASON.format(width=65000, height=65000)),
        (
            lambda tag: scans.huge_jpeg(tag, second=True),
            TOO_MANY_PIXELS_REASON.format(width=65000, height=65000),
        ),
        (
            lambda tag: scans.huge_jpeg(tag, 20_001, 10),
            TOO_MANY_PIXELS_REASON.format(width=20001, height=10),
        ),
        (scans.damaged_png, DAMAGED_PNG),
        (lambda tag: scans.damaged_png(tag)[:20], DAMAGED_PNG),
        (lambda tag: sample_files.JPEG_BYTES, "This looks like a JPEG image, but it is damaged"),
        (lambda tag: b"RIFF\x10\x00\x00\x00WEBPVP8 ", "This looks like a WebP image, but it is"),
    ],
    ids=[
        "png-bomb",
        "huge-jpeg",
        "jpeg-huge-second-frame",
        "jpeg-too-wide",
        "png-bad-checksum",
        "png-cut-in-its-header",
        "jpeg-without-frame-header",
        "webp-cut-short",
    ],
)
def test_a_hostile_image_is_refused_from_its_header_alone(build, refusal):
    content = build("detection")
    started = time.monotonic()
    before = peak_memory()

    with pytest.raises(UnsupportedUpload) as refused:
        detect_media_type(content, "image.png")

    assert refused.value.reason.startswith(refusal)
    assert time.monotonic() - started < 1  # nothing was decoded...
    assert peak_memory() - before < 20 * MB  # ...or held


def test_the_pixel_limit_can_be_set_and_its_refusal_names_it():
    content = scans.screenshot(["Small enough?"], tag="pixel limit")  # 1280 × 228

    with pytest.raises(UnsupportedUpload) as refused:
        detect_media_type(content, max_pixels=100_000)

    assert refused.value.params == {"width": 1280, "height": 228, "limit": 100_000, "side": 20_000}
    assert detect_media_type(content, max_pixels=1280 * 228) == PNG


@pytest.mark.parametrize(
    ("build", "media_type", "size"),
    [
        (scans.decompression_bomb_png, PNG, "900,000,000 pixels"),
        (lambda tag: scans.decompression_bomb_png(tag, side=7_000), PNG, "49,000,000 pixels"),
        (lambda tag: scans.huge_jpeg(tag, second=True), JPEG, "4,225,000,000 pixels"),
    ],
    ids=["png-bomb-twice-over-the-limit", "png-just-over-the-limit", "jpeg-huge-second-frame"],
)
def test_an_image_past_detection_is_still_refused_by_pillow_in_the_child(build, media_type, size):
    # As if the header check had been passed by: Pillow, in the child, refuses it before
    # decoding (past the limit it only warns; the child takes the warning as a refusal).
    with pytest.raises(ExtractionFailed) as refused:
        extract_text(build("child"), media_type, memory_limit_mb=512)

    assert refused.value.reason == (
        f"This image was refused: it is {size}, more than the limit of 40,000,000 pixels (20,000 "
        "a side) — possibly a decompression bomb."
    )


def test_a_smaller_pixel_limit_reaches_the_child_too():
    content = scans.screenshot(["Small enough?"], tag="child pixel limit")

    with pytest.raises(ExtractionFailed, match=r"more than the limit of 100,000 pixels"):
        extract_text(content, PNG, max_pixels=100_000)


def test_a_png_whose_data_outgrows_its_header_is_read_only_as_far_as_its_header_says():
    scans.require_tesseract()
    started = time.monotonic()

    with pytest.raises(NoExtractableText, match="OCR found no text in this image"):
        extract_text(scans.lying_png("child"), PNG, memory_limit_mb=256)

    assert time.monotonic() - started < 10


def test_a_damaged_image_fails_in_the_child_with_a_sentence_saying_so():
    content = scans.screenshot(["Cut short."], tag="truncated")

    with pytest.raises(ExtractionFailed) as failed:
        extract_text(content[: len(content) // 2], PNG)

    assert failed.value.reason.startswith("The image could not be read: it is damaged")
