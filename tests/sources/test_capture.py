"""
Sources captured by their web address (issue 39): fetched from a real HTTP server on
127.0.0.1 through the forgery guard, kept as versions with their fetch record and WARC,
fetched again with the quotations carried over, and shown as archived pages.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import lxml.html
import pytest
from django.conf import settings as django_settings
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from warcio.archiveiterator import ArchiveIterator

from factcheck.exceptions import NotAllowed
from factcheck.models import AuditEvent
from sources.capture import (
    ADDRESS_KINDS,
    fetch_refusal,
    source_capture,
    source_fetch_again,
    version_capture,
    warc_record,
)
from sources.fetching import UNSAFE_NETWORKS, UnsafeURL, fetch
from sources.models import AnchoringStatus, ExtractionStatus, Reanchoring, Source, SourceVersion
from sources.services import _store_version, find_span, source_version_upload
from sources.views import ARCHIVE_POLICY
from tests import sample_files
from tests.factories import EditorFactory, SourceVersionFactory, UserFactory
from tests.loopback import LoopbackServer, Reply, chunked, never_answering

pytestmark = pytest.mark.django_db

KEPT = "Budget documents published in March show the increase was 4 percent"
REWORDED = "spending on libraries rose by 12 percent in 2024"
REWORDING = "spending on libraries rose by 11 percent in 2024"
LIBRARIES = (
    "The council said on Monday that {spending}, a figure repeated by several officials "
    "during the public meeting."
)
BUDGET = (
    f"{KEPT} once the one-off building grant, which was announced in the previous year, "
    "is taken out of the total."
)
SPOKESPERSON = (
    "A spokesperson confirmed the difference and said the council would update its website "
    "to explain how the headline number had been calculated."
)


@pytest.fixture
def server():
    with LoopbackServer() as server:
        yield server


def article(name, *paragraphs):
    """An article page whose bytes are this test's own (``name`` is in its title)."""
    return sample_files.make_html(
        title=f"Council budget ({name})", paragraphs=list(paragraphs), hostile=True
    )


def flat(text):
    """Text with every run of white space (no-break spaces included) as one space."""
    return " ".join(text.split())


def said(response):
    return flat(lxml.html.fromstring(response.content).text_content())


def typed_url(response):
    """What the form's address field holds in the page sent back."""
    [value] = lxml.html.fromstring(response.content).xpath("//input[@name='capture-url']/@value")
    return value


def stored_files():
    root = Path(django_settings.MEDIA_ROOT)
    return {path for path in root.rglob("*") if path.is_file()}


def warc_records(data):
    return {
        record.rec_type: (record, record.raw_stream.read())
        for record in ArchiveIterator(io.BytesIO(data))
    }


def capture_new_source(client, url, *, title="", role="primary", htmx=False):
    headers = {"HX-Request": "true"} if htmx else {}
    return client.post(
        reverse("sources:source_capture"),
        {"capture-url": url, "capture-title": title, "capture-role": role},
        headers=headers,
    )


def quote(client, version, exact):
    start, end = find_span(version.extracted_text, exact)
    response = client.post(
        reverse("sources:quotation_create", args=[version.source_id, version.number]),
        {"start": start, "end": end, "selected_text": exact},
    )
    assert response.status_code == 302


# --- capture, fetch again, re-anchoring -------------------------------------------------


