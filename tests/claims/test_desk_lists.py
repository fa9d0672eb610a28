"""The desk's lists and frame: logging in, the case list, My reviews, the menu, paging."""

import re

import pytest
from django.template.loader import render_to_string
from django.urls import reverse, set_script_prefix
from django.utils import timezone

from claims.models import Claim
from claims.selectors import case_list, reviews_for
from claims.views.desk import CASES_PER_PAGE, CLAIMS_PER_PAGE
from factcheck.pagination import Paginator
from factcheck.templatetags.numbers import thousands
from tests.factories import (
    CaseFactory,
    ClaimFactory,
    QuotationFactory,
    ReviewAssignmentFactory,
    ReviewerFactory,
    make_case_with_claims,
)

pytestmark = pytest.mark.django_db


def test_the_editor_lands_on_the_case_list_after_logging_in(client, editor, first_case):
    response = client.post(
        reverse("login"), {"username": editor.username, "password": "correct horse battery staple"}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("claims:case_list")

    response = client.get(response["Location"])
    assert response.status_code == 200
    assert first_case.title in response.text
    assert first_case.get_absolute_url() in response.text


def test_a_wrong_password_is_refused_with_a_message_and_keeps_the_username(client, editor):
    response = client.post(reverse("login"), {"username": editor.username, "password": "nope"})

    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.text
    assert f'value="{editor.username}"' in response.text


def test_the_case_list_is_empty_with_a_pointer_to_sources(editor_client):
    response = editor_client.get(reverse("claims:case_list"))

    assert "No cases yet" in response.text


def test_a_reviewer_with_no_cases_is_not_told_to_upload_sources(client, reviewer, first_case):
    client.force_login(reviewer)

    response = client.get(reverse("claims:case_list"))

    assert "No cases for you yet" in response.text
    assert "Upload it under" not in response.text
    assert reverse("claims:my_reviews") in response.text


def test_my_reviews_lists_only_my_assignments(client, reviewer, first_case):
    mine = ReviewAssignmentFactory(claim=first_case.claims.first(), reviewer=reviewer)
    other = ReviewAssignmentFactory(claim=first_case.claims.last())
    client.force_login(reviewer)

    response = client.get(reverse("claims:my_reviews") + "?show=all")

    assert mine.claim.statement[:60] in response.text
    assert other.claim.statement[:60] not in response.text


def test_the_case_list_and_my_reviews_count_exactly_the_rows_they_list(client, reviewer):
    other_reviewer = ReviewerFactory()
    for _ in range(CASES_PER_PAGE + 2):
        claim = ClaimFactory()
        ReviewAssignmentFactory(claim=claim, reviewer=reviewer)
        ReviewAssignmentFactory(claim=claim, reviewer=other_reviewer)
    ReviewAssignmentFactory(reviewer=other_reviewer)
    client.force_login(reviewer)

    pages = {
        "cases": client.get(reverse("claims:case_list")).context["page"],
        "reviews": client.get(reverse("claims:my_reviews") + "?show=all").context["page"],
    }

    # Counted from plain querysets, listed from annotated ones: the same rows.
    assert pages["cases"].paginator.count == len(case_list(reviewer)) == CASES_PER_PAGE + 2
    assert pages["reviews"].paginator.count == len(reviews_for(reviewer)) == CASES_PER_PAGE + 2
    assert pages["cases"].paginator.num_pages == 2


def test_my_reviews_has_an_empty_state(client, reviewer):
    client.force_login(reviewer)

    assert "Nothing awaits your decision" in client.get(reverse("claims:my_reviews")).text
    assert "Nothing to review" in client.get(reverse("claims:my_reviews") + "?show=all").text


def test_pages_carry_the_navigation_and_vendored_htmx(editor_client, first_case):
    response = editor_client.get(reverse("claims:case_list"))

    for label in ("Cases", "Sources", "My reviews", "Corrections"):
        assert f">{label}</a>" in response.text
    assert "/static/vendor/htmx/htmx.min.js" in response.text
    assert 'aria-current="page"' in response.text


@pytest.mark.parametrize(
    "url_name", ["claims:corrections_log", "claims:corrections_desk", "claims:reports_inbox"]
)
def test_the_corrections_desk_and_reports_are_marked_as_the_corrections_section(
    editor_client, url_name
):
    page = editor_client.get(reverse(url_name)).text

    current = re.findall(r'<a href="([^"]+)" aria-current="page">', page)
    assert current == [reverse("claims:corrections_log")]


def test_the_case_list_counts_each_cases_claims_and_published_ones(editor_client):
    empty = CaseFactory(title="A case with no claims yet")
    first = ClaimFactory()
    busy = first.case
    ClaimFactory(
        case=busy,
        quotation=QuotationFactory(version=first.quotation.version, exact="467 seconds"),
        status=Claim.Status.PUBLISHED,
        published_at=timezone.now(),
    )

    response = editor_client.get(reverse("claims:case_list"))

    cards = {
        case.title: response.text.split(case.title, 1)[1].split("</li>", 1)[0]
        for case in (empty, busy)
    }
    assert "0 claims · 0 published" in cards[empty.title]
    assert "2 claims · 1 published" in cards[busy.title]


def test_the_navigation_links_follow_the_path_the_app_is_served_under(editor_client):
    # Reversed once per prefix and kept: a second prefix must not get the first's links.
    case_list = reverse("claims:case_list")
    set_script_prefix("/desk/")
    try:
        under_desk = editor_client.get(case_list)
    finally:
        set_script_prefix("/")
    at_root = editor_client.get(case_list)

    assert '<a href="/desk/reviews/"' in under_desk.text
    assert '<a href="/reviews/"' in at_root.text
    assert '<a href="/desk/' not in at_root.text


@pytest.mark.parametrize(
    ("asked", "shown"), [("0", 1), ("-3", 1), ("two", 1), ("", 1), ("2", 2), ("99", 2)]
)
def test_a_page_number_below_the_first_shows_the_first_page_and_one_past_the_last_the_last(
    editor_client, asked, shown
):
    case, _claims = make_case_with_claims(CLAIMS_PER_PAGE + 1, ReviewerFactory())

    page = editor_client.get(case.get_absolute_url(), {"page": asked})

    assert page.status_code == 200
    assert page.context["page"].number == shown


def test_long_counts_group_their_thousands():
    page = Paginator(range(30_000), 20).get_page(1)

    html = render_to_string("includes/pagination.html", {"page": page})

    assert "Page 1 of 1,500" in html
    assert thousands(25_000) == "25,000"
    assert thousands(999) == "999"
    assert thousands("") == ""
