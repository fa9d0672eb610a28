"""Public pages are stored under their ETag: built once per change, never shared with desk users."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from claims.models import Claim, ClaimStatus
from factcheck.models import Organisation
from tests.factories import (
    ClaimFactory,
    EditorFactory,
    PublishedCorrectionFactory,
    RatingFactory,
)

pytestmark = pytest.mark.django_db


def queries_for(client, url):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return response, len(queries)


@pytest.fixture
def published_claim(db):
    claim = ClaimFactory(verdict=RatingFactory(label="Mostly accurate", order=4, value=4))
    Claim.objects.filter(pk=claim.pk).update(
        status=ClaimStatus.PUBLISHED, published_at="2026-11-05T10:00:00Z"
    )
    claim.refresh_from_db()
    return claim


def test_a_second_reader_of_the_corrections_log_gets_the_stored_page(client):
    Organisation.current()  # made on first use, which moves every page's ETag once
    PublishedCorrectionFactory.create_batch(3)
    url = reverse("claims:corrections_log")
    first, built_with = queries_for(client, url)
    second, served_with = queries_for(client, url)
    assert second.content == first.content
    # Only the ETag's own queries (chain head, last change) run for the stored page.
    assert served_with <= 2 < built_with


def test_a_new_correction_shows_at_once_on_the_stored_log(client):
    PublishedCorrectionFactory(what_is_right="The first figure was 51.9x.")
    url = reverse("claims:corrections_log")
    client.get(url)
    PublishedCorrectionFactory(what_is_right="The second figure was 467 seconds.")
    assert "The second figure was 467 seconds." in client.get(url).text


def test_a_changed_published_claim_shows_at_once_on_the_stored_case_page(client, published_claim):
    url = reverse("claims:public_case", args=[published_claim.case.slug])
    client.get(url)
    published_claim.statement = "A reworded statement."
    published_claim.save()
    assert "A reworded statement." in client.get(url).text


def test_a_renamed_case_shows_at_once_on_the_stored_case_page(client, published_claim):
    url = reverse("claims:public_case", args=[published_claim.case.slug])
    client.get(url)
    published_claim.case.title = "A clearer case title"
    published_claim.case.save()
    assert "A clearer case title" in client.get(url).text


def public_claim_url(claim):
    return reverse("claims:public_claim", args=[claim.case.slug, claim.pk])


def test_a_relabelled_verdict_shows_at_once_on_the_stored_claim_page(client, published_claim):
    url = public_claim_url(published_claim)
    assert "Mostly accurate" in client.get(url).text
    rating = published_claim.verdict
    rating.label, rating.meaning = "Largely accurate", "Right in substance, off in a detail."
    rating.save()
    page = client.get(url).text
    assert "Largely accurate" in page
    assert "Right in substance, off in a detail." in page


def test_a_renamed_case_shows_at_once_on_the_stored_claim_page(client, published_claim):
    url = public_claim_url(published_claim)
    client.get(url)
    published_claim.case.title = "A clearer case title"
    published_claim.case.save()
    assert "A clearer case title" in client.get(url).text


def test_a_renamed_source_shows_at_once_on_the_stored_claim_and_case_pages(client, published_claim):
    claim_url = public_claim_url(published_claim)
    case_url = reverse("claims:public_case", args=[published_claim.case.slug])
    client.get(claim_url)
    client.get(case_url)
    for source in {
        published_claim.quotation.version.source,
        published_claim.case.source_under_check,
    }:
        source.title = f"Retitled source {source.pk}"
        source.save()
    assert (
        f"Retitled source {published_claim.quotation.version.source.pk}"
        in client.get(claim_url).text
    )
    assert (
        f"Retitled source {published_claim.case.source_under_check.pk}" in client.get(case_url).text
    )


def test_a_renamed_organisation_shows_at_once_on_every_stored_page(client, published_claim):
    urls = [
        public_claim_url(published_claim),
        reverse("claims:public_case", args=[published_claim.case.slug]),
    ]
    for url in urls:
        client.get(url)
    organisation = Organisation.current()
    organisation.name = "The Renamed Desk"
    organisation.save()
    for url in urls:
        assert "The Renamed Desk" in client.get(url).text


def test_a_renamed_case_shows_at_once_on_the_stored_corrections_log(client):
    correction = PublishedCorrectionFactory()
    url = reverse("claims:corrections_log")
    client.get(url)
    correction.case.title = "A case renamed after its correction"
    correction.case.save()
    assert "A case renamed after its correction" in client.get(url).text


def test_a_logged_in_reader_never_gets_the_page_stored_for_anonymous_readers(client):
    PublishedCorrectionFactory()
    url = reverse("claims:corrections_log")
    client.get(url)
    client.force_login(EditorFactory(first_name="Eddie", last_name="Editor"))
    page = client.get(url).text
    assert "Eddie Editor" in page
    assert "csrfmiddlewaretoken" in page  # their logout form


def test_an_anonymous_public_page_hands_out_no_csrf_token(client, published_claim):
    for url in (
        reverse("claims:corrections_log"),
        reverse("claims:public_case", args=[published_claim.case.slug]),
        published_claim.get_public_url(),
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert "csrfmiddlewaretoken" not in response.text, url
        assert "csrftoken" not in response.cookies, url


def test_a_reader_who_sent_a_report_is_thanked_on_a_page_no_cache_holds(client, published_claim):
    # Their own copy of the page they came from may come from the browser's cache
    # (max-age, or a 304), which would never show a message.
    url = reverse("claims:public_case", args=[published_claim.case.slug])
    client.get(url)
    response = client.post(
        reverse("claims:report_error"),
        {"message": "The date is wrong.", "email": "", "website": "", "page_url": url},
        follow=True,
    )
    assert response.status_code == 200
    assert response.redirect_chain[-1][0].startswith(reverse("claims:report_error") + "?sent=1")
    assert "Thank you: your report reached our editors." in response.text
    assert f'href="{url}"' in response.text
    assert "max-age" not in response.get("Cache-Control", "")


def test_the_report_form_is_loaded_on_demand_with_the_page_it_reports(client, published_claim):
    page_url = reverse("claims:public_case", args=[published_claim.case.slug])
    public_page = client.get(page_url).text
    assert reverse("claims:report_error") + "?page_url=" in public_page

    fragment = client.get(
        reverse("claims:report_error"),
        {"page_url": page_url, "case": published_claim.case.slug},
        headers={"HX-Request": "true"},
    )
    assert fragment.status_code == 200
    assert "<html" not in fragment.text
    assert f'value="{page_url}"' in fragment.text
    assert "csrfmiddlewaretoken" in fragment.text

    full = client.get(reverse("claims:report_error"), {"page_url": page_url})
    assert "<html" in full.text and "Tell our editors what is wrong" in full.text


def test_the_report_form_never_points_back_to_another_site(client):
    response = client.get(reverse("claims:report_error"), {"page_url": "https://evil.example/"})
    assert "https://evil.example/" not in response.text
    assert f'value="{reverse("claims:corrections_log")}"' in response.text
