"""``manage.py add_source``: scripted ingestion of files and pages, through the app's services."""

import json
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from factcheck.models import AuditEvent
from sources.models import ExtractionStatus, Source, SourceVersion
from sources.services import check_upload
from tests import sample_files
from tests.factories import CaseFactory, EditorFactory, ReviewerFactory, SourceVersionFactory
from tests.loopback import LoopbackServer, Reply

pytestmark = pytest.mark.django_db

#: A backend that only records tasks, so a version can be seen waiting for the worker.
QUEUED_ONLY = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}

TEXT = b"The council said the budget grew by 4% in 2024.\n"


def add_source(*args):
    """Run the command; what it printed, without the final newline."""
    out, err = StringIO(), StringIO()
    call_command("add_source", *map(str, args), stdout=out, stderr=err)
    assert err.getvalue() == ""
    return out.getvalue().rstrip("\n")


def write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    return path


@override_settings(TASKS=QUEUED_ONLY)
def test_a_text_file_becomes_a_new_source_whose_first_version_waits_for_the_worker(tmp_path):
    path = write(tmp_path, "statement.txt", TEXT)

    printed = add_source(
        path,
        "--title",
        "Council statement",
        "--publisher",
        "City Hall",
        "--url",
        "https://example.org/s",
    )

    source = Source.objects.get()
    version = source.versions.get()
    assert printed == f"version {version.pk} of source {source.pk} (1): pending"
    assert (source.title, source.publisher, source.url) == (
        "Council statement",
        "City Hall",
        "https://example.org/s",
    )
    assert source.role == Source.Role.PRIMARY
    assert version.number == 1
    assert version.extraction_status == ExtractionStatus.PENDING
    assert version.media_type == "text/plain"
    assert version.original_filename == "statement.txt"
    assert version.file.read() == TEXT
    assert version.uploaded_by is None
    assert set(AuditEvent.objects.values_list("action", "actor")) == {
        ("source.create", None),
        ("sourceversion.create", None),
    }


def test_the_printed_status_is_the_current_one_once_the_worker_has_read_the_file(tmp_path):
    # Text of its own: the upload tests store the same sample's bytes and expect its file name free.
    pdf = sample_files.make_text_pdf(["A script's page: 2.6 times.", "Its page two: 3.7 times."])
    path = write(tmp_path, "paper.pdf", pdf)

    printed = add_source(path, "--title", "Paper", "--role", "under_check")

    version = SourceVersion.objects.get()
    assert printed == f"version {version.pk} of source {version.source_id} (1): ready"
    assert version.media_type == "application/pdf"
    assert "Its page two: 3.7 times." in version.extracted_text
    assert version.source.role == Source.Role.UNDER_CHECK


@override_settings(TASKS=QUEUED_ONLY)
def test_json_output_is_one_object_naming_the_new_version(tmp_path):
    path = write(tmp_path, "page.html", sample_files.make_html())

    said = json.loads(add_source(path, "--title", "Budget page", "--json"))

    version = SourceVersion.objects.get()
    assert said == {
        "source": version.source_id,
        "version": version.pk,
        "number": 1,
        "status": "pending",
        "created": True,
    }
    assert version.media_type == "text/html"


@override_settings(TASKS=QUEUED_ONLY)
def test_source_option_stores_the_file_as_the_next_version_of_that_source(tmp_path):
    first = SourceVersionFactory()
    path = write(tmp_path, "revised.txt", TEXT)

    printed = add_source(path, "--source", first.source_id)

    second = first.source.versions.get(number=2)
    assert printed == f"version {second.pk} of source {first.source_id} (2): pending"
    assert second.file.read() == TEXT
    assert Source.objects.count() == 1


def test_the_latest_versions_bytes_again_print_unchanged_and_store_nothing(tmp_path):
    path = write(tmp_path, "statement.txt", TEXT)
    add_source(path, "--title", "Council statement")
    version = SourceVersion.objects.get()
    events = AuditEvent.objects.count()

    printed = add_source(path, "--source", version.source_id)
    said = json.loads(add_source(path, "--source", version.source_id, "--json"))

    assert printed == (
        f"version {version.pk} of source {version.source_id} (1): ready "
        "(unchanged: these bytes are already its latest version)"
    )
    assert said == {
        "source": version.source_id,
        "version": version.pk,
        "number": 1,
        "status": "ready",
        "created": False,
    }
    assert SourceVersion.objects.count() == 1
    assert AuditEvent.objects.count() == events


