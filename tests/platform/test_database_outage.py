"""
A lost database: pages answer 503 with a plain page, the pool fails fast and heals,
the background worker waits for the database and reruns what it cut off.

The failures are real: an extra database alias points at a SQLite file in a folder
that does not exist, or at PostgreSQL on a port where nothing listens, and a router
sends the app's queries there.
"""

import contextlib
import logging
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connections
from django.db.utils import load_backend
from django.tasks import TaskResultStatus
from django.test import Client, override_settings
from django_tasks_db.models import DBTaskResult

from factcheck.database_outage import is_database_unavailable
from factcheck.views import server_error
from tests import outage_tasks
from tests.factories import EditorFactory
from tests.outage_tasks import UNREACHABLE

PROJECT_DIR = Path(__file__).resolve().parents[2]
DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


class EverythingToTheLostDatabase:
    """Every query of the app goes to the unreachable database."""

    def db_for_read(self, model, **hints):
        return UNREACHABLE

    db_for_write = db_for_read


def closed_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def unreachable_database(settings_dict):
    """
    Make the alias ``unreachable`` a connection to ``settings_dict`` for as long as the
    block runs: created on the fly (not in DATABASES, so no test database is made for it).
    """
    settings_dict = connections.configure_settings({"default": {}, UNREACHABLE: settings_dict})[
        UNREACHABLE
    ]
    connection = load_backend(settings_dict["ENGINE"]).DatabaseWrapper(settings_dict, UNREACHABLE)
    connections[UNREACHABLE] = connection
    try:
        yield connection
    finally:
        with contextlib.suppress(Exception):
            connection.close()
        if connection.vendor == "postgresql":
            connection.close_pool()
        del connections[UNREACHABLE]


@pytest.fixture
def lost_sqlite(tmp_path):
    with unreachable_database(
        {"ENGINE": "django.db.backends.sqlite3", "NAME": tmp_path / "no-such-folder" / "db.sqlite3"}
    ) as connection:
        yield connection


@pytest.fixture
def lost_postgresql():
    pytest.importorskip("psycopg_pool")
    with unreachable_database(
        {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": "factcheck",
            "USER": "postgres",
            "HOST": "127.0.0.1",
            "PORT": str(closed_port()),
            "OPTIONS": {"pool": {"min_size": 1, "timeout": 1.0, "reconnect_timeout": 1.0}},
        }
    ) as connection:
        yield connection


def assert_plain_unavailable_page(response):
    assert response.status_code == 503
    assert response["Retry-After"] == "60"
    assert response["Cache-Control"] == "no-store"
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "The database is unavailable" in page
    assert "try again in a minute" in page
    assert "Traceback" not in page
    assert "OperationalError" not in page


@pytest.mark.django_db
def test_a_signed_in_page_whose_database_is_gone_answers_503_with_a_plain_page(lost_sqlite, caplog):
    # The session lookup in the authentication middleware is the first query to fail,
    # before any view runs.
    client = Client(raise_request_exception=False)
    client.force_login(EditorFactory())

    with (
        override_settings(DATABASE_ROUTERS=[EverythingToTheLostDatabase()]),
        caplog.at_level(logging.ERROR, logger="django.request"),
    ):
        response = client.get("/cases/")

    assert_plain_unavailable_page(response)
    logged = [record for record in caplog.records if record.name == "django.request"]
    assert len(logged) == 1
    assert logged[0].exc_info is not None


@pytest.mark.django_db
def test_a_public_page_waits_only_the_pool_timeout_for_a_postgresql_that_is_down(
    lost_postgresql,
):
    client = Client(raise_request_exception=False)

    with override_settings(DATABASE_ROUTERS=[EverythingToTheLostDatabase()]):
        began = time.monotonic()
        response = client.get("/corrections/")
        waited = time.monotonic() - began

    assert_plain_unavailable_page(response)
    assert 0.9 <= waited < 5


@pytest.mark.django_db
def test_a_page_that_fails_for_another_reason_is_still_a_500(rf, lost_sqlite):
    try:
        raise ValueError("a bug, not the database")
    except ValueError:
        response = server_error(rf.get("/"))
    assert response.status_code == 500

    try:
        lost_sqlite.ensure_connection()
    except Exception:
        response = server_error(rf.get("/"))
    assert response.status_code == 503


@pytest.mark.django_db
def test_an_error_raised_while_handling_a_lost_database_still_counts_as_one(lost_sqlite):
    try:
        try:
            lost_sqlite.ensure_connection()
        except Exception as lost:
            raise RuntimeError("while rendering") from lost
    except RuntimeError as error:
        assert is_database_unavailable(error)
    assert not is_database_unavailable(RuntimeError("alone"))


def test_the_postgresql_pool_fails_fast_and_checks_connections_it_hands_out():
    script = (
        "import django; django.setup(); from django.conf import settings; "
        "from psycopg_pool import ConnectionPool; "
        "pool = settings.DATABASES['default']['OPTIONS']['pool']; "
        "print(pool['timeout'], pool['reconnect_timeout'], "
        "pool['check'] is ConnectionPool.check_connection)"
    )
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_POOL_TIMEOUT"}
    env |= {
        "DJANGO_SETTINGS_MODULE": "factcheck.settings",
        "DEBUG": "true",
        "DATABASE_URL": "postgres://factcheck@db.invalid:5432/factcheck",
    }
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout.split() == ["5.0", "5.0", "True"]

    env["DATABASE_POOL_TIMEOUT"] = "2.5"
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=PROJECT_DIR, env=env, capture_output=True, text=True
    )
    assert result.stdout.split() == ["2.5", "2.5", "True"]


def run_task_worker():
    call_command(
        "task_worker", "--batch", "--no-startup-delay", "--queue-name", "*", "--retry-delay", "0.5"
    )


@pytest.mark.django_db(transaction=True)
def test_a_task_that_fails_on_a_lost_database_runs_again_up_to_five_times(lost_sqlite):
    with override_settings(TASKS=DATABASE_TASKS):
        lost = outage_tasks.query_the_unreachable_database.enqueue()
        buggy = outage_tasks.raise_a_value_error.enqueue()
        run_task_worker()

    lost_row = DBTaskResult.objects.get(pk=lost.id)
    assert lost_row.status == TaskResultStatus.FAILED
    assert lost_row.exception_class_path == "django.db.utils.OperationalError"
    assert len(lost_row.worker_ids) == 5
    buggy_row = DBTaskResult.objects.get(pk=buggy.id)
    assert buggy_row.status == TaskResultStatus.FAILED
    assert len(buggy_row.worker_ids) == 1


@pytest.mark.django_db(transaction=True)
def test_the_worker_waits_for_a_lost_queue_database_and_reruns_the_task_it_cut_off(
    lost_sqlite, caplog
):
    with override_settings(TASKS=DATABASE_TASKS):
        result = outage_tasks.lose_the_database_during_the_first_run.enqueue()
        with (
            override_settings(DATABASE_ROUTERS=[outage_tasks.OutageRouter()]),
            caplog.at_level(logging.WARNING, logger="factcheck.worker"),
        ):
            run_task_worker()
        result.refresh()

    assert result.status == TaskResultStatus.SUCCESSFUL
    assert result.return_value == 2
    assert "The database is unavailable" in caplog.text
    assert "will run again" in caplog.text
