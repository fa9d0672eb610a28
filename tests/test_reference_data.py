"""
The logged-in user with their permissions and roles, the rating scale, and the
count of open readers' reports are kept in each process between their changes:
read once, never served from before a change, whoever makes it.

Transactional tests: what a request reads inside a transaction is never kept
(a rollback could undo it unseen), and every other test runs in one.
"""

import html
import time

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.cache import caches
from django.core.signals import request_finished, request_started
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from claims.models import ErrorReport, Rating, ReportStatus
from claims.reports import report_close, report_submit
from factcheck import reference_data
from factcheck.desk_pages import note_write
from factcheck.reference_data import forget_all, groups_written, kept
from factcheck.roles import EDITOR
from tests.factories import ClaimFactory, ReviewAssignmentFactory, ReviewerFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def shared_cache(settings):
    # The test process's own cache is the one every "process" here shares.
    settings.DESK_PAGE_CACHE = True


def rendered_after_a_write(client, url):
    """``url`` rendered anew (a write elsewhere moved the desk pages on), and its queries."""
    note_write()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    return response, [query["sql"] for query in queries]


def account_reads(queries):
    """The queries reading users or permissions themselves (not a case's lead editor, joined)."""
    return [sql for sql in queries if 'FROM "auth_user"' in sql or '"auth_permission"' in sql]


def test_a_users_account_and_permissions_are_read_once_until_they_change(editor_client, editor):
    url = reverse("claims:case_list")
    first, first_queries = rendered_after_a_write(editor_client, url)
    again, queries = rendered_after_a_write(editor_client, url)

    assert first.status_code == again.status_code == 200
    assert account_reads(first_queries)
    assert account_reads(queries) == []
    # The page still knows who is logged in and what they may do.
    assert (editor.get_full_name() or editor.username) in again.text
    assert "New case" in again.text


def test_a_permission_taken_away_applies_to_the_next_request(editor_client, editor):
    url = reverse("claims:case_list")
    assert rendered_after_a_write(editor_client, url)[0].status_code == 200

    editor.groups.remove(Group.objects.get(name=EDITOR))

    assert rendered_after_a_write(editor_client, url)[0].status_code == 403


def test_a_deactivated_account_is_logged_out_at_the_next_request(editor_client, editor):
    url = reverse("claims:case_list")
    assert rendered_after_a_write(editor_client, url)[0].status_code == 200

    get_user_model().objects.filter(pk=editor.pk).update(is_active=False)

    response = rendered_after_a_write(editor_client, url)[0]
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_a_renamed_rating_is_offered_by_the_next_case_page(editor_client):
    claim = ClaimFactory()
    rating = Rating.objects.order_by("order").first()
    url = claim.case.get_absolute_url()
    page, _queries = rendered_after_a_write(editor_client, url)
    assert f">{rating.label}</option>" in page.text
    again, queries = rendered_after_a_write(editor_client, url)
    assert again.status_code == 200
    assert not [sql for sql in queries if 'FROM "claims_rating"' in sql]

    Rating.objects.filter(pk=rating.pk).update(label="Largely accurate")

    page = rendered_after_a_write(editor_client, url)[0].text
    assert ">Largely accurate</option>" in page
    assert f">{rating.label}</option>" not in page


def test_kept_data_is_read_again_after_a_write_to_its_tables_only():
    assert kept("ratings", "probe", lambda: "first", model=Rating) == "first"
    assert kept("ratings", "probe", lambda: "second", model=Rating) == "first"

    ClaimFactory()  # writes to other tables: not the ratings'
    assert kept("ratings", "probe", lambda: "third", model=Rating) == "first"

    Rating.objects.filter(order=Rating.objects.order_by("order").first().order).update(
        meaning="Reworded."
    )
    assert kept("ratings", "probe", lambda: "fourth", model=Rating) == "fourth"


def test_nothing_read_inside_a_transaction_is_kept():
    with transaction.atomic():
        assert kept("ratings", "probe", lambda: "uncommitted", model=Rating) == "uncommitted"

    assert kept("ratings", "probe", lambda: "committed", model=Rating) == "committed"


def test_a_write_made_around_django_is_forgotten_with_forget_all():
    assert kept("accounts", "probe", lambda: "before", model=get_user_model()) == "before"
    assert kept("accounts", "probe", lambda: "unseen", model=get_user_model()) == "before"

    forget_all()

    assert kept("accounts", "probe", lambda: "after", model=get_user_model()) == "after"


def test_nothing_is_kept_without_a_cache_that_every_process_shares(settings):
    settings.DESK_PAGE_CACHE = False
    kept("ratings", "probe", lambda: "first", model=Rating)

    assert kept("ratings", "probe", lambda: "second", model=Rating) == "second"