def test_a_page_captured_edited_and_fetched_again_carries_its_quotations_over(
    editor_client, editor, server
):
    server.redirect("/go/budget", "/budget", status=301)
    first_page = article(
        "capture and fetch again",
        LIBRARIES.format(spending=REWORDED),
        BUDGET,
        SPOKESPERSON,
    )
    server.page("/budget", first_page, headers=[("X-Served-By", "loopback")])
    before = timezone.now()

    response = capture_new_source(editor_client, server.url("/go/budget"))

    assert response.status_code == 302
    source = Source.objects.get()
    assert response["Location"] == source.get_absolute_url()
    first = source.versions.get()
    # Where and when it was fetched, as fixed as its bytes.
    assert first.requested_url == server.url("/go/budget")
    assert first.final_url == server.url("/budget")
    assert first.http_status == 200
    assert ["X-Served-By", "loopback"] in first.response_headers
    assert ["Content-Type", "text/html; charset=utf-8"] in first.response_headers
    assert before <= first.fetched_at <= timezone.now()
    assert first.captured
    assert first.media_type == "text/html"
    assert first.file.read() == first_page
    assert first.uploaded_by == editor
    assert first.extraction_status == ExtractionStatus.READY
    assert KEPT in first.extracted_text
    assert source.url == server.url("/go/budget")
    assert source.accessed_on == timezone.localdate()
    assert source.title == "127.0.0.1/go/budget"
    # The exchange as a WARC file, read back by warcio as it was received.
    records = warc_records(first.warc.read())
    assert set(records) == {"warcinfo", "request", "response"}
    response_record, payload = records["response"]
    assert response_record.rec_headers.get_header("WARC-Target-URI") == server.url("/budget")
    assert response_record.http_headers.get_statuscode() == "200"
    assert response_record.http_headers.get_header("X-Served-By") == "loopback"
    assert payload == first_page
    request_record, _ = records["request"]
    assert request_record.http_headers.protocol == "GET"
    assert request_record.http_headers.statusline == "/budget HTTP/1.1"
    _info, fields = records["warcinfo"]
    assert f"requested-url: {server.url('/go/budget')}".encode() in fields

    quote(editor_client, first, KEPT)
    quote(editor_client, first, REWORDED)
    # Edited: a figure reworded, and the spokesperson's paragraph moved to the top.
    server.page(
        "/budget",
        article(
            "capture and fetch again",
            SPOKESPERSON,
            LIBRARIES.format(spending=REWORDING),
            BUDGET,
        ),
    )

    response = editor_client.post(
        reverse("sources:version_fetch_again", args=[source.pk]), follow=True
    )

    assert (
        "Version 2 fetched: the page changed since version 1; its quotations are carried "
        "over once its text is read."
    ) in said(response)
    second = source.versions.get(number=2)
    assert second.requested_url == server.url("/go/budget")
    assert second.is_ready
    outcome = {
        reanchoring.quotation.exact: reanchoring
        for reanchoring in Reanchoring.objects.filter(version=second).select_related(
            "quotation", "new_quotation"
        )
    }
    assert outcome[KEPT].status in {AnchoringStatus.UNCHANGED, AnchoringStatus.MOVED}
    assert outcome[KEPT].new_quotation.exact == KEPT
    assert outcome[REWORDED].status == AnchoringStatus.CHANGED
    assert outcome[REWORDED].new_quotation.exact == REWORDING
    assert outcome[REWORDED].needs_confirmation

    response = editor_client.post(
        reverse("sources:version_fetch_again", args=[source.pk]), follow=True
    )

    assert source.versions.count() == 2
    fetched = date_format(timezone.localtime(second.fetched_at), "DATETIME_FORMAT")
    assert f"Unchanged since version 2 (fetched {fetched}): no new version." in said(response)
    check = AuditEvent.objects.get(action="sourceversion.capture_unchanged")
    assert check.target_id == str(second.pk)
    assert check.changes["final_url"] == server.url("/budget")
    assert [path for path, _headers in server.seen] == ["/go/budget", "/budget"] * 3


