"""Uploading sources in the browser: real multipart uploads through Django's upload handling."""

import lxml.html
import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse

from factcheck.models import AuditEvent
from sources.models import ExtractionStatus, Source, SourceVersion
from sources.services import source_create, source_version_upload
from sources.tasks import extract_source_version
from tests import sample_files
from tests.factories import SourceFactory

pytestmark = pytest.mark.django_db

#: A backend that only records tasks, so a version can be seen waiting.
QUEUED_ONLY = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}

METADATA = {
    "title": "Together Compiler: Continual Compilation for AI Inference",
    "publisher": "Together AI Research",
    "authors": "",
    "url": "",
    "published_on": "2026-11-04",
    "accessed_on": "",
    "role": "primary",
    "notes": "The technical paper.",
}


def upload(name, content, content_type="application/octet-stream"):
    return SimpleUploadedFile(name, content, content_type=content_type)


def create_source(client, file=None, **fields):
    data = METADATA | fields
    if file is not None:
        data["file"] = file
    return client.post(reverse("sources:source_create"), data)


def test_a_text_pdf_upload_makes_a_version_and_extracts_its_pages(editor_client):
    pdf = sample_files.make_text_pdf(["Page one says 2.6 times.", "Page two says 3.7 times."])

    response = create_source(editor_client, upload("paper.pdf", pdf, "application/pdf"))

    assert response.status_code == 302
    version = SourceVersion.objects.get()
    assert version.media_type == "application/pdf"
    assert version.extraction_status == ExtractionStatus.READY
    assert "Page two says 3.7 times." in version.extracted_text
    assert len(version.page_offsets) == 2
    assert version.extracted_text[version.page_offsets[1] :].startswith("Page two")
    assert version.file.name.endswith(f"{version.sha256}.pdf")
    assert version.original_filename == "paper.pdf"


def test_an_html_upload_keeps_title_and_description_as_quotable_text(editor_client):
    response = create_source(editor_client, upload("page.html", sample_files.make_html()))

    assert response.status_code == 302
    version = SourceVersion.objects.get()
    kinds = {section["kind"]: section for section in version.sections}
    title = kinds["title"]
    assert version.extracted_text[title["start"] : title["end"]] == sample_files.HTML_TITLE
    description = kinds["description"]
    assert (
        version.extracted_text[description["start"] : description["end"]]
        == sample_files.HTML_DESCRIPTION
    )
    for fragment in sample_files.HTML_FORBIDDEN_FRAGMENTS:
        assert fragment not in version.extracted_text


def test_pasted_text_becomes_a_version_without_a_file(editor_client):
    response = create_source(editor_client, pasted_text="Pasted words 1,111 tokens per second.")

    assert response.status_code == 302
    version = SourceVersion.objects.get()
    assert version.extracted_text == "Pasted words 1,111 tokens per second."
    assert version.media_type == "text/plain"


@pytest.mark.parametrize(
    "name, content, reason",
    [
        ("empty.pdf", sample_files.EMPTY_BYTES, "empty"),
        ("report.pdf", sample_files.GIF_BYTES, "This looks like a GIF image"),
        ("notes.txt", b"caf\xe9 au lait \xff\xfe", "not valid UTF-8"),
    ],
    ids=["zero-bytes", "gif-named-pdf", "invalid-utf8"],
)
def test_a_refused_upload_names_the_reason_keeps_the_typed_text_and_saves_nothing(
    editor_client, name, content, reason
):
    response = create_source(editor_client, upload(name, content), notes="My careful notes")

    assert response.status_code == 422
    assert reason in response.text
    assert "My careful notes" in response.text
    assert METADATA["title"] in response.text
    assert not Source.objects.exists()
    assert not SourceVersion.objects.exists()
    assert not AuditEvent.objects.exists()


