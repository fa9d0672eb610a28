import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.urls import reverse

PROJECT_DIR = Path(__file__).resolve().parents[2]


def start_django(**environment):
    """Run ``manage.py check`` in a fresh process with exactly these variables set."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"SECRET_KEY", "ALLOWED_HOSTS", "DEBUG", "DJANGO_SETTINGS_MODULE"}
    }
    env |= environment
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_with_debug_off_the_app_refuses_the_default_secret_key():
    result = start_django(DEBUG="false", ALLOWED_HOSTS="factcheck.example.org")

    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr
    assert "set the SECRET_KEY environment variable" in result.stderr


def test_with_debug_off_the_app_refuses_empty_allowed_hosts():
    result = start_django(DEBUG="false", SECRET_KEY="x" * 50)

    assert result.returncode != 0
    assert "ALLOWED_HOSTS is empty" in result.stderr


def test_with_debug_off_and_both_set_the_app_starts():
    result = start_django(
        DEBUG="false",
        SECRET_KEY="a-real-secret-" * 5,
        ALLOWED_HOSTS="factcheck.example.org",
        SITE_URL="https://factcheck.example.org",
    )

    assert result.returncode == 0, result.stderr


def test_with_debug_off_the_app_refuses_to_start_without_the_sites_address_for_mail():
    result = start_django(
        DEBUG="false", SECRET_KEY="a-real-secret-" * 5, ALLOWED_HOSTS="factcheck.example.org"
    )

    assert result.returncode != 0
    assert "SITE_URL is not set" in result.stderr


def test_a_site_address_that_is_no_web_address_is_refused_with_the_variable_named():
    result = start_django(DEBUG="true", SITE_URL="factcheck.example.org")

    assert result.returncode != 0
    assert "SITE_URL='factcheck.example.org' is not a web address" in result.stderr


def test_in_development_mail_links_point_at_the_development_server():
    assert settings.SITE_URL == "http://127.0.0.1:8000"


def test_a_misspelt_boolean_is_refused_with_the_variable_named():
    result = start_django(DEBUG="maybe")

    assert result.returncode != 0
    assert "DEBUG='maybe' is not a boolean" in result.stderr


@pytest.mark.django_db
def test_a_file_sqlite_database_runs_in_wal_mode_with_immediate_transactions(tmp_path):
    if settings.DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
        pytest.skip("this run uses PostgreSQL")
    from django.db.backends.sqlite3.base import DatabaseWrapper

    # The test database lives in memory, where SQLite has no WAL; open a file
    # database with the very settings `make run` uses.
    settings_dict = connection.settings_dict | {"NAME": tmp_path / "wal.sqlite3"}
    file_connection = DatabaseWrapper(settings_dict, alias="wal-check")
    try:
        with file_connection.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode")
            assert cursor.fetchone()[0] == "wal"
            cursor.execute("PRAGMA busy_timeout")
            assert cursor.fetchone()[0] == 20000
            cursor.execute("PRAGMA foreign_keys")
            assert cursor.fetchone()[0] == 1
        assert file_connection.transaction_mode == "IMMEDIATE"
    finally:
        file_connection.close()


@pytest.mark.django_db
def test_postgresql_uses_the_psycopg_pool_without_persistent_connections():
    if connection.vendor != "postgresql":
        pytest.skip("this run uses SQLite")
    assert settings.DATABASES["default"]["CONN_MAX_AGE"] == 0
    assert connection.pool is not None
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


@pytest.mark.django_db
def test_postgresql_prepares_a_query_a_connection_runs_again():
    if connection.vendor != "postgresql":
        pytest.skip("this run uses SQLite")
    from claims.models import Case

    cases = Case.objects.filter(title__startswith="Prepared")
    for _ in range(3):
        list(cases.all())
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [statement for (statement,) in cursor.fetchall()]

    # Planned once for this connection: the parameter is bound on the server.
    assert any('FROM "claims_case"' in text and "LIKE $1" in text for text in prepared)


def test_mail_goes_through_the_configured_mailers(mailoutbox):
    from django.core import mail

    mail.send_mail("Review requested", "Please review claim 3.", None, ["reviewer@example.invalid"])

    assert "default" in settings.MAILERS
    assert [message.subject for message in mailoutbox] == ["Review requested"]
    assert mailoutbox[0].from_email == settings.DEFAULT_FROM_EMAIL


def test_the_cache_is_shared_through_redis_when_redis_url_is_set():
    from django.core.cache import cache

    if not settings.REDIS_URL:
        pytest.skip("REDIS_URL is not set for this run")
    assert settings.CACHES["default"]["BACKEND"].endswith("RedisCache")
    cache.set("factcheck-cache-check", 42, 10)
    assert cache.get("factcheck-cache-check") == 42


def test_sessions_are_cached_only_when_the_cache_is_shared():
    if settings.REDIS_URL:
        assert settings.SESSION_ENGINE == "django.contrib.sessions.backends.cached_db"
    else:
        assert settings.SESSION_ENGINE == "django.contrib.sessions.backends.db"


@pytest.mark.django_db
def test_a_logged_out_session_no_longer_opens_pages(client, editor):
    client.force_login(editor)
    stolen = client.cookies[settings.SESSION_COOKIE_NAME].value
    client.post(reverse("logout"))

    client.cookies[settings.SESSION_COOKIE_NAME] = stolen
    response = client.get("/cases/")

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