def test_the_versions_table_says_where_and_when_a_version_was_fetched(
    editor_client, editor, server
):
    server.redirect("/old-address", "/statement")
    server.page("/statement", article("versions table", BUDGET))
    source = source_capture(actor=editor, url=server.url("/old-address"), title="Statement")
    version = source.versions.get()

    page = editor_client.get(source.get_absolute_url())

    tree = lxml.html.fromstring(page.content)
    [row] = tree.xpath("//tr[@id='version-1']")
    text = flat(row.text_content())
    assert "HTTP status 200" in text
    assert f"From {server.url('/statement')}" in text
    assert f"Redirected from {server.url('/old-address')}" in text
    links = {link.text_content().strip(): link.get("href") for link in row.iter("a")}
    assert links["Archived page"] == reverse("sources:version_archive", args=[source.pk, 1])
    assert links["WARC record"] == reverse("sources:version_warc", args=[source.pk, 1])
    assert links[server.url("/statement")] == version.final_url
    # A captured source can be fetched again, from the address its latest capture asked for.
    [form] = tree.xpath("//form[@id='fetch-again']")
    assert form.get("action") == reverse("sources:version_fetch_again", args=[source.pk])
    assert form.get("hx-indicator") == "#fetch-again-progress"
    assert server.url("/old-address") in flat(form.text_content())


def test_an_address_the_fetch_only_tidied_is_not_said_to_be_redirected(
    editor_client, editor, server
):
    server.page("/council%20budget", article("tidied address", BUDGET))
    source = SourceVersionFactory(text="Uploaded before the page was fetched.").source
    typed = server.url("/council budget#figures").replace("http://", "HTTP://")

    version, created = version_capture(source=source, url=typed, actor=editor)

    assert created
    assert version.requested_url == typed
    assert version.final_url == server.url("/council%20budget")
    page = said(editor_client.get(source.get_absolute_url()))
    assert f"From {version.final_url}" in page
    assert "Redirected from" not in page
    archive = said(editor_client.get(archive_urls(version)["version_archive"]))
    assert "redirected there" not in archive


def test_an_uploaded_source_offers_a_version_from_an_address_but_no_fetch_again(editor_client):
    version = SourceVersionFactory(text="An uploaded text for the capture form test.")

    page = editor_client.get(version.source.get_absolute_url())

    tree = lxml.html.fromstring(page.content)
    assert not tree.xpath("//form[@id='fetch-again']")
    [form] = tree.xpath("//form[@id='capture-form']")
    assert form.get("action") == reverse("sources:version_capture", args=[version.source_id])
    assert "Archived page" not in page.text


def test_a_page_fetched_as_a_new_version_of_an_uploaded_source(editor_client, server):
    version = SourceVersionFactory(text=f"{BUDGET}\n{SPOKESPERSON}")
    quote(editor_client, version, KEPT)
    server.page("/now", article("new version of an upload", BUDGET, SPOKESPERSON))

    response = editor_client.post(
        reverse("sources:version_capture", args=[version.source_id]),
        {"capture-url": server.url("/now")},
        follow=True,
    )

    second = version.source.versions.get(number=2)
    assert second.final_url == server.url("/now")
    assert "Version 2 fetched: the page changed since version 1" in said(response)
    [carried] = Reanchoring.objects.filter(version=second)
    assert carried.new_quotation.exact == KEPT


def test_the_same_bytes_as_an_uploaded_latest_version_make_no_new_version(editor, server):
    page = article("same bytes as the upload", BUDGET)
    source = Source.objects.create(title="Uploaded first")
    uploaded, _ = source_version_upload(
        source=source, content=page, filename="page.html", actor=editor
    )
    server.page("/same", page)

    version, created = version_capture(source=source, url=server.url("/same"), actor=editor)

    assert (version, created) == (uploaded, False)
    assert source.versions.count() == 1
    check = AuditEvent.objects.get(action="sourceversion.capture_unchanged")
    assert check.changes["sha256"] == uploaded.sha256
    assert check.actor == editor


def test_fetching_again_a_source_never_captured_is_refused(editor):
    version = SourceVersionFactory(text="Never captured: fetched again by nobody.")

    with pytest.raises(ValidationError) as refused:
        source_fetch_again(source=version.source, actor=editor)

    assert refused.value.code == "not_captured"