@override_settings(TASKS=QUEUED_ONLY)
def test_case_option_stores_the_file_as_the_next_version_of_the_cases_piece_under_check(
    tmp_path,
):
    case = CaseFactory(slug="council-budget")
    SourceVersionFactory(source=case.source_under_check)
    path = write(tmp_path, "corrected-article.txt", TEXT)

    said = json.loads(add_source(path, "--case", "council-budget", "--json"))

    version = SourceVersion.objects.get(pk=said["version"])
    assert version.source == case.source_under_check
    assert (said["source"], said["number"], said["created"]) == (
        case.source_under_check_id,
        2,
        True,
    )
    assert Source.objects.count() == 1


@override_settings(TASKS=QUEUED_ONLY)
def test_as_option_records_the_user_as_the_one_who_added_the_source(tmp_path):
    editor = EditorFactory(username="desk-script")
    path = write(tmp_path, "statement.txt", TEXT)

    add_source(path, "--title", "Council statement", "--as", "desk-script")

    version = SourceVersion.objects.select_related("source").get()
    assert version.uploaded_by == editor
    assert version.source.created_by == editor
    assert set(AuditEvent.objects.values_list("action", "actor")) == {
        ("source.create", editor.pk),
        ("sourceversion.create", editor.pk),
    }


def test_as_option_records_the_user_who_added_a_version(tmp_path):
    editor = EditorFactory(username="desk-script")
    first = SourceVersionFactory()
    path = write(tmp_path, "revised.txt", TEXT)

    add_source(path, "--source", first.source_id, "--as", "desk-script")

    event = AuditEvent.objects.get(action="sourceversion.create", actor=editor)
    assert event.target_id == str(first.source.versions.get(number=2).pk)


def test_help_says_that_a_page_can_be_added_by_its_address():
    from sources.management.commands.add_source import Command

    usage = " ".join(Command().create_parser("manage.py", "add_source").format_help().split())

    assert "or the web page at an http(s) address fetched now" in usage
    assert "the http(s) address of a page to fetch" in usage


# --- by address, from a real server on 127.0.0.1 (the only address the test settings allow) ---


@pytest.fixture
def server():
    with LoopbackServer() as server:
        yield server


def statement_page(name):
    """An HTML page whose bytes are this test's own."""
    return sample_files.make_html(title=f"Council statement ({name})", hostile=False)


def test_an_address_is_fetched_as_a_new_source_and_its_text_read(server):
    page = statement_page("new source by address")
    server.page("/statement", page)

    printed = add_source(server.url("/statement"), "--title", "Statement", "--role", "secondary")

    source = Source.objects.get()
    version = source.versions.get()
    assert printed == f"version {version.pk} of source {source.pk} (1): ready"
    assert (source.title, source.url, source.role) == (
        "Statement",
        server.url("/statement"),
        Source.Role.SECONDARY,
    )
    assert version.final_url == server.url("/statement")
    assert version.http_status == 200
    assert version.file.read() == page
    assert version.warc.name.endswith(".warc.gz")
    assert sample_files.HTML_PARAGRAPHS[1] in version.extracted_text
    assert [path for path, _headers in server.seen] == ["/statement"]


@override_settings(TASKS=QUEUED_ONLY)
def test_an_address_without_a_title_names_the_source_after_it(server):
    server.page("/news/statement", statement_page("no title"))

    said = json.loads(add_source(server.url("/news/statement"), "--json"))

    source = Source.objects.get()
    assert source.title == "127.0.0.1/news/statement"
    assert said == {
        "source": source.pk,
        "version": source.versions.get().pk,
        "number": 1,
        "status": "pending",
        "created": True,
    }


def test_an_address_fetched_again_is_a_new_version_only_when_the_page_changed(server):
    editor = EditorFactory(username="desk-script")
    first = SourceVersionFactory(text="The statement as first uploaded.")
    server.page("/statement", statement_page("fetched again"))

    printed = add_source(server.url("/statement"), "--source", first.source_id, "--as", editor)
    again = add_source(server.url("/statement"), "--source", first.source_id, "--as", editor)

    second = first.source.versions.get(number=2)
    assert printed == f"version {second.pk} of source {first.source_id} (2): ready"
    assert again == (
        f"version {second.pk} of source {first.source_id} (2): ready "
        "(unchanged: these bytes are already its latest version)"
    )
    assert first.source.versions.count() == 2
    assert second.uploaded_by == editor
    assert AuditEvent.objects.filter(
        action="sourceversion.capture_unchanged", actor=editor, target_id=str(second.pk)
    ).exists()