@pytest.mark.parametrize(
    ("sql", "groups"),
    [
        ('UPDATE "auth_user" SET "is_active" = false WHERE "auth_user"."id" = 3', {"accounts"}),
        ('DELETE FROM "auth_user_groups" WHERE "user_id" = 3', {"accounts"}),
        ('INSERT INTO "django_content_type" ("app_label") VALUES (%s)', {"accounts"}),
        ('UPDATE "claims_rating" SET "label" = %s', {"ratings"}),
        ('TRUNCATE "auth_group", "claims_rating", "claims_claim"', {"accounts", "ratings"}),
        ('INSERT INTO "claims_claim" ("statement") VALUES (%s)', set()),
        ('UPDATE "claims_errorreport" SET "status" = %s', {"reports"}),
        (b"UPDATE something unreadable", {"accounts", "ratings", "reports"}),
    ],
)
def test_a_write_moves_the_groups_whose_tables_it_names(sql, groups):
    assert groups_written(sql) == groups


def test_a_renamed_reviewer_is_named_so_by_the_next_case_pages_filter(editor_client):
    assignment = ReviewAssignmentFactory(reviewer=ReviewerFactory(first_name="Ada", last_name="B"))
    url = assignment.claim.case.get_absolute_url()
    assert "Ada B</option>" in rendered_after_a_write(editor_client, url)[0].text
    _page, queries = rendered_after_a_write(editor_client, url)
    assert account_reads(queries) == []

    get_user_model().objects.filter(pk=assignment.reviewer_id).update(first_name="Grace")

    page = rendered_after_a_write(editor_client, url)[0].text
    assert "Grace B</option>" in page
    assert "Ada B</option>" not in page


def counted_generation_reads(action):
    """How many times ``action()`` asks the shared cache for the generations."""
    cache = caches[settings.DESK_PAGE_CACHE_ALIAS]
    reads = []
    get_many = cache.get_many

    def counted(keys, *args, **kwargs):
        if any(key.startswith("reference-data:") for key in keys):
            reads.append(keys)
        return get_many(keys, *args, **kwargs)

    cache.get_many = counted
    try:
        action()
    finally:
        del cache.get_many
    return len(reads)


def test_a_request_reads_the_generations_once_until_it_writes():
    def in_a_request():
        request_started.send(sender=None)
        try:
            kept("accounts", "probe", lambda: 1, model=get_user_model())
            kept("ratings", "probe", lambda: 1, model=Rating)
            kept("ratings", "probe", lambda: 1, model=Rating)
        finally:
            request_finished.send(sender=None)

    assert counted_generation_reads(in_a_request) == 1

    def writing_in_a_request():
        request_started.send(sender=None)
        try:
            kept("ratings", "probe", lambda: 1, model=Rating)
            Rating.objects.filter(pk=0).update(meaning="Nothing")  # moves the ratings on
            assert kept("ratings", "probe", lambda: 2, model=Rating) == 2
        finally:
            request_finished.send(sender=None)

    assert counted_generation_reads(writing_in_a_request) == 2

    # Outside a request (a task worker) every use reads them.
    def outside_a_request():
        kept("ratings", "probe", lambda: 2, model=Rating)
        kept("ratings", "probe", lambda: 2, model=Rating)

    assert counted_generation_reads(outside_a_request) == 2


def test_a_transaction_neither_keeps_nor_uses_what_is_kept():
    assert kept("ratings", "probe", lambda: "outside", model=Rating) == "outside"

    with transaction.atomic():
        # It may have written the ratings itself: what others keep is not for it.
        assert kept("ratings", "probe", lambda: "inside", model=Rating) == "inside"

    assert kept("ratings", "probe", lambda: "again", model=Rating) == "outside"


def test_what_another_process_kept_before_a_commit_is_read_again_after_it():
    rating = Rating.objects.order_by("order").first()

    def label():
        return Rating.objects.get(pk=rating.pk).label

    with transaction.atomic():
        Rating.objects.filter(pk=rating.pk).update(label="Relabelled")
        # Another process, between the statement and the commit, reads the label as
        # committed so far and keeps it under the number the statement moved to.
        reference_data._kept["ratings", "label"] = (
            reference_data._generation("ratings"),
            time.monotonic() + reference_data.KEPT_SECONDS,
            rating.label,
        )

    assert kept("ratings", "label", label, model=Rating) == "Relabelled"


def report_reads(queries):
    return [sql for sql in queries if '"claims_errorreport"' in sql]


def menu_says(response):
    """The page's text as read, its apostrophes unescaped."""
    return html.unescape(response.text)


def test_the_open_reports_count_is_read_once_and_again_after_each_change_to_the_reports(
    editor_client, editor
):
    url = reverse("claims:case_list")
    ErrorReport.objects.create(message="One.", page_url="/x/")
    _first, first_queries = rendered_after_a_write(editor_client, url)
    again, queries = rendered_after_a_write(editor_client, url)
    assert report_reads(first_queries)
    assert report_reads(queries) == []
    assert "1 reader's report open" in menu_says(again)

    sent = report_submit(page_url="/y/", message="Two.", address="203.0.113.9")
    assert "2 readers' reports open" in menu_says(rendered_after_a_write(editor_client, url)[0])

    report_close(report=sent, editor=editor, reply="It stands.")
    assert "1 reader's report open" in menu_says(rendered_after_a_write(editor_client, url)[0])

    ErrorReport.objects.update(status=ReportStatus.CLOSED)  # in bulk
    closed, queries = rendered_after_a_write(editor_client, url)
    assert report_reads(queries)
    assert "report open" not in menu_says(closed)
