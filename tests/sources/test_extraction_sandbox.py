"""
The extraction child's sandbox (sources.extraction): it starts with an empty environment
everywhere, and, where bubblewrap runs, without network and with a read-only view of only
what it needs. The child reports what it sees through its probe mode (``probe_child``),
started by exactly the launch code that extracts files.

Without bubblewrap the sandbox tests skip outside CI, with how to install it; in CI
(``CI`` set) they fail, as the browser tests do without Chromium.
"""

import logging
import os
import socket
import time
import uuid
from pathlib import Path

import pytest
from django.test import override_settings

from sources import extraction, services
from sources.extraction import (
    CHILD_ENVIRONMENT,
    DOCX,
    HTML,
    PDF,
    PNG,
    TEXT,
    ExtractionFailed,
    SandboxUnavailable,
    bwrap_check,
    extract_text,
    probe_child,
)
from sources.models import ExtractionStatus, SourceVersion
from sources.tasks import extract_source_version
from tests import documents, scans
from tests import sample_files as samples
from tests.factories import SourceFactory

ROOT = Path(__file__).resolve().parents[2]
SECRETS = {
    "SECRET_KEY": "secret-key-the-child-must-not-see",
    "DATABASE_URL": "postgres://factcheck:db-password-the-child-must-not-see@db/factcheck",
    "AWS_SECRET_ACCESS_KEY": "storage-key-the-child-must-not-see",
    "SMTP_PASSWORD": "mail-password-the-child-must-not-see",
}
# bwrap sets the working directory's PWD itself; it names no secret.
SET_BY_BWRAP = {"PWD"}


@pytest.fixture
def bwrap():
    path, problem = bwrap_check()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"The extraction sandbox cannot run: {problem}. .ci/run installs it.")
        pytest.skip(
            f"The extraction sandbox cannot run here ({problem}): `apt-get install bubblewrap`"
            " (with user namespaces enabled) to run the sandbox tests."
        )
    return path


@pytest.fixture
def without_bwrap(monkeypatch):
    """As on a server without bubblewrap: a fresh process that has warned of nothing yet."""
    monkeypatch.setattr(extraction.shutil, "which", lambda name: None)
    monkeypatch.setattr(extraction, "_warned", set())
    bwrap_check.cache_clear()
    yield
    bwrap_check.cache_clear()


