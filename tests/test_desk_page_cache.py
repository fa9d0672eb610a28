"""
Desk pages are stored until the next write to the database, whatever makes it,
and only ever served to the session that they were rendered for.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.cache import caches
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, connection, transaction
from django.test import Client, RequestFactory
from django.test.signals import template_rendered
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from claims.models import Claim, Comment
from factcheck.desk_pages import (
    GENERATION_KEY,
    HIT_HEADER,
    is_write,
    note_write,
    write_generation,
)
from factcheck.roles import EDITOR
from tests.factories import ClaimFactory, EditorFactory, PieceUnderCheckFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def desk_page_cache(settings):
    # The test process's own cache is the one every "process" here shares.
    settings.DESK_PAGE_CACHE = True


@pytest.fixture
def claim(db):
    return ClaimFactory(statement="The compiler reached 1,111 tokens per second.")


def visit(client, url):
    """Open ``url`` as a browser does, keeping the CSRF cookie the first visit sets."""
    response = client.get(url)
    assert response.status_code == 200
    return response


def test_a_page_opened_again_unchanged_is_served_as_stored(editor_client):
    url = reverse("claims:case_list")
    visit(editor_client, url)
    rendered = visit(editor_client, url)
    with CaptureQueriesContext(connection) as queries:
        stored = visit(editor_client, url)

    assert rendered[HIT_HEADER] == "miss"
    assert stored[HIT_HEADER] == "hit"
    assert stored.content == rendered.content
    # The session, the user and the permission check still run; the page does not.
    assert len(queries) <= 3


def test_a_queryset_update_shows_at_once(editor_client, claim):
    url = claim.get_absolute_url()
    visit(editor_client, url)
    visit(editor_client, url)
    Claim.objects.filter(pk=claim.pk).update(statement="Start-up took 9.0 seconds.")

    response = visit(editor_client, url)

    assert response[HIT_HEADER] == "miss"
    assert "Start-up took 9.0 seconds." in response.text


def test_a_write_in_plain_sql_shows_at_once(editor_client, claim):
    url = claim.case.get_absolute_url()
    visit(editor_client, url)
    visit(editor_client, url)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Claim._meta.db_table} SET statement = %s WHERE id = %s",
            ["Written in plain SQL.", claim.pk],
        )

    assert "Written in plain SQL." in visit(editor_client, url).text


def test_a_comment_posted_through_the_page_shows_on_the_next_visit(editor_client, claim):
    url = claim.get_absolute_url()
    visit(editor_client, url)
    visit(editor_client, url)
    editor_client.post(
        reverse("claims:comment_add", args=[claim.case.slug, claim.pk]),
        {"body": "Checked against the second source."},
    )

    assert "Checked against the second source." in visit(editor_client, url).text


def test_a_stored_page_holds_a_csrf_token_that_still_works(editor, claim):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(editor)
    url = claim.get_absolute_url()
    visit(browser, url)
    visit(browser, url)
    stored = visit(browser, url)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', stored.text).group(1)

    response = browser.post(
        reverse("claims:comment_add", args=[claim.case.slug, claim.pk]),
        {"body": "Posted from a stored page.", "csrfmiddlewaretoken": token},
    )

    assert stored[HIT_HEADER] == "hit"
    assert response.status_code == 302  # back to the page; a refused token would be 403
    assert Comment.objects.filter(body="Posted from a stored page.").exists()


def test_another_user_never_gets_a_page_stored_for_someone_else(editor_client, editor):
    url = reverse("claims:case_list")
    visit(editor_client, url)
    visit(editor_client, url)
    other = Client()
    other.force_login(EditorFactory(first_name="Ada", last_name="Other"))
    visit(other, url)

    response = visit(other, url)

    assert "Ada Other" in response.text
    assert editor.get_full_name() not in response.text


def test_another_session_of_the_same_user_renders_its_own_page(editor_client, editor):
    url = reverse("claims:case_list")
    visit(editor_client, url)
    visit(editor_client, url)
    second_browser = Client()
    second_browser.force_login(editor)
    visit(second_browser, url)

    assert visit(second_browser, url)[HIT_HEADER] == "miss"


def test_a_session_that_logged_out_gets_the_login_page_not_the_stored_one(editor_client):
    url = reverse("claims:case_list")
    visit(editor_client, url)
    visit(editor_client, url)
    session = editor_client.cookies[settings.SESSION_COOKIE_NAME].value
    editor_client.post(reverse("logout"))
    editor_client.cookies[settings.SESSION_COOKIE_NAME] = session

    response = editor_client.get(url)

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_a_user_who_lost_the_role_is_refused_the_stored_page(editor_client, editor):
    url = reverse("claims:case_list")
    visit(editor_client, url)
    visit(editor_client, url)
    editor.groups.remove(Group.objects.get(name=EDITOR))

    assert editor_client.get(url).status_code == 403


def test_a_page_with_a_message_waiting_shows_it_once(editor_client, editor):
    url = reverse("claims:case_list")
    visit(editor_client, url)
    visit(editor_client, url)
    response = editor_client.post(
        reverse("claims:case_create"),
        {
            "title": "A new case",
            "slug": "a-new-case",
            "source_under_check": PieceUnderCheckFactory().pk,
            "lead_editor": editor.pk,
        },
    )
    assert response.status_code == 302, response.text[:500]

    with_message = visit(editor_client, url)
    after = visit(editor_client, url)

    assert "opened." in with_message.text
    assert HIT_HEADER not in with_message
    assert "opened." not in after.text


def test_htmx_fragments_are_always_rendered(editor_client, claim):
    url = claim.case.get_absolute_url()
    visit(editor_client, url)
    visit(editor_client, url)

    fragment = editor_client.get(url, headers={"HX-Request": "true"})

    assert HIT_HEADER not in fragment


@pytest.mark.django_db(transaction=True)
def test_a_write_moves_the_generation_at_once_and_again_when_it_commits():
    claim = ClaimFactory()
    before = write_generation()
    with transaction.atomic():
        Claim.objects.filter(pk=claim.pk).update(statement="One.")
        Claim.objects.filter(pk=claim.pk).update(statement="Two.")
        during = write_generation()

    assert during == before + 2
    assert write_generation() == before + 3


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_transaction_leaves_no_commit_to_wait_for():
    claim = ClaimFactory()
    with pytest.raises(RuntimeError), transaction.atomic():
        Claim.objects.filter(pk=claim.pk).update(statement="Rolled back.")
        raise RuntimeError
    before = write_generation()
    with transaction.atomic():
        Claim.objects.filter(pk=claim.pk).update(statement="Kept.")

    assert write_generation() == before + 2


def test_reading_does_not_move_the_generation(claim):
    before = write_generation()
    list(Claim.objects.all())
    with transaction.atomic():
        Claim.objects.select_for_update().get(pk=claim.pk)

    assert write_generation() == before


def test_a_lost_generation_starts_again_from_a_new_number():
    caches[settings.DESK_PAGE_CACHE_ALIAS].delete(GENERATION_KEY)
    note_write()

    assert write_generation() is not None


@pytest.mark.parametrize(
    ("sql", "writes"),
    [
        ('SELECT "claims_claim"."id" FROM "claims_claim"', False),
        ("  select 1", False),
        ('SAVEPOINT "s1_x1"', False),
        ('RELEASE SAVEPOINT "s1_x1"', False),
        ('UPDATE "claims_claim" SET "statement" = %s', True),
        ('INSERT INTO "claims_comment" ("body") VALUES (%s)', True),
        ('DELETE FROM "claims_evidence" WHERE "id" = %s', True),
        ("WITH moved AS (UPDATE claims_claim SET status = 'x') SELECT 1", True),
        ('ALTER TABLE "claims_claim" ADD COLUMN "x" integer', True),
        ('UPDATE "django_session" SET "session_data" = %s', False),
        ('DELETE FROM "django_session" WHERE "session_key" = %s', False),
    ],
)
def test_what_counts_as_a_write(sql, writes):
    assert is_write(sql) is writes


def test_without_a_shared_cache_the_desk_page_cache_is_off():
    script = "from django.conf import settings; print(settings.DESK_PAGE_CACHE)"
    env = {"DEBUG": "true", "REDIS_URL": "", "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {script}"],
        cwd=Path(__file__).resolve().parent.parent,
        env=env | {"DJANGO_SETTINGS_MODULE": "factcheck.settings"},
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.stdout.strip() == "False", result.stderr


def test_a_release_with_other_code_renders_its_pages_afresh(editor_client, settings):
    url = reverse("claims:case_list")
    visit(editor_client, url)
    visit(editor_client, url)
    settings.DESK_PAGE_CODE_DIGEST = "another-release"

    assert visit(editor_client, url)[HIT_HEADER] == "miss"


@pytest.fixture
def stored_pages(settings):
    """The keys of the stored pages, kept in a memory cache of their own for this test."""
    settings.CACHES = settings.CACHES | {
        "desk-pages": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "desk-pages-test",
        }
    }
    settings.DESK_PAGE_CACHE_ALIAS = "desk-pages"
    cache = caches["desk-pages"]
    cache.clear()
    return lambda: [key for key in cache._cache if ":desk-page:" in key]


def test_a_page_rendered_while_a_write_came_is_never_served(editor_client, claim, stored_pages):
    url = claim.case.get_absolute_url()
    visit(editor_client, url)

    def write_meanwhile(**kwargs):
        Claim.objects.filter(pk=claim.pk).update(statement="Changed during the rendering.")

    template_rendered.connect(write_meanwhile)
    try:
        rendered = visit(editor_client, url)
    finally:
        template_rendered.disconnect(write_meanwhile)

    assert rendered[HIT_HEADER] == "miss"
    again = visit(editor_client, url)
    assert again[HIT_HEADER] == "miss"
    assert "Changed during the rendering." in again.text
    assert visit(editor_client, url)[HIT_HEADER] == "hit"


def test_a_page_keeps_one_stored_copy_however_often_the_data_changes(
    editor_client, claim, stored_pages
):
    url = claim.case.get_absolute_url()
    visit(editor_client, url)  # sets the CSRF cookie, which a stored page needs
    for number in range(3):
        Claim.objects.filter(pk=claim.pk).update(statement=f"Revision {number}.")
        assert visit(editor_client, url)[HIT_HEADER] == "miss"

    assert len(stored_pages()) == 1


def test_a_rendered_page_is_stored_after_the_server_has_sent_it(editor_client, stored_pages):
    url = reverse("claims:case_list")
    visit(editor_client, url)  # sets the CSRF cookie, which a stored page needs
    note_write()
    cookies = "; ".join(f"{name}={morsel.value}" for name, morsel in editor_client.cookies.items())
    environ = RequestFactory().get(url, HTTP_COOKIE=cookies).environ
    # As a WSGI server runs the app: the body is sent, then the response closed.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        response = WSGIHandler()(environ, lambda status, headers: None)
        sent = b"".join(response)
        stored_before_closing = stored_pages()
        response.close()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)

    assert response[HIT_HEADER] == "miss"
    assert b"Cases" in sent
    assert stored_before_closing == []
    assert len(stored_pages()) == 1
    assert visit(editor_client, url)[HIT_HEADER] == "hit"
