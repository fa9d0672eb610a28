"""
What browsers and proxies may keep: public pages are asked for again on every
request (an unchanged one is a cheap 304), desk pages are the user's alone.
"""

import pytest
from django.http import HttpResponse
from django.test import RequestFactory
from django.urls import reverse

from claims.models import Claim, ClaimStatus
from factcheck.middleware import DeskCacheControlMiddleware
from factcheck.models import Organisation
from tests.factories import (
    ClaimFactory,
    EditorFactory,
    PublishedCorrectionFactory,
    RatingFactory,
    SourceVersionFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def published_claim(db):
    claim = ClaimFactory(verdict=RatingFactory(label="Accurate", order=5, value=5))
    Claim.objects.filter(pk=claim.pk).update(
        status=ClaimStatus.PUBLISHED, published_at="2026-11-05T10:00:00Z"
    )
    claim.refresh_from_db()
    # Made on first use, which moves every page's ETag once: before the first request.
    Organisation.current()
    return claim


def public_urls(claim):
    return [
        reverse("claims:public_claim", args=[claim.case.slug, claim.pk]),
        reverse("claims:public_case", args=[claim.case.slug]),
        reverse("claims:public_case_export", args=[claim.case.slug]),
        reverse("claims:corrections_log"),
        reverse("claims:corrections_json"),
        reverse("claims:corrections_atom"),
        reverse("claims:corrections_rss"),
    ]


def revalidation(response):
    """The conditional headers a browser sends to revalidate ``response``."""
    headers = {"If-None-Match": response["ETag"]}
    if response.has_header("Last-Modified"):
        headers["If-Modified-Since"] = response["Last-Modified"]
    return headers


def cache_control(response):
    return set(response["Cache-Control"].split(", "))


def test_every_public_page_is_revalidated_on_every_request_and_unchanged_is_a_304(
    client, published_claim
):
    PublishedCorrectionFactory(case=published_claim.case)
    for url in public_urls(published_claim):
        first = client.get(url)
        assert (first.status_code, first["Cache-Control"]) == (200, "no-cache"), url
        assert first.has_header("ETag"), url

        again = client.get(url, headers=revalidation(first))

        assert (again.status_code, again["Cache-Control"]) == (304, "no-cache"), url


def test_a_corrected_verdict_shows_on_the_very_next_request_to_the_public_pages_and_feeds(
    client, published_claim
):
    pages = {
        "claim": reverse(
            "claims:public_claim", args=[published_claim.case.slug, published_claim.pk]
        ),
        "case": reverse("claims:public_case", args=[published_claim.case.slug]),
        "atom": reverse("claims:corrections_atom"),
        "rss": reverse("claims:corrections_rss"),
    }
    before = {name: client.get(url) for name, url in pages.items()}
    assert "Accurate" in before["claim"].text and "Misleading" not in before["claim"].text

    PublishedCorrectionFactory(
        case=published_claim.case,
        claim=published_claim,
        new_verdict=RatingFactory(label="Misleading", order=2, value=2),
    )

    for name, url in pages.items():
        # The reader's browser revalidates what it holds: the old ETag no longer answers.
        after = client.get(url, headers=revalidation(before[name]))
        assert after.status_code == 200, name
        assert "Misleading" in after.text, name
        assert after["ETag"] != before[name]["ETag"], name


def test_a_signed_in_readers_public_page_is_theirs_alone_and_revalidated(client, published_claim):
    client.force_login(EditorFactory())
    url = reverse("claims:public_case", args=[published_claim.case.slug])

    response = client.get(url)

    assert cache_control(response) == {"private", "no-cache", "max-age=0"}


def test_every_desk_page_is_private_and_revalidated(client, published_claim):
    version = SourceVersionFactory()
    claim = ClaimFactory()
    client.force_login(EditorFactory())
    desk_pages = [
        reverse("claims:case_list"),
        reverse("claims:case_detail", args=[claim.case.slug]),
        claim.get_absolute_url(),
        reverse("claims:my_reviews"),
        reverse("claims:corrections_desk"),
        reverse("claims:reports_inbox"),
        reverse("sources:source_list"),
        reverse("sources:source_detail", args=[version.source_id]),
        reverse("sources:version_download", args=[version.source_id, version.number]),
        reverse("search") + "?q=chip",
        reverse("password_change"),
    ]
    for url in desk_pages:
        response = client.get(url)
        assert response.status_code == 200, url
        assert cache_control(response) == {"private", "no-cache"}, url


def test_a_desk_page_redirecting_after_a_form_is_private_too(client, published_claim):
    client.force_login(EditorFactory())

    response = client.get(reverse("home"))

    assert response.status_code == 302
    assert cache_control(response) == {"private", "no-cache"}


def test_a_view_that_says_how_to_cache_its_answer_is_left_as_it_said():
    def own_answer(request):
        response = HttpResponse("bytes that never change")
        response["Cache-Control"] = "private, max-age=31536000, immutable"
        return response

    request = RequestFactory().get("/")
    request.user = EditorFactory()

    response = DeskCacheControlMiddleware(own_answer)(request)

    assert response["Cache-Control"] == "private, max-age=31536000, immutable"
