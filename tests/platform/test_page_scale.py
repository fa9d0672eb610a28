"""Pages at newsroom scale: the health check, and query counts that do not grow with the data."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_the_health_check_answers_ok_to_anyone_without_touching_the_database(client):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(reverse("healthz"))

    assert response.status_code == 200
    assert response.content == b"ok"
    assert response["Content-Type"].startswith("text/plain")
    assert len(captured) == 0


def test_the_health_check_is_not_redirected_to_https(client, settings):
    settings.SECURE_SSL_REDIRECT = True

    assert client.get(reverse("healthz")).status_code == 200
    assert client.get(reverse("claims:corrections_log")).status_code == 301


def fetched_texts(captured):
    """How many queries fetched a source version's extracted text."""
    return sum('"extracted_text"' in query["sql"] for query in captured.captured_queries)


def test_claim_and_public_pages_never_fetch_the_sources_texts(client, editor):
    from bench.scale import BUSY_CASE_SLUG, ScaleOptions, make_scale_dataset
    from claims.models import Claim

    make_scale_dataset(
        ScaleOptions(
            cases=2,
            claims=30,
            sources=6,
            users=6,
            quotations=60,
            corrections=5,
            min_kb=2,
            max_kb=4,
            large_kb=16,
        )
    )
    claim = Claim.objects.filter(case__slug=BUSY_CASE_SLUG, status="published").first()
    client.force_login(editor)
    for url in (
        claim.get_absolute_url(),
        claim.get_public_url(),
        reverse("claims:public_case", args=[BUSY_CASE_SLUG]),
    ):
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        assert fetched_texts(captured) == 0, url
