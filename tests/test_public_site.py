"""What readers, search engines and other newsrooms see: published work only."""

import json
import re

import feedparser
import pytest
from django.urls import reverse

from claims.corrections import correction_approve, correction_draft, correction_publish
from claims.models import Claim, ClaimStatus
from factcheck.models import Organisation
from tests.factories import (
    ClaimFactory,
    CorrectionFactory,
    EditorFactory,
    EvidenceFactory,
    PublishedCorrectionFactory,
    QuotationFactory,
    RatingFactory,
    ReviewerFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def published_claim(db):
    Organisation.objects.update_or_create(
        pk=1,
        defaults={
            "name": "Desk of Record",
            "url": "https://desk.example.org",
            "logo_url": "https://desk.example.org/logo.png",
        },
    )
    RatingFactory(label="False", order=1, value=1)
    claim = ClaimFactory(
        verdict=RatingFactory(label="Mostly accurate", order=4, value=4),
        rationale="The **table** says so.",
    )
    EvidenceFactory(claim=claim, quotation=QuotationFactory(exact="467 seconds"))
    Claim.objects.filter(pk=claim.pk).update(
        status=ClaimStatus.PUBLISHED, published_at="2026-11-05T10:00:00Z"
    )
    claim.refresh_from_db()
    return claim


def public_claim_url(claim):
    return reverse("claims:public_claim", args=[claim.case.slug, claim.pk])


def claim_review_of(response):
    match = re.search(
        r'<script type="application/ld\+json">(.*?)</script>', response.text, re.DOTALL
    )
    assert match, "no JSON-LD on the page"
    return json.loads(match.group(1))


@pytest.mark.parametrize(
    "status", ["draft", "in_review", "changes_requested", "approved", "withdrawn"]
)
def test_an_unpublished_claim_answers_404_to_the_public(client, published_claim, status):
    Claim.objects.filter(pk=published_claim.pk).update(status=status, published_at=None)

    assert client.get(public_claim_url(published_claim)).status_code == 404
    assert (
        client.get(reverse("claims:public_case", args=[published_claim.case.slug])).status_code
        == 404
    )


def test_an_unpublished_claim_of_a_published_case_is_not_listed(client, published_claim):
    draft = ClaimFactory(
        case=published_claim.case,
        quotation=QuotationFactory(version=published_claim.quotation.version, exact="9.0 seconds"),
        statement="A draft nobody may see.",
    )

    response = client.get(reverse("claims:public_case", args=[published_claim.case.slug]))

    assert response.status_code == 200
    assert published_claim.statement in response.text
    assert draft.statement not in response.text


def test_a_draft_correction_answers_404_and_stays_off_the_log(client, published_claim):
    draft = CorrectionFactory(case=published_claim.case, what_was_wrong="Draft wording here")

    assert client.get(reverse("claims:correction_detail", args=[draft.pk])).status_code == 404
    assert "Draft wording here" not in client.get(reverse("claims:corrections_log")).text


def test_the_claim_review_markup_has_every_field(client, published_claim):
    review = claim_review_of(client.get(public_claim_url(published_claim)))

    assert review["@type"] == "ClaimReview"
    assert review["claimReviewed"] == published_claim.statement
    assert review["url"].endswith(public_claim_url(published_claim))
    assert review["datePublished"] == "2026-11-05"
    assert review["author"] == {
        "@type": "Organization",
        "name": "Desk of Record",
        "url": "https://desk.example.org",
        "logo": {"@type": "ImageObject", "url": "https://desk.example.org/logo.png"},
    }
    rating = review["reviewRating"]
    assert rating["ratingValue"] == 4
    assert (rating["bestRating"], rating["worstRating"]) == (5, 1)
    assert rating["alternateName"] == "Mostly accurate"
    item = review["itemReviewed"]
    assert item["@type"] == "Claim"
    assert item["appearance"][0]["headline"] == published_claim.quotation.version.source.title


def test_a_script_tag_inside_a_claim_cannot_break_out_of_the_json_ld(client, published_claim):
    Claim.objects.filter(pk=published_claim.pk).update(
        statement="</script><script>alert(1)</script>"
    )

    response = client.get(public_claim_url(published_claim))

    assert "<script>alert(1)</script>" not in response.text
    assert claim_review_of(response)["claimReviewed"] == "</script><script>alert(1)</script>"


def test_a_verdict_changing_correction_shows_both_verdicts_with_the_date(client, published_claim):
    editor = EditorFactory()
    draft = correction_draft(
        case=published_claim.case,
        claim=published_claim,
        editor=editor,
        kind="correction",
        what_was_wrong="We rated it mostly accurate.",
        what_is_right="The figure is unsupported.",
        new_verdict=RatingFactory(label="False", order=1, value=1),
    )
    correction_approve(correction=draft, approver=ReviewerFactory())
    correction = correction_publish(correction=draft, editor=editor)

    response = client.get(public_claim_url(published_claim))

    assert "The verdict was <strong>Mostly accurate</strong> and is now <strong>False</strong>" in (
        response.text
    )
    assert correction.get_absolute_url() in response.text
    review = claim_review_of(response)
    assert review["reviewRating"]["alternateName"] == "False"
    assert review["correction"][0]["@type"] == "CorrectionComment"


def test_the_feeds_parse_as_atom_and_rss(client, published_claim):
    entry = PublishedCorrectionFactory(
        case=published_claim.case, what_was_wrong="Wrong sum", what_is_right="460 seconds"
    )

    atom = feedparser.parse(client.get(reverse("claims:corrections_atom")).content)
    rss = feedparser.parse(client.get(reverse("claims:corrections_rss")).content)

    assert atom.version == "atom10" and not atom.bozo
    assert rss.version == "rss20" and not rss.bozo
    for feed in (atom, rss):
        assert len(feed.entries) == 1
        assert feed.entries[0].link.endswith(entry.get_absolute_url())
        assert "460 seconds" in feed.entries[0].summary


def test_the_json_listing_carries_the_chain_head(client, published_claim):
    first = PublishedCorrectionFactory(case=published_claim.case)
    second = PublishedCorrectionFactory(case=published_claim.case)

    data = client.get(reverse("claims:corrections_json")).json()

    assert data["head_sha256"] == second.sha256
    assert data["chain_verifies"] is True
    assert [entry["sha256"] for entry in data["entries"]] == [second.sha256, first.sha256]
    assert data["entries"][0]["previous_sha256"] == first.sha256


def test_the_log_shows_the_head_filters_and_permalinks(client, published_claim):
    entry = PublishedCorrectionFactory(case=published_claim.case, kind="clarification")

    page = client.get(reverse("claims:corrections_log"))
    filtered = client.get(reverse("claims:corrections_log"), {"kind": "update"})

    assert "hash chain verifies" in page.text
    assert entry.sha256 in page.text
    assert entry.get_absolute_url() in page.text
    assert "No corrections published that match these filters" in filtered.text


def test_an_empty_log_has_an_empty_state_and_links_to_the_policy(client, first_case):
    response = client.get(reverse("claims:corrections_log"))

    assert response.status_code == 200
    assert "No corrections published" in response.text
    assert "Corrections policy" in response.text
    assert reverse("claims:corrections_atom") in response.text
    assert feedparser.parse(client.get(reverse("claims:corrections_atom")).content).version