def test_a_page_that_fails_when_fetched_again_says_why_and_adds_nothing(editor_client, server):
    server.page("/gone-later", article("fails when fetched again", BUDGET))
    capture_new_source(editor_client, server.url("/gone-later"), title="Soon gone")
    source = Source.objects.get()
    server.reply("/gone-later", Reply(410, b"Gone"))

    response = editor_client.post(
        reverse("sources:version_fetch_again", args=[source.pk]), headers={"HX-Request": "true"}
    )

    assert response.status_code == 422
    tree = lxml.html.fromstring(response.content)
    assert tree.get("id") == "fetch-again"
    assert (
        "The server answered with HTTP status 410 instead of the page, so nothing was stored."
        in flat(tree.xpath("//*[@role='alert']")[0].text_content())
    )
    assert source.versions.count() == 1


def test_a_source_captured_without_a_title_is_named_after_its_address(editor, server):
    server.page("/news/council-budget/", article("named after its address", BUDGET))

    source = source_capture(
        actor=editor, url=server.url("/news/council-budget/"), role=Source.Role.SECONDARY
    )

    assert source.title == "127.0.0.1/news/council-budget"
    assert source.role == Source.Role.SECONDARY
    assert source.url == server.url("/news/council-budget/")
    assert source.accessed_on == timezone.localdate()
    assert list(AuditEvent.objects.values_list("action", flat=True).order_by("pk")) == [
        "source.create",
        "sourceversion.create",
        "sourceversion.capture",
        "sourceversion.extraction_ready",
    ]


def test_a_title_made_from_an_address_keeps_no_invisible_character():
    from sources.capture import title_from_url

    title = title_from_url("https://example.com/a%00b%E2%80%AEtxt.exe%0A")

    assert title == "example.com/abtxt.exe"


def test_the_new_source_form_says_a_source_without_a_title_is_named_after_its_address(
    editor_client, server
):
    server.page("/untitled", article("untitled from the form", BUDGET))

    response = capture_new_source(editor_client, server.url("/untitled"), htmx=True)

    source = Source.objects.get()
    assert response.status_code == 200
    assert response["HX-Redirect"] == source.get_absolute_url()
    page = editor_client.get(source.get_absolute_url())
    assert "It was given no title, so it is named after its address." in said(page)


def test_metadata_that_cannot_be_saved_is_refused_before_anything_is_fetched(editor, server):
    with pytest.raises(ValidationError) as refused:
        source_capture(actor=editor, url=server.url("/page"), title="x" * 501)

    assert "title" in refused.value.message_dict
    assert server.seen == []
    assert not Source.objects.exists()


@pytest.mark.parametrize(
    "capture",
    [
        lambda user, server, source: source_capture(actor=user, url=server.url("/p")),
        lambda user, server, source: version_capture(
            source=source, url=server.url("/p"), actor=user
        ),
        lambda user, server, source: source_fetch_again(source=source, actor=user),
    ],
    ids=["new source", "new version", "fetch again"],
)
def test_only_an_editor_may_capture_and_nothing_is_fetched_for_anyone_else(
    reviewer, server, capture
):
    source = SourceVersionFactory(text="A source a reviewer may not add to.").source

    with pytest.raises(NotAllowed):
        capture(reviewer, server, source)

    assert server.seen == []
    assert Source.objects.count() == 1


def test_a_reviewer_is_refused_the_forms_and_nothing_is_fetched(client, reviewer, server):
    client.force_login(reviewer)
    source = SourceVersionFactory(text="A source for the reviewer's refusal.").source

    answers = [
        capture_new_source(client, server.url("/p")).status_code,
        client.post(
            reverse("sources:version_capture", args=[source.pk]), {"capture-url": server.url()}
        ).status_code,
        client.post(reverse("sources:version_fetch_again", args=[source.pk])).status_code,
    ]

    assert answers == [403, 403, 403]
    assert server.seen == []


# --- the guard, through the form ------------------------------------------------------------


def refused_case(name, prepare, sentence):
    return pytest.param(prepare, sentence, id=name)


