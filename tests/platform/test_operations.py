"""
Operations: JSON log lines for requests and task runs, readiness (/readyz),
the worker's housekeeping, and Sentry initialised only with a DSN.
"""

import gzip
import json
import logging
import os
import subprocess
import sys
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from django.contrib.sessions.models import Session
from django.tasks import TaskResultStatus, task
from django.test import Client, override_settings
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from factcheck.logging import JsonFormatter
from factcheck.tasks import housekeeping
from tests.factories import EditorFactory

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db


class Captured(logging.Handler):
    def __init__(self):
        super().__init__()
        self.setFormatter(JsonFormatter())
        self.lines = []

    def emit(self, record):
        self.lines.append(self.format(record))


@pytest.fixture
def captured():
    handler = Captured()
    loggers = [logging.getLogger(name) for name in ("factcheck.requests", "factcheck.tasks")]
    for logger in loggers:
        logger.addHandler(handler)
    yield handler
    for logger in loggers:
        logger.removeHandler(handler)


@task
def sample_task(number):
    return number * 2


@override_settings(REQUEST_LOG=True)
def test_each_request_is_one_json_log_line_with_id_user_method_path_status_and_duration(
    captured,
):
    editor = EditorFactory()
    client = Client()
    client.force_login(editor)
    response = client.get("/cases/", headers={"X-Request-ID": "abc-123"})
    line = json.loads(captured.lines[-1])
    assert line["request_id"] == "abc-123" == response["X-Request-ID"]
    assert line["user_id"] == editor.pk
    assert line["method"] == "GET"
    assert line["path"] == "/cases/"
    assert line["status"] == response.status_code
    assert isinstance(line["duration_ms"], float)
    assert line["logger"] == "factcheck.requests"

    Client().get("/healthz")
    anonymous = json.loads(captured.lines[-1])
    assert anonymous["user_id"] is None
    assert len(anonymous["request_id"]) == 32  # made up: none was sent


def test_each_task_run_is_one_json_log_line_with_name_id_status_and_duration(captured):
    result = sample_task.enqueue(21)
    line = json.loads(captured.lines[-1])
    assert line["task_name"].endswith("sample_task")
    assert line["task_id"] == str(result.id)
    assert line["task_status"] == "SUCCESSFUL"
    assert isinstance(line["duration_ms"], float)


def test_readiness_answers_200_when_the_database_cache_and_tasks_are_fine():
    answer = Client().get("/readyz")
    assert answer.status_code == 200
    body = answer.json()
    assert body["status"] == "ok"
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["cache"] == "ok"


def waiting_task(enqueued_at):
    row = DBTaskResult.objects.create(
        status=TaskResultStatus.READY,
        args_kwargs={"args": [], "kwargs": {}},
        task_path="tests.platform.test_operations.sample_task",
        backend_name="default",
        queue_name="default",
        run_after=timezone.now() - timedelta(seconds=1),
    )
    DBTaskResult.objects.filter(pk=row.pk).update(enqueued_at=enqueued_at)
    return row


@override_settings(READINESS_MAX_TASK_WAIT_SECONDS=600)
def test_readiness_answers_503_with_json_when_the_oldest_waiting_task_is_too_old():
    waiting_task(timezone.now() - timedelta(seconds=5))
    assert Client().get("/readyz").status_code == 200
    DBTaskResult.objects.all().delete()
    row = waiting_task(timezone.now())
    DBTaskResult.objects.filter(pk=row.pk).update(
        run_after=timezone.now() - timedelta(seconds=3600)
    )
    answer = Client().get("/readyz")
    assert answer.status_code == 503
    body = answer.json()
    assert body["failed"] == ["tasks"]
    assert body["checks"]["tasks"]["oldest_waiting_seconds"] >= 3600


def test_liveness_stays_a_plain_ok_without_the_database():
    answer = Client().get("/healthz")
    assert answer.status_code == 200
    assert answer.content == b"ok"


@override_settings(TASK_RESULT_RETENTION_DAYS=30)
def test_housekeeping_deletes_expired_sessions_and_old_task_results_and_keeps_new_ones():
    now = timezone.now()
    Session.objects.create(session_key="old", session_data="", expire_date=now - timedelta(1))
    Session.objects.create(session_key="new", session_data="", expire_date=now + timedelta(1))
    old = waiting_task(now)
    recent = waiting_task(now)
    waiting = waiting_task(now - timedelta(days=60))
    DBTaskResult.objects.filter(pk=old.pk).update(
        status=TaskResultStatus.SUCCESSFUL, finished_at=now - timedelta(days=31)
    )
    DBTaskResult.objects.filter(pk=recent.pk).update(
        status=TaskResultStatus.FAILED, finished_at=now - timedelta(days=29)
    )
    housekeeping.call()
    assert set(Session.objects.values_list("session_key", flat=True)) == {"new"}
    kept = set(DBTaskResult.objects.values_list("pk", flat=True))
    assert old.pk not in kept
    assert {recent.pk, waiting.pk} <= kept


@override_settings(
    TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}},
    HOUSEKEEPING_INTERVAL_SECONDS=3600,
)
def test_housekeeping_enqueues_its_next_run_once_with_the_database_backend():
    from factcheck.tasks import HOUSEKEEPING_PATH, schedule_housekeeping

    housekeeping.call()
    waiting = DBTaskResult.objects.filter(task_path=HOUSEKEEPING_PATH, status="READY")
    assert waiting.count() == 1
    assert waiting.get().run_after > timezone.now() + timedelta(seconds=3500)
    assert schedule_housekeeping() is False
    assert waiting.count() == 1


def run_python(code, **env):
    environment = {k: v for k, v in os.environ.items() if k != "SENTRY_DSN"}
    environment |= {"DJANGO_SETTINGS_MODULE": "factcheck.settings", "DEBUG": "true"} | env
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


SENTRY_STATE = (
    "import django, sentry_sdk; django.setup(); "
    "client = sentry_sdk.get_client(); "
    "print(client.is_active(), client.options.get('send_default_pii'))"
)


def test_sentry_is_not_initialised_without_a_dsn():
    result = run_python(SENTRY_STATE)
    assert result.stdout.split()[0] == "False", result.stderr


def test_with_a_dsn_sentry_sends_an_error_without_personal_data_to_that_server():
    received = []

    class Collector(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            encoding = self.headers.get("Content-Encoding", "")
            if encoding == "gzip":
                body = gzip.decompress(body)
            elif encoding == "br":
                import brotli

                body = brotli.decompress(body)
            received.append(body)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        dsn = f"http://publickey@127.0.0.1:{server.server_port}/1"
        result = run_python(
            SENTRY_STATE + "; sentry_sdk.capture_exception(ValueError('boom')); "
            "sentry_sdk.flush(5)",
            SENTRY_DSN=dsn,
        )
    finally:
        server.shutdown()
        server.server_close()
    assert result.stdout.split() == ["True", "False"], result.stderr
    assert received, "no event reached the local Sentry server"
    event = b"".join(received)
    assert b"boom" in event
    assert b'"user"' not in event  # send_default_pii=False: no user data
