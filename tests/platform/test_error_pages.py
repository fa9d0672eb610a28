"""The error pages: not found, refused, server error."""

import lxml.html
import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_a_page_not_found_keeps_the_site_and_says_our_reason(client, first_case):
    response = client.get(reverse("claims:public_case", args=[first_case.slug]))

    assert response.status_code == 404
    assert "<h1>Page not found</h1>" in response.text
    assert "This case has no published fact-checks." in response.text
    assert 'class="site-header"' in response.text
    assert reverse("claims:corrections_log") in response.text


def test_a_page_not_found_does_not_show_djangos_wording_about_models(client, db):
    response = client.get(reverse("claims:correction_detail", args=[987654]))

    assert response.status_code == 404
    assert "<h1>Page not found</h1>" in response.text
    assert "matches the given query" not in response.text


def test_a_refused_page_says_so_with_the_site_around_it(client, reviewer):
    client.force_login(reviewer)

    response = client.get(reverse("claims:case_create"))

    assert response.status_code == 403
    assert "not allowed to open this page" in response.text
    assert reverse("claims:case_list") in response.text


def test_the_server_error_page_needs_neither_a_request_nor_the_database(rf):
    from django.views import defaults

    response = defaults.server_error(rf.get("/"))

    assert response.status_code == 500
    assert b"Something went wrong on our side" in response.content


def test_the_brand_links_a_reader_to_the_public_log_not_the_login(client, db):
    page = client.get(reverse("claims:corrections_log"))

    (brand,) = lxml.html.fromstring(page.content).xpath("//a[@class='brand']")
    assert brand.get("href") == reverse("claims:corrections_log")


def test_a_claim_out_of_a_reviewers_reach_is_not_found_without_naming_the_model(
    client, reviewer, first_case
):
    client.force_login(reviewer)

    response = client.get(first_case.claims.first().get_absolute_url())

    assert response.status_code == 404
    assert "matching query" not in response.text
    assert "<h1>Page not found</h1>" in response.text