def test_a_cases_piece_gets_the_page_as_its_next_version(server):
    case = CaseFactory(slug="council-budget")
    SourceVersionFactory(source=case.source_under_check)
    server.page("/article", statement_page("a case's piece"))

    said = json.loads(add_source(server.url("/article"), "--case", "council-budget", "--json"))

    assert (said["source"], said["number"], said["created"]) == (
        case.source_under_check_id,
        2,
        True,
    )


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        (
            "/missing",
            "The server answered with HTTP status 404 instead of the page, so nothing was stored.",
        ),
        (
            "/broken",
            "The server answered with HTTP status 500 instead of the page, so nothing was stored.",
        ),
    ],
)
def test_a_page_answering_other_than_2xx_is_refused_and_nothing_is_stored(server, path, reason):
    server.reply("/broken", Reply(500, b"<p>Internal error</p>"))

    with pytest.raises(CommandError) as refused:
        add_source(server.url(path), "--title", "Not there")

    assert str(refused.value) == f"{server.url(path)} was not stored: {reason}"
    assert not Source.objects.exists()
    assert not AuditEvent.objects.exists()


@pytest.fixture
def existing(db):
    """A source with one version, there before every refusal, to see that nothing is added."""
    return SourceVersionFactory(source__title="Existing source").source


def upload_refusal(content):
    """What the upload check says of ``content``: the command says it as the form does."""
    with pytest.raises(ValidationError) as refused:
        check_upload(content, "file")
    return " ".join(refused.value.messages)


def refusal(name, make_args, sentence):
    return pytest.param(make_args, sentence, id=name)


REFUSALS = [
    refusal(
        "missing file",
        lambda tmp, source: [tmp / "nowhere.txt", "--title", "T"],
        "There is no file at {tmp}/nowhere.txt.",
    ),
    refusal(
        "directory",
        lambda tmp, source: [tmp, "--title", "T"],
        "{tmp} is a directory: give the path of a file.",
    ),
    refusal(
        "an address with --url",
        lambda tmp, source: ["https://example.org/report.pdf", "--url", "https://example.org/"],
        "--url is the address fetched: leave it out when adding a source by its address.",
    ),
    refusal(
        "private address",
        lambda tmp, source: ["http://10.0.0.1/", "--title", "T"],
        "http://10.0.0.1/ was not stored: 10.0.0.1 is a private network address: only public "
        "web addresses are fetched.",
    ),
    refusal(
        "private address for a new version",
        lambda tmp, source: ["http://10.0.0.1/statement", "--source", source.pk],
        "http://10.0.0.1/statement was not stored: 10.0.0.1 is a private network address: "
        "only public web addresses are fetched.",
    ),
    refusal(
        "ftp address",
        lambda tmp, source: ["ftp://example.org/report.txt", "--title", "T"],
        "ftp://example.org/report.txt was not stored: Only http and https addresses can be "
        "fetched.",
    ),
    refusal(
        "reviewer fetching a page",
        lambda tmp, source: ["http://10.0.0.1/", "--source", source.pk, "--as", "a-reviewer"],
        "'a-reviewer' may not add sources: that takes the permission sources.add_sourceversion, "
        "which editors have.",
    ),
    refusal(
        "unknown case",
        lambda tmp, source: [tmp / "ok.txt", "--case", "no-such-case"],
        "There is no case with the slug 'no-such-case'.",
    ),
    refusal(
        "unknown source",
        lambda tmp, source: [tmp / "ok.txt", "--source", source.pk + 1000],
        "There is no source with the id {missing}.",
    ),
    refusal(
        "unknown user",
        lambda tmp, source: [tmp / "ok.txt", "--title", "T", "--as", "nobody"],
        "There is no account with the username 'nobody'.",
    ),
    refusal(
        "reviewer adding a source",
        lambda tmp, source: [tmp / "ok.txt", "--title", "T", "--as", "a-reviewer"],
        "'a-reviewer' may not add sources: that takes the permission sources.add_source, "
        "which editors have.",
    ),
    refusal(
        "reviewer adding a version",
        lambda tmp, source: [tmp / "ok.txt", "--source", source.pk, "--as", "a-reviewer"],
        "'a-reviewer' may not add sources: that takes the permission sources.add_sourceversion, "
        "which editors have.",
    ),
    refusal(
        "deactivated editor",
        lambda tmp, source: [tmp / "ok.txt", "--title", "T", "--as", "gone-editor"],
        "The account 'gone-editor' is deactivated: it cannot add sources.",
    ),
    refusal(
        "gif for a new source",
        lambda tmp, source: [tmp / "animation.gif", "--title", "T"],
        "{tmp}/animation.gif was not stored: {gif}",
    ),
    refusal(
        "gif for a new version",
        lambda tmp, source: [tmp / "animation.gif", "--source", source.pk],
        "{tmp}/animation.gif was not stored: {gif}",
    ),
    refusal(
        "empty file",
        lambda tmp, source: [tmp / "empty.txt", "--title", "T"],
        "{tmp}/empty.txt was not stored: The file is empty (0 bytes).",
    ),
    refusal(
        "no title",
        lambda tmp, source: [tmp / "ok.txt"],
        "A new source needs a title: give --title.",
    ),
    refusal(
        "blank title",
        lambda tmp, source: [tmp / "ok.txt", "--title", "  "],
        "A new source needs a title: give --title.",
    ),
    refusal(
        "new metadata for an existing source",
        lambda tmp, source: [
            tmp / "ok.txt",
            "--source",
            source.pk,
            "--title",
            "T",
            "--publisher",
            "P",
        ],
        "--title and --publisher describe a new source: leave them out when adding a version to "
        "an existing one (its details are changed on its page).",
    ),
    refusal(
        "a new role for a case's piece",
        lambda tmp, source: [tmp / "ok.txt", "--case", "a-case", "--role", "secondary"],
        "--role describes a new source: leave it out when adding a version to an existing one "
        "(its details are changed on its page).",
    ),
    refusal(
        "source url that is not one",
        lambda tmp, source: [tmp / "ok.txt", "--title", "T", "--url", "not a url"],
        "{tmp}/ok.txt was not stored: url: Enter a valid URL.",
    ),
]