@override_settings(SOURCE_UPLOAD_MAX_BYTES=1000)
def test_a_file_one_byte_over_the_limit_is_refused_before_it_is_read(editor_client):
    response = create_source(editor_client, upload("big.txt", b"a" * 1001))

    assert response.status_code == 422
    assert "over the limit of 1000" in response.text
    assert not Source.objects.exists()


@override_settings(SOURCE_UPLOAD_MAX_BYTES=1000)
def test_a_file_exactly_at_the_limit_is_accepted(editor_client):
    response = create_source(editor_client, upload("big.txt", b"a" * 1000))

    assert response.status_code == 302
    assert SourceVersion.objects.get().byte_size == 1000


def test_an_encrypted_pdf_is_stored_with_a_no_extractable_text_state(editor_client):
    create_source(editor_client, upload("locked.pdf", sample_files.make_encrypted_pdf()))

    version = SourceVersion.objects.get()
    assert version.extraction_status == ExtractionStatus.NO_TEXT
    assert "encrypted" in version.extraction_error
    assert version.extracted_text == ""
    response = editor_client.get(version.source.get_absolute_url())
    assert "No extractable text" in response.text
    assert "encrypted" in response.text


def test_a_truncated_pdf_fails_with_its_reason_shown(editor_client):
    create_source(editor_client, upload("broken.pdf", sample_files.make_truncated_pdf()))

    version = SourceVersion.objects.get()
    assert version.extraction_status in {ExtractionStatus.FAILED, ExtractionStatus.NO_TEXT}
    assert version.extraction_error
    response = editor_client.get(version.source.get_absolute_url())
    assert version.extraction_error in response.text


@override_settings(EXTRACTION_TIME_LIMIT_SECONDS=0.5)
def test_a_pdf_that_runs_past_the_time_limit_fails_and_the_web_process_carries_on(editor_client):
    create_source(editor_client, upload("slow.pdf", sample_files.make_slow_pdf()))

    version = SourceVersion.objects.get()
    assert version.extraction_status == ExtractionStatus.FAILED
    assert "longer than" in version.extraction_error
    assert editor_client.get(reverse("sources:source_list")).status_code == 200


def test_the_same_bytes_again_lead_to_the_existing_version(editor_client):
    source = SourceFactory()
    url = reverse("sources:version_upload", args=[source.pk])
    editor_client.post(url, {"file": upload("a.txt", b"The same words.")})

    response = editor_client.post(
        url, {"file": upload("renamed.txt", b"The same words.")}, follow=True
    )

    assert source.versions.count() == 1
    assert "already the latest version, 1" in response.text


def test_an_earlier_versions_bytes_again_are_a_new_version_that_says_so(editor_client):
    # Changed, then put back: what the source says now is version 1's text again,
    # and its record keeps both steps.
    source = SourceFactory()
    url = reverse("sources:version_upload", args=[source.pk])
    editor_client.post(url, {"file": upload("a.txt", b"Growth was 3 percent.")})
    editor_client.post(url, {"file": upload("b.txt", b"Growth was 4 percent.")})

    response = editor_client.post(
        url, {"file": upload("c.txt", b"Growth was 3 percent.")}, follow=True
    )

    first, _second, third = source.versions.order_by("number")
    assert third.number == 3
    assert third.sha256 == first.sha256
    assert third.file.name == first.file.name  # stored once
    assert source.latest_version == third
    assert third.extracted_text == "Growth was 3 percent."
    assert (
        "Version 3 uploaded: the Versions table below says when its text is ready. "
        "Its bytes are those of version 1" in response.text
    )


def test_uploading_to_an_existing_source_makes_the_next_version(editor_client):
    source = SourceFactory()
    url = reverse("sources:version_upload", args=[source.pk])

    editor_client.post(url, {"file": upload("a.txt", b"First wording.")})
    editor_client.post(url, {"file": upload("b.txt", b"Second wording.")})

    assert list(source.versions.values_list("number", "extracted_text")) == [
        (1, "First wording."),
        (2, "Second wording."),
    ]