GUARD_REFUSALS = [
    refused_case(
        "private address",
        lambda server, settings: "http://10.0.0.1/",
        "10.0.0.1 is a private network address: only public web addresses are fetched.",
    ),
    refused_case(
        "cloud metadata",
        lambda server, settings: "http://169.254.169.254/latest/meta-data/",
        "169.254.169.254 is a cloud metadata address: only public web addresses are fetched.",
    ),
    refused_case(
        "IPv6 loopback",
        lambda server, settings: "http://[::1]/",
        "::1 is a loopback address (the server itself): only public web addresses are fetched.",
    ),
    refused_case(
        "ftp",
        lambda server, settings: "ftp://example.org/budget.txt",
        "Only http and https addresses can be fetched.",
    ),
    refused_case(
        "redirect to a private address",
        lambda server, settings: (
            server.redirect("/leave", "http://10.0.0.1/admin") or server.url("/leave")
        ),
        "10.0.0.1 is a private network address: only public web addresses are fetched.",
    ),
    refused_case(
        "404",
        lambda server, settings: server.url("/no-such-page"),
        "The server answered with HTTP status 404 instead of the page, so nothing was stored.",
    ),
    refused_case(
        "body over the cap",
        lambda server, settings: (
            setattr(settings, "SOURCE_UPLOAD_MAX_BYTES", 1000)
            or server.page("/long", b"<p>" + b"long " * 1000 + b"</p>")
            or server.url("/long")
        ),
        "The page is larger than 1000 bytes, the most a source may be.",
    ),
    refused_case(
        "gif",
        lambda server, settings: (
            server.page("/photo", sample_files.GIF_BYTES, content_type="image/gif")
            or server.url("/photo")
        ),
        "The page was fetched but cannot be kept as a source: This looks like a GIF image",
    ),
    refused_case(
        "zip",
        lambda server, settings: (
            server.page("/archive", sample_files.ZIP_BYTES, content_type="application/zip")
            or server.url("/archive")
        ),
        "The page was fetched but cannot be kept as a source: This looks like a ZIP archive",
    ),
    refused_case(
        "never answers",
        lambda server, settings: (
            setattr(settings, "URL_FETCH_TIMEOUT_SECONDS", 0.5)
            or server.handle("/silent", never_answering(server))
            or server.url("/silent")
        ),
        "The fetch took longer than 0.5 seconds.",
    ),
]


@pytest.mark.parametrize(("prepare", "sentence"), GUARD_REFUSALS)
def test_a_refused_address_says_why_keeps_the_typed_address_and_stores_nothing(
    editor_client, server, settings, prepare, sentence
):
    url = prepare(server, settings)
    files = stored_files()

    response = capture_new_source(editor_client, url, title="Typed title")

    assert response.status_code == 422
    [error] = lxml.html.fromstring(response.content).xpath("//*[@id='id_capture-url_error']")
    assert error.get("role") == "alert"
    assert sentence in flat(error.text_content())
    assert typed_url(response) == url
    assert "Typed title" in response.text
    assert not Source.objects.exists()
    assert not SourceVersion.objects.exists()
    assert not AuditEvent.objects.exists()
    assert stored_files() == files


@pytest.mark.parametrize(("prepare", "sentence"), GUARD_REFUSALS[:1] + GUARD_REFUSALS[4:6])
def test_a_refused_address_for_a_new_version_answers_the_form_alone_with_its_reason(
    editor_client, server, settings, prepare, sentence
):
    version = SourceVersionFactory(text="A source whose next version is refused.")
    url = prepare(server, settings)
    files = stored_files()

    response = editor_client.post(
        reverse("sources:version_capture", args=[version.source_id]),
        {"capture-url": url},
        headers={"HX-Request": "true"},
    )

    assert response.status_code == 422
    tree = lxml.html.fromstring(response.content)
    assert tree.get("id") == "capture-form"
    assert sentence in flat(tree.xpath("//*[@id='id_capture-url_error']")[0].text_content())
    assert typed_url(response) == url
    assert version.source.versions.count() == 1
    assert stored_files() == files