@pytest.fixture
def loopback_server():
    """A TCP server on the worker's loopback, listening (the kernel completes connections)."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()


# --------------------------------------------------------------------------------------------
# Everywhere: the environment
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sandbox", ["none", "auto"])
def test_the_extraction_child_inherits_none_of_the_workers_environment(monkeypatch, sandbox):
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)

    environ = probe_child(sandbox=sandbox)["environ"]

    assert set(environ) <= set(CHILD_ENVIRONMENT) | SET_BY_BWRAP
    assert {k: v for k, v in environ.items() if k in CHILD_ENVIRONMENT} == CHILD_ENVIRONMENT
    assert not any(secret in value for secret in SECRETS.values() for value in environ.values())


@pytest.mark.parametrize(
    ("content", "media_type", "expected"),
    [
        (samples.make_text_pdf(["A page of PDF."]), PDF, "A page of PDF."),
        (samples.make_html(), HTML, "<"),
        ("Plain text, ça va.".encode(), TEXT, "Plain text, ça va."),
        (scans.screenshot(["Read with the empty environment."], tag="env"), PNG, "ocr"),
    ],
    ids=["pdf", "html", "text", "png"],
)
def test_every_kind_of_file_extracts_with_the_empty_environment_and_no_sandbox(
    content, media_type, expected
):
    if expected == "ocr":
        scans.require_tesseract("eng")
        expected = "Read with the empty environment."
    result = extract_text(content, media_type, sandbox="none")
    if expected == "<":  # HTML: text, and no markup
        assert result.text and "<" not in result.text
    else:
        assert result.text == expected


def test_without_bubblewrap_extraction_goes_on_with_one_warning_per_process(without_bwrap, caplog):
    with caplog.at_level(logging.WARNING, logger="sources.extraction"):
        first = extract_text(b"first", TEXT)
        second = extract_text(b"second", TEXT)

    assert (first.text, second.text) == ("first", "second")
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    message = warnings[0].getMessage()
    assert "WITHOUT its sandbox: bubblewrap (bwrap) is not installed" in message
    assert "apt-get install bubblewrap" in message


def test_a_bwrap_that_cannot_make_namespaces_is_passed_over_with_its_reason(
    without_bwrap, monkeypatch, tmp_path, caplog
):
    # As where user namespaces are off: bwrap is there but refuses to start anything.
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(extraction.shutil, "which", lambda name: str(fake))

    with caplog.at_level(logging.WARNING, logger="sources.extraction"):
        assert extract_text(b"still read", TEXT).text == "still read"

    assert "No permissions to create new namespace" in caplog.records[0].getMessage()
    with pytest.raises(SandboxUnavailable, match="No permissions to create new namespace"):
        extract_text(b"never read", TEXT, sandbox="bwrap")


def test_extraction_set_to_run_without_the_sandbox_never_warns(without_bwrap, caplog):
    with caplog.at_level(logging.WARNING, logger="sources.extraction"):
        assert extract_text(b"chosen", TEXT, sandbox="none").text == "chosen"
    assert not caplog.records


def test_a_required_sandbox_that_cannot_run_refuses_to_extract(without_bwrap):
    with pytest.raises(SandboxUnavailable, match="bubblewrap \\(bwrap\\) is not installed"):
        extract_text(b"never read", TEXT, sandbox="bwrap")


@pytest.mark.django_db
def test_a_required_sandbox_that_cannot_run_leaves_the_version_to_be_extracted_again(
    without_bwrap,
):
    with override_settings(
        TASKS={"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    ):
        version, _ = services.source_version_upload(
            source=SourceFactory(), content=b"Not at fault.", filename="a.txt", actor=None
        )

    with override_settings(EXTRACTION_SANDBOX="bwrap"), pytest.raises(SandboxUnavailable):
        extract_source_version.call(version.pk)

    # The file is not at fault: not marked unreadable, and a rerun of the task extracts it.
    version = SourceVersion.objects.get(pk=version.pk)
    assert version.extraction_status == ExtractionStatus.EXTRACTING
    assert extract_source_version.call(version.pk) == ExtractionStatus.READY


def test_an_unknown_sandbox_mode_is_a_programming_error():
    with pytest.raises(ValueError):
        extract_text(b"x", TEXT, sandbox="docker")


# --------------------------------------------------------------------------------------------
# With bubblewrap: no network, nothing to read but what it needs, nowhere to write
# --------------------------------------------------------------------------------------------


def test_the_sandboxed_child_cannot_connect_to_a_server_on_the_workers_loopback(
    bwrap, loopback_server
):
    # The probe does connect when it runs unsandboxed: it is the sandbox that stops it.
    assert probe_child({"connect": loopback_server}, sandbox="none")["connect"] == "done"

    outcome = probe_child({"connect": loopback_server}, sandbox="bwrap")["connect"]

    assert outcome != "done"
    assert outcome.startswith(("ConnectionRefusedError", "OSError", "TimeoutError"))


def test_the_sandboxed_child_can_write_nowhere(bwrap, tmp_path):
    name = f"sandbox-probe-{uuid.uuid4().hex}"
    targets = [
        ROOT / name,  # the project
        ROOT / "sources" / name,  # its own code
        Path(extraction.sys.prefix) / name,  # the virtualenv (a .pth there runs in the worker)
        tmp_path / name,  # a folder of the worker's, as MEDIA_ROOT is
        Path("/tmp") / name,  # noqa: S108 - a shared folder the child must not write to
        Path("/dev/shm") / name,  # noqa: S108 - likewise
        Path("/") / name,
    ]

    report = probe_child({"write": [str(path) for path in targets]}, sandbox="bwrap")

    assert all(outcome != "done" for outcome in report["write"].values()), report["write"]
    assert not [path for path in targets if path.exists()]


def test_the_sandboxed_child_sees_its_code_but_not_the_workers_files(bwrap, tmp_path):
    uploads = tmp_path / "media" / "an-earlier-upload.txt"
    uploads.parent.mkdir()
    uploads.write_text("Someone else's confidential source.")
    hidden = [
        uploads,
        ROOT / "pyproject.toml",  # the project beyond the sources package (.env, the database)
        Path("/etc/passwd"),
        Path(f"/proc/{os.getpid()}/environ"),  # the worker's environment, secrets and all
    ]
    visible = ROOT / "sources" / "_extract_child.py"

    report = probe_child({"read": [str(p) for p in [*hidden, visible]]}, sandbox="bwrap")

    assert report["read"].pop(str(visible)) == "done"
    assert all(outcome != "done" for outcome in report["read"].values()), report["read"]


def test_every_kind_of_file_extracts_inside_the_sandbox(bwrap):
    assert extract_text(samples.make_text_pdf(["In the box."]), PDF, sandbox="bwrap").text == (
        "In the box."
    )
    html = extract_text(samples.make_html(), HTML, sandbox="bwrap").text
    assert html and "<" not in html
    assert extract_text("ça va".encode(), TEXT, sandbox="bwrap").text == "ça va"
    docx = extract_text(documents.make_docx("sandbox"), DOCX, sandbox="bwrap")
    assert docx.text.startswith(documents.HEADING)


def test_scans_and_screenshots_are_read_by_tesseract_inside_the_sandbox(bwrap):
    # Tesseract runs as the child's own child: in its sandbox, with its limits.
    scans.require_tesseract("eng")
    lines = ["Read by OCR in the box.", "Nothing written, nothing sent."]
    scan = scans.scan_pdf([lines], tag="sandboxed scan", degrees=0)

    image = extract_text(scans.screenshot(lines, tag="sandboxed"), PNG, sandbox="bwrap")
    pdf = extract_text(scan, PDF, sandbox="bwrap")

    assert image.text == pdf.text == "\n".join(lines)
    assert image.ocr_confidence > 80 and pdf.ocr_confidence > 80


def _sandboxed_children(marker: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"sources._extract_child" in argv and marker.encode() in argv:
            pids.append(int(entry.name))
    return pids


def test_a_sandboxed_child_past_the_time_limit_is_killed_with_its_sandbox(bwrap):
    time_limit = 0.4321  # in the child's arguments: tells its processes from any other's
    started = time.monotonic()
    with pytest.raises(ExtractionFailed, match=r"took longer than 0\.4321 seconds"):
        extract_text(
            samples.make_form_bomb_pdf(depth=6),
            PDF,
            time_limit=time_limit,
            memory_limit_mb=8192,
            sandbox="bwrap",
        )
    assert time.monotonic() - started < 3

    deadline = time.monotonic() + 5
    while _sandboxed_children(repr(time_limit)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _sandboxed_children(repr(time_limit)) == []


def test_a_sandboxed_child_past_the_memory_cap_is_reported_as_such(bwrap):
    with pytest.raises(ExtractionFailed, match="150 MB memory limit"):
        extract_text(samples.make_form_bomb_pdf(depth=6), PDF, memory_limit_mb=150, sandbox="bwrap")