def test_a_new_version_upload_without_a_document_is_refused(editor_client):
    source = SourceFactory()

    response = editor_client.post(reverse("sources:version_upload", args=[source.pk]), {})

    assert response.status_code == 422
    assert "Choose a file to upload or paste the text" in response.text
    assert not source.versions.exists()


def test_an_htmx_upload_error_returns_only_the_form(editor_client):
    source = SourceFactory()

    response = editor_client.post(
        reverse("sources:version_upload", args=[source.pk]),
        {"file": upload("x.pdf", sample_files.GIF_BYTES)},
        headers={"HX-Request": "true", "HX-Target": "upload-form"},
    )

    assert response.status_code == 422
    assert response.text.lstrip().startswith('<form id="upload-form"')
    assert "This looks like a GIF image" in response.text


def test_an_htmx_upload_success_redirects_the_whole_page(editor_client):
    source = SourceFactory()

    response = editor_client.post(
        reverse("sources:version_upload", args=[source.pk]),
        {"file": upload("x.txt", b"Some words.")},
        headers={"HX-Request": "true"},
    )

    assert response.status_code == 200
    assert response["HX-Redirect"] == source.get_absolute_url()


def test_a_reviewer_cannot_upload(client, reviewer):
    source = SourceFactory()
    client.force_login(reviewer)

    response = client.post(
        reverse("sources:version_upload", args=[source.pk]), {"file": upload("x.txt", b"Hi.")}
    )

    assert response.status_code == 403
    assert not source.versions.exists()


def test_the_original_is_only_served_as_a_sandboxed_attachment(editor_client):
    create_source(editor_client, upload("page.html", sample_files.make_html()))
    version = SourceVersion.objects.get()

    response = editor_client.get(
        reverse("sources:version_download", args=[version.source_id, version.number])
    )

    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")
    assert response["Content-Type"] == "application/octet-stream"
    assert "sandbox" in response["Content-Security-Policy"]
    assert response["X-Content-Type-Options"] == "nosniff"
    assert b"".join(response.streaming_content) == sample_files.make_html()


def test_the_source_page_polls_while_extracting_and_stops_when_ready(editor_client):
    source = SourceFactory()
    with override_settings(TASKS=QUEUED_ONLY):
        version, _ = source_version_upload(
            source=source, content=b"Waiting words.", filename="w.txt", actor=None
        )
    page = editor_client.get(source.get_absolute_url())
    assert 'hx-trigger="every 2s"' in page.text
    assert "Waiting" in page.text

    extract_source_version.call(version.pk)
    fragment = editor_client.get(
        source.get_absolute_url(), headers={"HX-Request": "true", "HX-Target": "version-panel"}
    )
    assert 'hx-trigger="every 2s"' not in fragment.text
    assert "Waiting words." in fragment.text
    assert fragment.text.lstrip().startswith('<div id="version-panel"')


def test_the_poll_that_finds_the_text_ready_brings_the_quote_finder_too(editor_client):
    source = SourceFactory()
    with override_settings(TASKS=QUEUED_ONLY):
        version, _ = source_version_upload(
            source=source, content=b"Waiting words.", filename="w.txt", actor=None
        )
    poll = {"HX-Request": "true", "HX-Target": "version-panel"}
    page = editor_client.get(source.get_absolute_url())
    assert '<div id="quote-finder">' in page.text
    assert "Quote finder" not in page.text
    assert "Quote finder" not in editor_client.get(source.get_absolute_url(), headers=poll).text

    extract_source_version.call(version.pk)
    fragment = editor_client.get(source.get_absolute_url(), headers=poll)

    assert '<div id="quote-finder" hx-swap-oob="true">' in fragment.text
    assert "Quote finder" in fragment.text
    finder_url = reverse("sources:quote_finder", args=[source.pk, version.number])
    assert f'hx-get="{finder_url}"' in fragment.text


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"Waiting words.", "Version 1: its text is ready to read and quote."),
        (b"%PDF-1.4 not a real PDF", "Version 1: failed. "),
    ],
)
def test_the_poll_that_finds_the_upload_settled_says_how_it_ended(editor_client, content, said):
    # The panel is replaced whole, so its own text is not read out: announce.js reads
    # data-announce to the page's one live region.
    source = SourceFactory()
    with override_settings(TASKS=QUEUED_ONLY):
        version, _ = source_version_upload(
            source=source, content=content, filename="upload", actor=None
        )
    poll = {"HX-Request": "true", "HX-Target": "version-panel"}
    assert "data-announce" not in editor_client.get(source.get_absolute_url(), headers=poll).text

    extract_source_version.call(version.pk)
    last = editor_client.get(source.get_absolute_url(), headers=poll)

    panel = lxml.html.fragment_fromstring(last.text, create_parent="div").get_element_by_id(
        "version-panel"
    )
    assert panel.get("data-announce").startswith(said)
    assert 'role="status"' not in last.text.split("</table>", 1)[0]


