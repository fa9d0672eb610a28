"""A case's public pages are served in the case's language, and say which it is."""

import json
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from claims.models import Case, Claim, ClaimStatus
from claims.services import case_set_language
from factcheck.models import Organisation
from tests.factories import CaseFactory, ClaimFactory, RatingFactory

pytestmark = pytest.mark.django_db

SPANISH_CATALOGUE = Path(settings.BASE_DIR) / "locale" / "es" / "LC_MESSAGES" / "django.mo"
FRENCH_CATALOGUE = Path(settings.BASE_DIR) / "locale" / "fr" / "LC_MESSAGES" / "django.mo"
#: A sentence of every public case page (templates/includes/report_error.html).
REPORT = "Report an error on this page"


def published_claim(language):
    Organisation.objects.update_or_create(pk=1, defaults={"name": "Desk of Record"})
    claim = ClaimFactory(case=CaseFactory(language=language), verdict=RatingFactory())
    Claim.objects.filter(pk=claim.pk).update(
        status=ClaimStatus.PUBLISHED, published_at="2026-11-05T10:00:00Z"
    )
    claim.refresh_from_db()
    return claim


def case_page(client, claim, accept_language):
    return client.get(
        reverse("claims:public_case", args=[claim.case.slug]),
        headers={"accept-language": accept_language},
    )


def claim_page(client, claim, accept_language="en"):
    return client.get(
        reverse("claims:public_claim", args=[claim.case.slug, claim.pk]),
        headers={"accept-language": accept_language},
    )


def html_lang(response):
    return re.search(r'<html lang="([^"]*)" dir="([^"]*)"', response.text).groups()


def in_language(language, message):
    with translation.override(language):
        return translation.gettext(message)


def claim_review_of(response):
    match = re.search(
        r'<script type="application/ld\+json">(.*?)</script>', response.text, re.DOTALL
    )
    return json.loads(match.group(1))


def test_a_spanish_case_is_served_in_spanish_to_a_french_reader(client):
    response = case_page(client, published_claim("es"), "fr")

    assert html_lang(response) == ("es", "ltr")
    assert response.headers["Content-Language"] == "es"
    assert in_language("es", REPORT) in response.text
    if SPANISH_CATALOGUE.exists() and FRENCH_CATALOGUE.exists():
        assert in_language("es", REPORT) != REPORT
        assert in_language("fr", REPORT) not in response.text


def test_an_arabic_case_is_served_right_to_left(client):
    assert html_lang(claim_page(client, published_claim("ar"), "en")) == ("ar", "rtl")


def test_a_portuguese_case_is_served_in_the_sites_portuguese(client):
    assert html_lang(case_page(client, published_claim("pt"), "en")) == ("pt-br", "ltr")


@pytest.mark.parametrize("language", ["de", "und", ""], ids=["not-offered", "other", "not-known"])
def test_a_case_in_a_language_the_site_is_not_offered_in_follows_the_reader(client, language):
    response = case_page(client, published_claim(language), "fr")

    assert html_lang(response) == ("fr", "ltr")
    assert response.headers["Content-Language"] == "fr"


def test_a_case_page_is_the_same_page_whatever_the_readers_language(client):
    claim = published_claim("es")

    french, english = case_page(client, claim, "fr"), case_page(client, claim, "en")

    assert french.headers["ETag"] == english.headers["ETag"]
    assert french.content == english.content


def test_a_new_case_language_changes_the_page_at_once(client, editor):
    claim = published_claim("es")
    case_page(client, claim, "fr")

    case_set_language(case=Case.objects.get(pk=claim.case_id), language="ar", actor=editor)

    assert html_lang(case_page(client, claim, "fr")) == ("ar", "rtl")


def test_the_json_export_of_a_spanish_case_is_made_in_spanish(client):
    claim = published_claim("es")

    response = client.get(
        reverse("claims:public_case_export", args=[claim.case.slug]),
        headers={"accept-language": "fr"},
    )

    assert response.status_code == 200
    assert response.headers["Content-Language"] == "es"


def test_the_claimreview_names_the_cases_language(client):
    review = claim_review_of(claim_page(client, published_claim("es"), "fr"))

    assert review["inLanguage"] == "es"
    assert review["itemReviewed"]["inLanguage"] == "es"


@pytest.mark.parametrize("language", ["und", ""], ids=["other", "not-known"])
def test_a_claimreview_names_no_language_it_does_not_know(client, language):
    review = claim_review_of(claim_page(client, published_claim(language)))

    assert "inLanguage" not in review
    assert "inLanguage" not in review["itemReviewed"]


def test_the_quoted_words_carry_the_language_of_their_text(client):
    response = claim_page(client, published_claim("es"), "fr")

    # The piece is the factories' English sample, whatever the case says.
    large_quote = r'<blockquote class="claim__quote claim__quote--large" lang="en"'
    assert re.search(large_quote, response.text)