def test_a_refusal_without_htmx_shows_the_whole_page_with_the_typed_address(editor_client, server):
    response = capture_new_source(editor_client, "http://10.0.0.1/budget", title="Kept title")

    assert response.status_code == 422
    tree = lxml.html.fromstring(response.content)
    assert tree.xpath("//h1")[0].text_content().strip() == "New source"
    # The other form of the page is there too, empty.
    assert tree.xpath("//form[@id='source-form']")
    assert typed_url(response) == "http://10.0.0.1/budget"


def test_a_name_that_leads_to_a_refused_address_is_named_with_the_address():
    error = UnsafeURL(
        "%(host)s is a %(kind)s address (%(address)s): it is not fetched.",
        host="intranet.example",
        kind="private",
        address="10.0.0.1",
    )

    refusal = fetch_refusal(error)

    assert refusal.code == "unsafe_url"
    assert refusal.messages == [
        "intranet.example leads to a private network address (10.0.0.1): only public web "
        "addresses are fetched."
    ]


@pytest.mark.parametrize(
    ("path", "media_type"),
    [("/notes.md", "text/markdown"), ("/notes.txt", "text/plain")],
)
def test_the_last_part_of_the_address_chooses_only_between_text_and_markdown(
    editor, server, path, media_type
):
    server.page(
        path,
        f"# Notes on {path}\n\nThe council's *own* figure.\n".encode(),
        content_type="text/html",  # what the server says does not decide
    )

    source = source_capture(actor=editor, url=server.url(path))

    assert source.versions.get().media_type == media_type


def test_every_kind_of_refused_address_has_a_phrase_of_its_own():
    kinds = {kind for _network, kind in UNSAFE_NETWORKS} | {"non-public", "cloud metadata"}

    assert kinds <= set(ADDRESS_KINDS)


# --- the WARC record ------------------------------------------------------------------------


def test_the_warc_record_of_a_chunked_answer_keeps_the_body_as_received(server):
    parts = [b"<html><body><p>First chunk of the page, ", b"and its second chunk.</p>"]
    server.handle(
        "/chunked",
        lambda request: chunked(request, parts, content_type="text/html; charset=utf-8"),
    )
    result = fetch(
        server.url("/chunked"), max_bytes=10_000, timeout=5, allowed_addresses=["127.0.0.1/32"]
    )

    data = warc_record(result, requested_url=server.url("/chunked"))

    records = warc_records(data)
    record, payload = records["response"]
    assert payload == b"".join(parts) == result.body
    assert record.http_headers.get_statuscode() == "200"
    # Everything the server said but the framing http.client took apart.
    assert record.http_headers.headers == [
        (name, value) for name, value in result.headers if name != "Transfer-Encoding"
    ]
    assert ("Transfer-Encoding", "chunked") in result.headers
    assert record.rec_headers.get_header("WARC-Target-URI") == server.url("/chunked")
    assert record.rec_headers.get_header("WARC-Date").startswith(
        result.fetched_at.strftime("%Y-%m-%dT%H:%M:%S")
    )
    assert data[:2] == b"\x1f\x8b"  # gzipped


# --- the archived page ------------------------------------------------------------------------


@pytest.fixture
def captured(editor, server):
    """A captured HTML version whose response declared a charset."""
    page = sample_files.make_html(
        title="Archived page (café)",
        paragraphs=[BUDGET, "<script>document.title = 'ran'</script>Its script never runs."],
        charset="iso-8859-1",
    )
    server.page("/archived", page, content_type="text/html; charset=ISO-8859-1")
    source = source_capture(actor=editor, url=server.url("/archived"), title="Archived")
    return source.versions.get()


def archive_urls(version):
    args = [version.source_id, version.number]
    return {
        name: reverse(f"sources:{name}", args=args)
        for name in ("version_archive", "version_archive_raw", "version_warc")
    }