def test_a_panel_asked_for_a_source_without_versions_is_answered(editor_client):
    source = SourceFactory()

    response = editor_client.get(
        source.get_absolute_url(), headers={"HX-Request": "true", "HX-Target": "version-panel"}
    )

    assert response.status_code == 200
    assert "Awaiting upload" in response.text


def test_a_poll_that_goes_on_does_not_replace_the_quote_finder(editor_client):
    # The newest version is ready while an older one is still extracting: the
    # page polls on, and a finder swapped in every 2 s would wipe what is typed in it.
    source = SourceFactory()
    with override_settings(TASKS=QUEUED_ONLY):
        older, _ = source_version_upload(
            source=source, content=b"Older words.", filename="1.txt", actor=None
        )
        newer, _ = source_version_upload(
            source=source, content=b"Newer words.", filename="2.txt", actor=None
        )
    extract_source_version.call(newer.pk)
    poll = {"HX-Request": "true", "HX-Target": "version-panel"}

    polling = editor_client.get(source.get_absolute_url(), headers=poll)
    assert 'hx-trigger="every 2s"' in polling.text
    assert "hx-swap-oob" not in polling.text

    extract_source_version.call(older.pk)
    last = editor_client.get(source.get_absolute_url(), headers=poll)
    assert 'hx-trigger="every 2s"' not in last.text
    assert '<div id="quote-finder" hx-swap-oob="true">' in last.text


def test_the_size_message_gives_bytes_when_megabytes_would_read_the_same():
    from sources.services import too_large_message

    limit = 25 * 1024 * 1024

    assert too_large_message(limit + 1, limit) == (
        "The file is 26,214,401 bytes, over the limit of 26,214,400 bytes (25.0\xa0MB)."
    )
    assert too_large_message(30 * 1024 * 1024, limit) == (
        "The file is 30.0\xa0MB, over the limit of 25.0\xa0MB."
    )