@override_settings(TASKS=QUEUED_ONLY)
@pytest.mark.parametrize(("make_args", "sentence"), REFUSALS)
def test_a_refusal_says_why_and_stores_nothing(tmp_path, existing, make_args, sentence):
    ReviewerFactory(username="a-reviewer")
    CaseFactory(slug="a-case", source_under_check=existing)
    gone = EditorFactory(username="gone-editor")
    gone.is_active = False
    gone.save()
    write(tmp_path, "ok.txt", TEXT)
    write(tmp_path, "animation.gif", sample_files.GIF_BYTES)
    write(tmp_path, "empty.txt", sample_files.EMPTY_BYTES)
    counts = Source.objects.count(), SourceVersion.objects.count(), AuditEvent.objects.count()

    with pytest.raises(CommandError) as refused:
        add_source(*make_args(tmp_path, existing))

    assert str(refused.value) == sentence.format(
        tmp=tmp_path, missing=existing.pk + 1000, gif=upload_refusal(sample_files.GIF_BYTES)
    )
    assert (
        Source.objects.count(),
        SourceVersion.objects.count(),
        AuditEvent.objects.count(),
    ) == counts


@override_settings(SOURCE_UPLOAD_MAX_BYTES=16)
def test_a_file_over_the_size_limit_is_refused_naming_its_size_and_the_limit(tmp_path):
    path = write(tmp_path, "long.txt", TEXT)

    with pytest.raises(CommandError) as refused:
        add_source(path, "--title", "Too long")

    # Sizes are formatted with no-break spaces.
    assert " ".join(str(refused.value).split()) == (
        f"{path} was not stored: The file is 48 bytes, over the limit of 16 bytes."
    )
    assert not Source.objects.exists()


def test_source_and_case_together_are_refused(tmp_path, existing):
    case = CaseFactory()
    path = write(tmp_path, "ok.txt", TEXT)

    with pytest.raises(CommandError, match="not allowed with argument"):
        add_source(path, "--source", existing.pk, "--case", case.slug)

    assert existing.versions.count() == 1