def test_the_archived_page_is_served_sandboxed_in_its_declared_charset(editor_client, captured):
    response = editor_client.get(archive_urls(captured)["version_archive_raw"])

    assert response.status_code == 200
    assert b"".join(response.streaming_content) == captured.file.open("rb").read()
    assert response["Content-Type"] == "text/html; charset=ISO-8859-1"
    assert response["Content-Security-Policy"] == ARCHIVE_POLICY
    assert ARCHIVE_POLICY.startswith(
        "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:;"
    )
    assert "frame-ancestors 'self'" in ARCHIVE_POLICY
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "no-referrer"
    assert response["X-Frame-Options"] == "SAMEORIGIN"
    assert "Content-Security-Policy-Report-Only" not in response


def test_a_charset_python_does_not_know_is_not_passed_on(editor, editor_client, server):
    server.page(
        "/odd-charset",
        article("odd charset", BUDGET),
        content_type='text/html; charset="x><script>"',
    )
    source = source_capture(actor=editor, url=server.url("/odd-charset"))

    response = editor_client.get(archive_urls(source.versions.get())["version_archive_raw"])

    assert response["Content-Type"] == "text/html"


def test_the_archive_page_frames_the_stored_page_and_says_where_it_came_from(
    editor_client, captured
):
    urls = archive_urls(captured)

    response = editor_client.get(urls["version_archive"])

    assert response.status_code == 200
    tree = lxml.html.fromstring(response.content)
    [frame] = tree.xpath("//iframe")
    assert frame.get("sandbox") == ""
    assert frame.get("src") == urls["version_archive_raw"]
    assert frame.get("referrerpolicy") == "no-referrer"
    text = flat(tree.text_content())
    assert f"Archived copy of {captured.final_url}, fetched" in text
    assert "HTTP status 200." in text
    assert tree.xpath(f"//a[@href='{urls['version_warc']}']")
    # Our own page keeps the site's policy: it may frame only our own addresses.
    assert "frame-src" not in response["Content-Security-Policy"]
    assert "default-src 'self'" in response["Content-Security-Policy"]
    assert response["X-Frame-Options"] == "DENY"


def test_the_warc_record_downloads_as_an_attachment(editor_client, captured):
    response = editor_client.get(archive_urls(captured)["version_warc"])

    assert response.status_code == 200
    assert response["Content-Type"] == "application/warc"
    assert response["Content-Disposition"] == 'attachment; filename="archived-v1.warc.gz"'
    data = b"".join(response.streaming_content)
    assert data == captured.warc.open("rb").read()
    _record, payload = warc_records(data)["response"]
    assert payload == captured.file.open("rb").read()


def test_who_may_open_the_archived_page(client, reviewer, captured):
    nobody = UserFactory(username="no-role")
    answers = {}
    for who, user in (("anonymous", None), ("nobody", nobody), ("reviewer", reviewer)):
        visitor = Client()
        if user is not None:
            visitor.force_login(user)
        answers[who] = [visitor.get(url).status_code for url in archive_urls(captured).values()]

    assert answers == {"anonymous": [302] * 3, "nobody": [403] * 3, "reviewer": [200] * 3}


def test_a_version_that_was_uploaded_has_no_archived_page(editor_client):
    version = SourceVersionFactory(text="Uploaded, never fetched: no archived page.")

    answers = [editor_client.get(url).status_code for url in archive_urls(version).values()]

    assert answers == [404, 404, 404]


def test_a_pdf_captured_by_address_is_read_as_a_pdf_and_archived_as_its_file(
    editor_client, editor, server
):
    pdf = sample_files.make_text_pdf(
        ["A PDF captured by address says 2.6 times.", "Its second page says 3.7 times."]
    )
    server.page("/report.pdf", pdf, content_type="application/pdf")

    source = source_capture(actor=editor, url=server.url("/report.pdf"), title="Report")

    version = source.versions.get()
    assert version.media_type == "application/pdf"
    assert version.extraction_status == ExtractionStatus.READY
    assert len(version.page_offsets) == 2
    assert "Its second page says 3.7 times." in version.extracted_text
    urls = archive_urls(version)
    page = editor_client.get(urls["version_archive"])
    assert not lxml.html.fromstring(page.content).xpath("//iframe")
    assert "its archived copy is the file itself" in said(page)
    assert editor_client.get(urls["version_archive_raw"]).status_code == 404
    # A quotation of it is on a page, and the source page links to it drawn there.
    quote(editor_client, version, "Its second page says 3.7 times.")
    quotation = version.quotations.get()
    assert quotation.page == 2
    tree = lxml.html.fromstring(editor_client.get(source.get_absolute_url()).content)
    [link] = tree.xpath(f"//li[@id='quotation-{quotation.pk}']//a[text()='See it on the page']")
    assert link.get("href") == reverse("sources:quotation_page", args=[source.pk, quotation.pk])