def test_a_pasted_text_over_the_form_limit_gets_413_saying_what_to_do(editor_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 20_000

    response = create_source(editor_client, pasted_text="Words of a long article. " * 1000)

    assert response.status_code == 413
    assert response["Content-Type"].startswith("text/plain")
    assert "save it as a file and upload that (up to 25.0" in response.text
    assert not Source.objects.exists()


def test_a_bad_upload_leaves_the_last_readable_version_current_and_says_so(editor_client):
    source = SourceFactory()
    url = reverse("sources:version_upload", args=[source.pk])
    editor_client.post(url, {"file": upload("a.txt", b"The engine ran at 9.0 seconds.")})
    editor_client.post(url, {"file": upload("broken.pdf", sample_files.make_truncated_pdf())})
    readable, broken = source.versions.order_by("number")
    assert broken.extraction_status in {ExtractionStatus.FAILED, ExtractionStatus.NO_TEXT}

    page = editor_client.get(source.get_absolute_url())

    assert source.latest_version == readable
    assert "Version 2 could not be read" in page.text
    assert "Version 1 is still the one read and quoted" in page.text
    assert "The engine ran at 9.0 seconds." in page.text
    # The source is still quoted, from the version that can be read.
    quoted = editor_client.post(
        reverse("sources:quotation_create", args=[source.pk, readable.number]),
        {"start": 4, "end": 10, "selected_text": "engine"},
        headers={"HX-Request": "true"},
    )
    assert quoted.status_code == 200
    assert readable.quotations.get().exact == "engine"


def test_quotations_are_carried_over_from_the_last_readable_version(editor_client):
    source = SourceFactory()
    url = reverse("sources:version_upload", args=[source.pk])
    editor_client.post(url, {"file": upload("a.txt", b"The engine ran at 9.0 seconds.")})
    first = source.versions.get()
    editor_client.post(
        reverse("sources:quotation_create", args=[source.pk, 1]),
        {"start": 4, "end": 10, "selected_text": "engine"},
    )
    editor_client.post(url, {"file": upload("broken.pdf", sample_files.make_truncated_pdf())})
    editor_client.post(url, {"file": upload("c.txt", b"Now the engine ran at 8 seconds.")})

    page = editor_client.get(source.get_absolute_url())

    assert first.quotations.count() == 1
    assert source.latest_version.number == 3
    assert "Quotations carried over from version 1" in page.text


def test_an_empty_file_is_refused_for_being_empty_and_only_that(editor_client):
    response = create_source(editor_client, upload("empty.pdf", sample_files.EMPTY_BYTES))

    assert response.status_code == 422
    assert "The submitted file is empty." in response.text
    assert "Choose a file to upload or paste the text." not in response.text


@pytest.mark.parametrize(
    "dates, field, said",
    [
        ({"published_on": "2026-05-01", "accessed_on": "2026-01-01"}, "accessed", "on or after"),
        ({"published_on": "2099-01-01"}, "published", "is in the future"),
    ],
    ids=["read-before-published", "published-in-the-future"],
)
def test_impossible_source_dates_are_refused_next_to_the_field(editor_client, dates, field, said):
    response = create_source(editor_client, **dates)

    assert response.status_code == 422
    assert said in response.text
    assert not Source.objects.exists()


def test_a_file_chosen_with_a_form_refused_elsewhere_is_said_to_be_dropped(editor_client):
    response = create_source(
        editor_client, upload("notes.txt", b"Some words."), url="javascript:alert(1)"
    )

    assert response.status_code == 422
    assert "The file “notes.txt” was not kept" in response.text
    assert not Source.objects.exists()


def test_a_page_shown_after_the_text_was_read_does_not_say_it_is_being_read(editor_client):
    # The worker can finish before the page after the upload is shown: it has no poll then.
    source = SourceFactory()

    page = editor_client.post(
        reverse("sources:version_upload", args=[source.pk]),
        {"file": upload("upload", b"Quick words.")},
        follow=True,
    )

    assert source.latest_version.is_ready
    assert "Version 1 uploaded: the Versions table below says when its text is ready." in page.text
    assert "extracting" not in lxml.html.fromstring(page.text).text_content().lower()


# Registering a source with its first document, without a request: one service.


@override_settings(TASKS=QUEUED_ONLY)
def test_a_source_registered_with_its_bytes_gets_its_first_version_with_it(editor):
    source = source_create(
        actor=editor,
        title="The paper",
        role="primary",
        content=b"The compiler reached 1,111 tokens per second.",
        filename="paper.txt",
    )

    (version,) = source.versions.all()
    assert (version.number, version.original_filename) == (1, "paper.txt")
    assert {"source.create", "sourceversion.create"} <= set(
        AuditEvent.objects.values_list("action", flat=True)
    )


def test_a_source_whose_bytes_are_refused_is_not_registered(editor):
    with pytest.raises(ValidationError):
        source_create(
            actor=editor, title="The paper", role="primary", content=b"", filename="empty.txt"
        )

    assert not Source.objects.exists()
    assert not AuditEvent.objects.filter(action="source.create").exists()