def test_a_quotation_without_a_page_has_no_link_to_one(editor_client):
    version = SourceVersionFactory(text="Plain text has no pages to see a quotation on.")
    quote(editor_client, version, "no pages")

    page = editor_client.get(version.source.get_absolute_url())

    assert version.quotations.get().page is None
    assert "See it on the page" not in page.text


def test_a_version_read_by_ocr_says_so_with_its_confidence(editor_client):
    source = Source.objects.create(title="A scan read by OCR")
    # As extraction leaves a scan it read (sources.tasks), without running Tesseract here.
    _store_version(
        source=source,
        content=b"The bytes of a scan, unique to the OCR label test.",
        media_type="image/png",
        filename="scan.png",
        actor=None,
        extracted_text="The scanned letter says 4 percent.",
        extraction_status=ExtractionStatus.READY,
        extracted_at=timezone.now(),
        ocr_confidence=87.4,
    )

    page = editor_client.get(source.get_absolute_url())

    [row] = lxml.html.fromstring(page.content).xpath("//tr[@id='version-1']")
    assert "read by OCR, confidence 87 %" in flat(row.text_content())


# --- in a browser ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def chromium():
    # Imported here so that without Chromium only this test is skipped (or fails in CI).
    from tests.browser import support as helpers

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with helpers.sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=helpers.CHROMIUM, args=helpers.CHROMIUM_ARGS, headless=True
        )
        yield browser
        browser.close()


@pytest.mark.django_db(transaction=True)
def test_in_chromium_the_archived_page_shows_in_its_frame_and_runs_and_loads_nothing(
    chromium, live_server, server
):
    from tests.migrated_rows import restore_data_migrations

    restore_data_migrations()
    editor = EditorFactory(username="archive-browser-editor")
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>Archived in a browser</title>"
        f"<link rel='stylesheet' href='{server.url('/style.css')}'></head><body>"
        "<p id='text'>The archived words are shown.</p>"
        "<script>document.getElementById('text').textContent = 'A script ran.';</script>"
        f"<img src='{server.url('/pixel.png')}' alt='a tracking pixel'>"
        "</body></html>"
    ).encode()
    server.page("/in-a-browser", page)
    source = source_capture(actor=editor, url=server.url("/in-a-browser"), title="Browser")
    version = source.versions.get()
    client = Client()
    client.force_login(editor)
    cookie = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    context = chromium.new_context()
    context.add_cookies(
        [{"name": django_settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}]
    )
    tab = context.new_page()
    requests_before = len(server.seen)

    tab.goto(live_server.url + archive_urls(version)["version_archive"], wait_until="load")
    frame = tab.frame_locator("iframe.archive-frame")

    assert frame.locator("#text").text_content(timeout=10_000) == "The archived words are shown."
    tab.wait_for_timeout(300)
    assert len(server.seen) == requests_before  # neither the style sheet nor the pixel
    context.close()


def test_the_admin_shows_a_captured_versions_fetch_record_read_only(client, captured):
    client.force_login(UserFactory(username="admin-root", is_staff=True, is_superuser=True))

    response = client.get(reverse("admin:sources_sourceversion_change", args=[captured.pk]))

    assert response.status_code == 200
    text = said(response)
    assert f"Final URL: {captured.final_url}" in text
    assert "HTTP status: 200" in text
    tree = lxml.html.fromstring(response.content)
    assert not tree.xpath("//input[@name='final_url'] | //input[@name='requested_url']")
